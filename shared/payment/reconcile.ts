/**
 * Reconciliation of every x402 claim whose outcome the chain has not settled yet: the watch index
 * (ledger.ts) holds each claim from its first write until it is SETTLED or proven unused. The chain
 * is the authority: EIP-3009's `authorizationState(payer, nonce)` says whether the authorization was
 * used, and the token's AuthorizationUsed event names the transaction that used it.
 *
 *   used on chain by a transfer       -> SETTLED, the sale booked (delivered = false: a retry of the
 *                                        same header gets the data), whatever state the claim was in
 *   unused after validBefore          -> UNPAID (CLAIMED, PENDING) or closed as it was (RELEASED, FAILED)
 *   unused, still valid               -> PENDING: re-submitted to the facilitator when one is given;
 *                                        anything else waits for the chain or the window's end
 * CLAIMED claims younger than CLAIM_LIFETIME_MS belong to the call that holds them.
 *
 * The scheduled reconciler Lambda (functions/reconcile-payments.ts, EventBridge) runs it in production;
 * tests and operators call `reconcilePendingPayments(...)` directly.
 */
import type { PaymentPayload } from '@x402/core/types';
import { createPublicClient, getAddress, http, parseAbiItem, type Address, type Hex, type PublicClient } from 'viem';
import type { X402Network } from '../config';
import { findNewestLog } from './evm/log-pages';
import type { FacilitatorClient } from './facilitator';
import type { PaymentLog } from './lane';
import { CLAIM_LIFETIME_MS, type ClaimKey, type ClaimRecord, type ReconcileLedger } from './ledger';
import type { SaleRecord } from './sales';

/** What reconciliation reads from the chain. */
interface ChainReader {
  /** Whether an EIP-3009 authorization (payer, nonce) was used or cancelled on the token. */
  authorizationUsed(asset: Address, payer: Address, nonce: Hex): Promise<boolean>;
  /** The transaction that used the authorization, when it can be found. */
  findAuthorizationTransaction(asset: Address, payer: Address, nonce: Hex): Promise<Hex | null>;
  /** A transaction's receipt status; `missing` when the chain does not know it (dropped or not mined). */
  transactionStatus(hash: Hex): Promise<'success' | 'reverted' | 'missing'>;
}

/** Public RPC endpoints, used when X402_RPC_URL is not set. */
const DEFAULT_RPC_URLS: Readonly<Record<X402Network, string>> = Object.freeze({
  'eip155:8453': 'https://mainnet.base.org',
  'eip155:84532': 'https://sepolia.base.org',
});

const AUTHORIZATION_STATE_ABI = [
  {
    type: 'function',
    name: 'authorizationState',
    stateMutability: 'view',
    inputs: [
      { name: 'authorizer', type: 'address' },
      { name: 'nonce', type: 'bytes32' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
] as const;
const AUTHORIZATION_USED = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)');
/** Blocks searched back for the AuthorizationUsed event (about 11 h on Base's 2 s blocks). */
const LOG_LOOKBACK_BLOCKS = 20_000n;

/**
 * A ChainReader over JSON-RPC.
 * @param rpcUrl X402_RPC_URL, or DEFAULT_RPC_URLS[network]
 */
const viemChainReader = (rpcUrl: string): ChainReader => {
  const client = createPublicClient({ transport: http(rpcUrl, { retryCount: 1 }) }) as PublicClient;
  return {
    authorizationUsed: async (asset, payer, nonce) =>
      (await client.readContract({ address: asset, abi: AUTHORIZATION_STATE_ABI, functionName: 'authorizationState', args: [payer, nonce] })) === true,
    findAuthorizationTransaction: async (asset, payer, nonce) => {
      const latest = await client.getBlockNumber();
      // In pages the provider accepts (one 20,000-block query is refused by most hosted nodes).
      const log = await findNewestLog((range) => client.getLogs({ address: asset, event: AUTHORIZATION_USED, args: { authorizer: payer, nonce }, ...range }), {
        fromBlock: latest > LOG_LOOKBACK_BLOCKS ? latest - LOG_LOOKBACK_BLOCKS : 0n,
        toBlock: latest,
      });
      return log?.transactionHash ?? null;
    },
    transactionStatus: async (hash) => {
      try {
        const receipt = await client.getTransactionReceipt({ hash });
        return receipt.status === 'success' ? 'success' : 'reverted';
      } catch (err) {
        if ((err as { name?: string }).name === 'TransactionReceiptNotFoundError') return 'missing';
        throw err;
      }
    },
  };
};

interface ReconcileDeps {
  ledger: ReconcileLedger;
  chain: ChainReader;
  /** When given, a still-valid unused PENDING authorization is submitted again. */
  facilitator?: FacilitatorClient;
  now: () => Date;
  log?: PaymentLog;
  /** Settles a DEFERRED claim (exact/deferred-worker.ts): answered already, its settlement is the worker's to make. */
  settleDeferred?: (key: ClaimKey) => Promise<unknown>;
}

interface ReconcileReport {
  checked: number;
  settled: Array<ClaimKey & { transaction: string }>;
  unpaid: ClaimKey[];
  /** Released or refused claims the chain never used, closed once their window ended. */
  closed: ClaimKey[];
  stillPending: ClaimKey[];
}

/** Seconds after validBefore before "unused" is final: the chain's head may lag the wall clock. */
const FINALITY_MARGIN_S = 30;

/**
 * Resolves every watched claim it can. Idempotent: run it as often as you like.
 * @returns what happened to each claim looked at
 * @example await reconcilePendingPayments({ ledger, chain: viemChainReader(rpcUrl), now: () => new Date() })
 */
const reconcilePendingPayments = async (deps: ReconcileDeps): Promise<ReconcileReport> => {
  const report: ReconcileReport = { checked: 0, settled: [], unpaid: [], closed: [], stillPending: [] };
  for (const entry of await deps.ledger.listWatched()) {
    const key: ClaimKey = { payer: entry.payer, nonce: entry.nonce };
    const rec = await deps.ledger.get(key);
    if (!rec?.watched) continue;
    // A claim whose call may still be running is that call's to finish.
    if (rec.state === 'CLAIMED' && Date.parse(rec.updatedAt) > deps.now().getTime() - CLAIM_LIFETIME_MS) continue;
    report.checked++;
    if (rec.state === 'DEFERRED') {
      // A deferred claim nobody settled yet (the stream's retries ran out, a worker died): the worker's rules, run here.
      await deps.settleDeferred?.(key);
      continue;
    }
    await reconcileClaim(rec, key, deps, report);
  }
  return report;
};

const reconcileClaim = async (rec: ClaimRecord, key: ClaimKey, deps: ReconcileDeps, report: ReconcileReport): Promise<void> => {
  const observed = { state: rec.state, claimId: rec.claimId };
  if (rec.state === 'SETTLED' || rec.state === 'UNPAID') {
    // Closed elsewhere: only the watch is left to drop.
    await deps.ledger.resolve(key, observed, { state: 'CLOSED', reason: rec.reason ?? 'closed' });
    return;
  }
  const asset = getAddress(rec.asset);
  const payer = getAddress(rec.payer);
  const nonce = rec.nonce as Hex;
  const settle = async (transaction: string) => {
    const sale: SaleRecord = {
      lane: 'x402-exact',
      saleId: `${key.payer}#${key.nonce}`,
      payer: key.payer,
      nonce: key.nonce,
      amount: rec.amount,
      asset: rec.asset,
      network: rec.network,
      payTo: rec.payTo,
      route: rec.route,
      path: rec.path,
      transaction,
      settledAt: deps.now().toISOString(),
      requestId: rec.claimId,
    };
    // One write: the claim becomes its sale, so finance never sees one without the other.
    if (!(await deps.ledger.resolve(key, observed, { state: 'SETTLED', sale }))) return;
    report.settled.push({ ...key, transaction });
    deps.log?.info('x402 payment reconciled as settled', { ...key, from: rec.state, transaction });
  };

  if (rec.transaction && (await deps.chain.transactionStatus(rec.transaction as Hex)) === 'success') return settle(rec.transaction);
  const nowS = Math.floor(deps.now().getTime() / 1000);
  if (await deps.chain.authorizationUsed(asset, payer, nonce)) {
    const transaction = await deps.chain.findAuthorizationTransaction(asset, payer, nonce);
    if (transaction) return settle(transaction);
    // Used with no transfer: EIP-3009's cancelAuthorization marks a nonce used too (AuthorizationCanceled,
    // no AuthorizationUsed). Booked as a sale, a payer who cancels after a 504 would be owed the data for
    // nothing; a log index may lag the state, so the window's end decides, as for "unused".
    if (nowS >= rec.validBefore + FINALITY_MARGIN_S) {
      // Closed like an unused one: UNPAID when a call may be owed it, else closed as it was.
      const unpaid = rec.state === 'CLAIMED' || rec.state === 'PENDING';
      await deps.ledger.resolve(key, observed, { state: unpaid ? 'UNPAID' : 'CLOSED', reason: 'authorization_canceled' });
      (unpaid ? report.unpaid : report.closed).push(key);
      deps.log?.warn('x402 authorization used with no transfer (cancelled): no sale', { ...key, from: rec.state });
      return;
    }
    if (rec.state === 'CLAIMED' || rec.state === 'PENDING') report.stillPending.push(key);
    return;
  }
  if (nowS >= rec.validBefore + FINALITY_MARGIN_S) {
    const unpaid = rec.state === 'CLAIMED' || rec.state === 'PENDING';
    await deps.ledger.resolve(
      key,
      observed,
      unpaid ? { state: 'UNPAID', reason: 'authorization_expired_unused' } : { state: 'CLOSED', reason: rec.reason ?? 'unused' },
    );
    (unpaid ? report.unpaid : report.closed).push(key);
    if (unpaid) deps.log?.info('x402 payment reconciled as unpaid', { ...key });
    return;
  }
  // Only a PENDING payment (the facilitator took it) is submitted again. A stale CLAIMED one may never
  // have reached /settle; it is settled only if the chain shows it used, and otherwise waits for its window.
  if (deps.facilitator && rec.payload && rec.state === 'PENDING') {
    const payload = JSON.parse(rec.payload) as PaymentPayload;
    try {
      const result = await deps.facilitator.settle(payload, payload.accepted);
      if (result.success) return settle(result.transaction);
    } catch (err) {
      deps.log?.warn('x402 reconciliation re-settle failed', { ...key, error: err instanceof Error ? err.message : String(err) });
    }
  }
  if (rec.state === 'CLAIMED' || rec.state === 'PENDING') report.stillPending.push(key);
};

export { reconcilePendingPayments, viemChainReader, DEFAULT_RPC_URLS };
export type { ChainReader, ReconcileDeps, ReconcileReport };
