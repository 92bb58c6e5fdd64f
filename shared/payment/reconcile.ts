/**
 * Reconciliation of settlements whose outcome was not recorded: PENDING in the ledger (the
 * facilitator's answer was unknown) and SETTLING claims older than any request can live (the
 * process died or lost the store between /settle and the ledger write). The chain is the authority: EIP-3009's `authorizationState(payer, nonce)` says whether the authorization
 * was used, and the token's AuthorizationUsed event names the transaction that used it.
 *
 *   used on chain                -> SETTLED (delivered = false: a retry of the same header gets the data)
 *   unused, window expired       -> UNPAID  (it can never settle now)
 *   unused, still valid          -> PENDING: re-submitted to the facilitator when one is given;
 *                                   SETTLING: left until the chain shows it used or its window ends
 *
 * The scheduled reconciler Lambda (functions/reconcile-payments.ts, EventBridge) runs it in production;
 * tests and operators call `reconcilePendingPayments(...)` directly.
 */
import type { PaymentPayload } from '@x402/core/types';
import { createPublicClient, getAddress, http, parseAbiItem, type Address, type Hex, type PublicClient } from 'viem';
import type { X402Network } from '../config';
import type { FacilitatorClient } from './facilitator';
import { CLAIM_LIFETIME_MS, type ClaimKey, type ReconcileLedger } from './ledger';
import type { PaymentLog } from './core';

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
      const logs = await client.getLogs({
        address: asset,
        event: AUTHORIZATION_USED,
        args: { authorizer: payer, nonce },
        fromBlock: latest > LOG_LOOKBACK_BLOCKS ? latest - LOG_LOOKBACK_BLOCKS : 0n,
        toBlock: latest,
      });
      return logs[0]?.transactionHash ?? null;
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
  /** When given, a still-valid unused authorization is submitted again. */
  facilitator?: FacilitatorClient;
  now: () => Date;
  log?: PaymentLog;
}

interface ReconcileReport {
  checked: number;
  settled: Array<ClaimKey & { transaction: string }>;
  unpaid: ClaimKey[];
  failed: ClaimKey[];
  stillPending: ClaimKey[];
}

/**
 * Resolves every PENDING payment it can. Idempotent: run it as often as you like.
 * @returns what happened to each pending payment
 * @example await reconcilePendingPayments({ ledger, chain: viemChainReader(rpcUrl), now: () => new Date() })
 */
const reconcilePendingPayments = async (deps: ReconcileDeps): Promise<ReconcileReport> => {
  const report: ReconcileReport = { checked: 0, settled: [], unpaid: [], failed: [], stillPending: [] };
  for (const entry of await deps.ledger.listPending()) {
    const key: ClaimKey = { payer: entry.payer, nonce: entry.nonce };
    const rec = await deps.ledger.get(key);
    // A SETTLING claim whose request may still be running is that request's to finish.
    if (rec?.state === 'SETTLING' && Date.parse(rec.updatedAt) > deps.now().getTime() - CLAIM_LIFETIME_MS) continue;
    report.checked++;
    if (rec?.state !== 'PENDING' && rec?.state !== 'SETTLING') {
      // Already resolved elsewhere: only the index entry is left to drop.
      await deps.ledger.resolvePending(key, { state: 'FAILED', reason: 'index_entry_stale' });
      continue;
    }
    const asset = getAddress(rec.asset);
    const payer = getAddress(rec.payer);
    const nonce = rec.nonce as Hex;
    const settle = async (transaction: string) => {
      const sale = {
        ...key,
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
      // The claim and its sale in one transaction: finance never sees one without the other.
      if (!(await deps.ledger.resolvePending(key, { state: 'SETTLED', sale }))) return;
      report.settled.push({ ...key, transaction });
      deps.log?.info('x402 pending payment reconciled as settled', { ...key, transaction });
    };

    if (rec.transaction && (await deps.chain.transactionStatus(rec.transaction as Hex)) === 'success') {
      await settle(rec.transaction);
      continue;
    }
    if (await deps.chain.authorizationUsed(asset, payer, nonce)) {
      await settle((await deps.chain.findAuthorizationTransaction(asset, payer, nonce)) ?? rec.transaction ?? '');
      continue;
    }
    const nowS = Math.floor(deps.now().getTime() / 1000);
    if (nowS >= rec.validBefore) {
      await deps.ledger.resolvePending(key, { state: 'UNPAID', reason: 'authorization_expired_unused' });
      report.unpaid.push(key);
      deps.log?.info('x402 pending payment reconciled as unpaid', { ...key });
      continue;
    }
    // Only a PENDING payment (the facilitator acknowledged it) is submitted again. A SETTLING one may
    // never have reached /settle (its ledger write can land after the request gave the payment
    // back): it is settled only if the chain shows it used, and otherwise waits for its window.
    if (deps.facilitator && rec.payload && rec.state === 'PENDING') {
      const payload = JSON.parse(rec.payload) as PaymentPayload;
      try {
        const result = await deps.facilitator.settle(payload, payload.accepted);
        if (result.success) {
          await settle(result.transaction);
          continue;
        }
        if (result.errorReason !== 'settlement_pending' && !(await deps.chain.authorizationUsed(asset, payer, nonce))) {
          // A definite refusal of an unused authorization: nothing moved, the payer may try again.
          await deps.ledger.resolvePending(key, { state: 'FAILED', reason: result.errorReason ?? 'settle_refused' });
          report.failed.push(key);
          continue;
        }
      } catch (err) {
        deps.log?.warn('x402 reconciliation re-settle failed', { ...key, error: err instanceof Error ? err.message : String(err) });
      }
    }
    report.stillPending.push(key);
  }
  return report;
};

export { reconcilePendingPayments, viemChainReader, DEFAULT_RPC_URLS };
export type { ChainReader, ReconcileDeps, ReconcileReport };
