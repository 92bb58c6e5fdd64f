/**
 * The settle worker of deferred exact payments: takes a DEFERRED claim (its work item) and settles
 * it on chain, exactly once, or books its loss.
 *
 *   lease the claim (one worker at a time)
 *   -> leased before by another worker (it may have died after /settle, or lost its answer):
 *      the chain says first; used -> SETTLED with the transaction that used it
 *   -> /settle -> success                                  -> SETTLED (the sale), payer's account freed
 *               -> refused before sending (funds moved, authorization cancelled or expired), and
 *                  the chain shows the authorization unused -> DEFERRED_LOSS, the payer refused
 *                  deferral from then on, the loss booked and counted (an alarm reads it)
 *               -> anything else (timeout, broadcast unconfirmed) -> left DEFERRED: the lease
 *                  runs out and the next pass asks the chain first
 * The chain's nonce makes a second transfer impossible; the conditional moves make a second booking
 * impossible. On AWS the claim table's stream runs it (functions/settle-deferred.ts); locally a timer
 * inside `npm start` (infra/local/schedules.ts); the reconciler runs it for any DEFERRED claim it
 * meets (the backstop).
 */
import type { PaymentPayload } from '@x402/core/types';
import { getAddress, type Hex } from 'viem';
import { Semaphore } from '../../concurrency/semaphore';
import { METRIC, type MetricsSink } from '../../observability/metrics';
import { classifyFacilitatorError, isSettledBeforeSending, type FacilitatorClient } from '../facilitator';
import type { PaymentLog } from '../lane';
import { countRevenue } from '../revenue-metrics';
import type { ClaimKey } from '../ledger';
import type { ChainReader } from '../reconcile';
import type { SaleRecord } from '../sales';
import type { DeferredClaim, DeferredLedger } from './deferred-store';

interface DeferredWorkerDeps {
  deferred: DeferredLedger;
  facilitator: FacilitatorClient;
  chain: ChainReader;
  now: () => Date;
  log: PaymentLog;
  metrics?: MetricsSink;
  /** Names this worker in its leases (logs). */
  owner: string;
  /** How long a lease holds a claim: longer than one /settle (the facilitator's timeout) with margin. */
  leaseMs: number;
}

type DeferredOutcome = 'settled' | 'lost' | 'retry' | 'skipped';

/** Seconds after validBefore before "unused" is final: the chain's head may lag the wall clock (as the reconciler). */
const FINALITY_MARGIN_S = 30;
/** @x402/evm's refusal of an authorization whose nonce the token shows used (or cancelled). */
const NONCE_USED = 'invalid_exact_evm_nonce_already_used';
/** Leases after which an authorization used with no transfer found is taken as cancelled (a log index may lag its state). */
const CANCELLED_AFTER_LEASES = 3;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The transaction that used the claim's authorization; null when unused; '' when used without a
 * transfer found: EIP-3009's cancelAuthorization marks a nonce used too (with AuthorizationCanceled,
 * no AuthorizationUsed), so "used" alone is no payment: booking it as a sale let a payer cancel each
 * authorization after its answer and be neither charged nor capped (the sale freed its account).
 */
const usedOnChain = async (c: DeferredClaim, chain: ChainReader): Promise<string | null> => {
  const asset = getAddress(c.asset);
  const payer = getAddress(c.payer);
  if (!(await chain.authorizationUsed(asset, payer, c.nonce as Hex))) return null;
  return (await chain.findAuthorizationTransaction(asset, payer, c.nonce as Hex)) ?? '';
};

const book = async (c: DeferredClaim, transaction: string, deps: DeferredWorkerDeps): Promise<DeferredOutcome> => {
  const key = { payer: c.payer, nonce: c.nonce };
  const sale: SaleRecord = {
    lane: 'x402-exact',
    saleId: `${c.payer}#${c.nonce}`,
    payer: c.payer,
    nonce: c.nonce,
    amount: c.amount,
    asset: c.asset,
    network: c.network,
    payTo: c.payTo,
    route: c.route,
    path: c.path,
    transaction,
    settledAt: deps.now().toISOString(),
    requestId: c.claimId,
  };
  if (!(await deps.deferred.settled(key, sale))) return 'skipped';
  deps.metrics?.count(METRIC.deferredSettled);
  deps.metrics?.count(METRIC.settlements);
  if (deps.metrics) countRevenue(deps.metrics, { unit: 'usdc_atomic', amount: Number(c.amount) }, 'x402-exact', c.route);
  deps.log.info('x402 deferred payment settled', { ...key, amount: c.amount, transaction });
  return 'settled';
};

/**
 * Losses that are the seller's own doing: the authorization ran out while the worker was behind (a
 * deferral left it 30 s or more, and a payer cannot stop the clock). Booked and alarmed like any
 * loss, but the payer keeps deferral: one overloaded run of test/bench/deferred-1000.ts (5 calls/s
 * on a starved machine) booked 200 such losses and had refused deferral to every one of its buyers.
 */
const SELLER_SIDE_LOSSES: ReadonlySet<string> = new Set(['authorization_expired', 'invalid_exact_evm_payload_authorization_valid_before', 'no_payload']);

const loss = async (c: DeferredClaim, reason: string, deps: DeferredWorkerDeps): Promise<DeferredOutcome> => {
  const key = { payer: c.payer, nonce: c.nonce };
  const refusePayer = !SELLER_SIDE_LOSSES.has(reason);
  if (!(await deps.deferred.lost(key, reason, refusePayer))) return 'skipped';
  deps.metrics?.count(METRIC.deferredLossAtomic, Number(c.amount));
  deps.log.error(`x402 deferred settlement failed: loss booked${refusePayer ? ', payer refused deferral' : ' (the worker was late)'}`, {
    ...key,
    route: c.route,
    amount: c.amount,
    reason,
  });
  return 'lost';
};

/**
 * Settles one deferred claim (see the header). Never throws for a facilitator outcome; a store or
 * chain failure throws (the stream retries the record, the reconciler the claim).
 */
const settleDeferred = async (key: ClaimKey, deps: DeferredWorkerDeps): Promise<DeferredOutcome> => {
  const c = await deps.deferred.lease(key, deps.owner, deps.leaseMs);
  if (!c) return 'skipped';
  if (c.settleAttempts > 0) {
    const tx = await usedOnChain(c, deps.chain);
    if (tx) return book(c, tx, deps);
    // Used, no transfer found: cancelled, or an earlier attempt's transfer not indexed yet; a few leases decide.
    if (tx === '') return c.settleAttempts >= CANCELLED_AFTER_LEASES ? loss(c, 'authorization_canceled', deps) : 'retry';
  }
  const nowS = Math.floor(deps.now().getTime() / 1000);
  if (nowS >= c.validBefore) {
    // Too late to settle: unless the chain shows it used, it never will be (once its head has passed validBefore).
    if (nowS < c.validBefore + FINALITY_MARGIN_S) return 'retry';
    const tx = c.settleAttempts > 0 ? null : await usedOnChain(c, deps.chain);
    return tx ? book(c, tx, deps) : loss(c, tx === '' ? 'authorization_canceled' : 'authorization_expired', deps);
  }
  if (!c.payload) return loss(c, 'no_payload', deps);
  const payload = JSON.parse(c.payload) as PaymentPayload;
  // A refusal the chain settles at once: one before sending, or "nonce already used" when no worker
  // of ours sent it before (someone else used it, with a transfer to find, or the payer cancelled it).
  const decided = (r: { errorReason?: string; transaction: string }) =>
    isSettledBeforeSending({ success: false, ...r }) || (c.settleAttempts === 0 && !r.transaction && r.errorReason === NONCE_USED);
  let refusal: string | null = null;
  try {
    const r = await deps.facilitator.settle(payload, payload.accepted);
    if (r.success) return book(c, r.transaction, deps);
    if (decided(r)) refusal = r.errorReason ?? 'settle_refused';
    else deps.log.warn('x402 deferred settlement pending', { ...key, reason: r.errorReason, transaction: r.transaction });
  } catch (err) {
    const f = classifyFacilitatorError(err);
    if (f.kind === 'verdict' && decided({ ...(f.reason ? { errorReason: f.reason } : {}), transaction: f.transaction ?? '' }))
      refusal = f.reason ?? 'settle_refused';
    else deps.log.warn('x402 deferred settle call failed', { ...key, failure: f, error: message(err) });
  }
  if (refusal === null) return 'retry';
  // Refused, but an earlier attempt may have used the authorization: the chain decides.
  const tx = await usedOnChain(c, deps.chain);
  return tx ? book(c, tx, deps) : loss(c, tx === '' ? 'authorization_canceled' : refusal, deps);
};

interface DeferredPassReport {
  found: number;
  settled: number;
  lost: number;
  retry: number;
  skipped: number;
  failed: number;
}

/**
 * One pass over every DEFERRED claim, oldest first (the nearest validBefore first), `concurrency`
 * settlements at a time (each waits for its block). One failing claim never stops the others.
 */
const runDeferredSettlement = async (deps: DeferredWorkerDeps, concurrency = 16): Promise<DeferredPassReport> => {
  const keys = await deps.deferred.listDeferred();
  const report: DeferredPassReport = { found: keys.length, settled: 0, lost: 0, retry: 0, skipped: 0, failed: 0 };
  const slots = new Semaphore(concurrency);
  await Promise.all(
    keys.map((key) =>
      slots.run(async () => {
        try {
          report[await settleDeferred(key, deps)]++;
        } catch (err) {
          report.failed++;
          deps.log.error('x402 deferred settlement attempt failed', { ...key, error: message(err) });
        }
      }),
    ),
  );
  return report;
};

/** How often a worker whose /settle had no verdict looks at the chain, and what it leaves of its lease. */
const CHAIN_WATCH_MS = 1_000;
const CHAIN_WATCH_MARGIN_MS = 2_000;

/**
 * After a /settle with no verdict (timeout, broadcast unconfirmed), the process that sent it watches
 * the chain for the rest of its lease and books the transfer when it shows: the local facilitator
 * answered some settlements after our 10 s timeout, and the next lease (25 s later) came after a
 * 60 s authorization had run out (test/bench/deferred-1000.ts: p95 answer-to-chain 27 s, 2 of 1,000
 * expired). Not on chain by then: 'retry', as before (the next lease asks the chain first).
 */
const bookWhenOnChain = async (key: ClaimKey, deps: DeferredWorkerDeps, untilMs: number): Promise<DeferredOutcome> => {
  while (deps.now().getTime() + CHAIN_WATCH_MS < untilMs) {
    await new Promise((resolve) => setTimeout(resolve, CHAIN_WATCH_MS));
    const c = await deps.deferred.get(key);
    if (c?.state !== 'DEFERRED') return 'skipped';
    const tx = await usedOnChain(c, deps.chain);
    if (tx) return book(c, tx, deps);
  }
  return 'retry';
};

/**
 * The worker of a long-running process (the timer of `npm start`): each `tick` lists the DEFERRED
 * claims and starts those this process does not hold yet, oldest first, `concurrency` settlements at
 * a time across ticks, and returns without waiting for them. A pass that waits for its slowest
 * settlement (runDeferredSettlement) holds every claim answered meanwhile until it ends, and one
 * /settle that runs into the facilitator's timeout holds them 10 s. Other processes are kept off a
 * claim by its lease, as before.
 * @param onDone told each outcome (for the process's log)
 */
const deferredSettler = (deps: DeferredWorkerDeps, concurrency: number, onDone: (outcome: DeferredOutcome | 'failed', key: ClaimKey) => void) => {
  const held = new Set<string>();
  const slots = new Semaphore(concurrency);
  const settle = async (key: ClaimKey): Promise<DeferredOutcome> => {
    const leasedBy = deps.now().getTime() + deps.leaseMs - CHAIN_WATCH_MARGIN_MS;
    const outcome = await settleDeferred(key, deps);
    return outcome === 'retry' ? bookWhenOnChain(key, deps, leasedBy) : outcome;
  };
  const tick = async (): Promise<number> => {
    const keys = (await deps.deferred.listDeferred()).filter((k) => !held.has(`${k.payer}#${k.nonce}`));
    for (const key of keys) {
      const id = `${key.payer}#${key.nonce}`;
      held.add(id);
      void slots
        .run(() => settle(key))
        .then(
          (outcome) => onDone(outcome, key),
          (err: unknown) => {
            deps.log.error('x402 deferred settlement attempt failed', { ...key, error: message(err) });
            onDone('failed', key);
          },
        )
        .finally(() => held.delete(id));
    }
    return keys.length;
  };
  return { tick };
};

/** A lease: the facilitator's timeout twice (a /settle and its one retry) and a margin. */
const leaseMsFor = (facilitatorTimeoutMs: number): number => 2 * facilitatorTimeoutMs + 5_000;

export { deferredSettler, leaseMsFor, runDeferredSettlement, settleDeferred };
export type { DeferredOutcome, DeferredPassReport, DeferredWorkerDeps };
