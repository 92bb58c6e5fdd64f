/**
 * One attempt of one delivery (issue 37). The money rules:
 *
 * - An attempt starts only once (WatchStore.startAttempt: a delivered, dead or unpaid delivery, or an
 *   attempt already started, is never run again), so a retried or duplicated message cannot charge twice.
 * - The route's price in credits is taken from the key BEFORE the POST (nothing unpaid ever leaves: a
 *   key without credits gets no POST; its watch is paused with the reason) and given back unless the
 *   attempt ends "delivered", which only a 2xx does: a delivery is charged once, only when the
 *   receiver took it. The debit's usage entry has a key known before it is written (the attempt's
 *   start instant, on its record, and `<delivery id>#<attempt>`), so the credits can be given back
 *   even when the debit's own answer was lost, and a refund happens at most once per entry.
 * - A buyer is never charged without the data when an attempt's process stops between the debit and
 *   the end (a crash, a Lambda timeout): the running attempt holds a lease (ATTEMPT_LEASE_S). The
 *   attempt's message coming back (SQS redelivers what a function did not finish) takes the stopped
 *   attempt over once the lease ended, gives its credits back and retries the delivery; `sweepStopped`,
 *   on a timer, does the same for an attempt whose message is gone (and dead-letters it, refunded).
 * - A failed attempt is retried with exponential backoff for about 24 h (RETRY_DELAYS_S), then the
 *   delivery is dead-lettered (its record says why); a watch whose deliveries die
 *   DISABLE_AFTER_DEAD_DELIVERIES times in a row is disabled, saying why.
 *
 * Signatures follow Standard Webhooks (the `standardwebhooks` package): webhook-id is the delivery id
 * (the same on every retry, so a receiver can drop duplicates), webhook-timestamp the attempt's time.
 */
import { Webhook } from 'standardwebhooks';
import type { CreditLedger, UsageEntry } from '../pro/credit-port';
import type { PostFn } from './post';
import type { DeliveryQueue } from './queue';
import { ATTEMPT_LEASE_S, SWEEP_AFTER_S } from './lease';
import { DISABLE_AFTER_DEAD_DELIVERIES, deliveryPayload, RETRY_DELAYS_S, type DeliveryMessage } from './watch';
import type { DeliveryIds, WatchStore } from './watch-store';

interface DeliveryDeps {
  watches: WatchStore;
  credits: Pick<CreditLedger, 'take' | 'refund'>;
  queue: DeliveryQueue;
  post: PostFn;
  now: () => Date;
  /** Waits before each retry, seconds (default RETRY_DELAYS_S; tests shorten it). */
  retryDelaysS?: readonly number[];
  log?: { warn: (message: string, extra?: Record<string, unknown>) => void };
}

/** What recovering a stopped attempt needs (it posts nothing). */
type RecoveryDeps = Omit<DeliveryDeps, 'post'>;

type DeliveryOutcome = 'delivered' | 'retrying' | 'dead' | 'unpaid' | 'skipped' | 'deferred';

/** Why a debit refusal pauses a watch, in words the owner reads on it. */
const PAUSE_REASONS: Readonly<Record<string, string>> = {
  quota_exceeded: 'paused: the Pro key has no credits left for a delivery; it resumes at the next release once the key has credits again',
  expired: 'paused: the Pro subscription of the key ended; renew it at /pro',
  revoked: 'paused: the Pro key was revoked',
  not_found: 'paused: the Pro key is unknown',
};

/** The usage entry of an attempt's debit: its key is known before the debit is written. */
const holdOf = (ids: DeliveryIds, attempt: number, chargeAt: string, credits: number, route: string): UsageEntry => ({
  hash: ids.keyHash,
  callId: `${ids.deliveryId}#${attempt}`,
  requestId: ids.deliveryId,
  route,
  credits,
  at: chargeAt,
});

const leaseFrom = (now: Date) => new Date(now.getTime() + ATTEMPT_LEASE_S * 1000).toISOString();

/** Pages of the index one sweep reads at most (100 attempts per shard each; the next sweep goes on). */
const SWEEP_PAGES = 10;

/** Why a stopped attempt ended, on its delivery record. */
const STOPPED = 'the attempt stopped before it ended (its process crashed or timed out); its credits were given back';

/**
 * An attempt that did not deliver: the hold given back (a no-op when nothing was debited), then the
 * next attempt queued after its wait, or the delivery dead-lettered when the retries are spent (or
 * when there is no message to retry with).
 */
const failed = async (
  deps: RecoveryDeps,
  run: { ids: DeliveryIds; lease: string; now: Date; hold: UsageEntry | null; message: DeliveryMessage | null },
  result: { status: number | null; error: string },
): Promise<DeliveryOutcome> => {
  const { ids, lease, now, message: m } = run;
  const at = { ...ids, lease, now };
  if (run.hold) await deps.credits.refund(run.hold, now);
  const wait = m ? (deps.retryDelaysS ?? RETRY_DELAYS_S)[m.attempt] : undefined;
  if (m && wait !== undefined) {
    if (!(await deps.watches.endAttempt(at, { state: 'pending', status: result.status, error: result.error, credits: 0 }))) return 'skipped';
    await deps.watches.recordFailure(ids.keyHash, ids.watchId, false);
    await deps.queue.send([{ ...m, attempt: m.attempt + 1, notBefore: new Date(now.getTime() + wait * 1000).toISOString() }], wait);
    return 'retrying';
  }
  // Retries spent: the dead-letter record is the delivery's own, with the last answer.
  if (!(await deps.watches.endAttempt(at, { state: 'dead', status: result.status, error: result.error, credits: 0 }))) return 'skipped';
  const deadInRow = await deps.watches.recordFailure(ids.keyHash, ids.watchId, true);
  if (deadInRow >= DISABLE_AFTER_DEAD_DELIVERIES) {
    await deps.watches.setState(
      ids.keyHash,
      ids.watchId,
      'disabled',
      `disabled: ${deadInRow} deliveries in a row failed every retry (last: ${result.error}); create a new watch once the receiver answers 2xx`,
    );
  }
  return 'dead';
};

/**
 * Takes over a stopped attempt (its lease ended) and gives its credits back; `m` retries the
 * delivery, without it (the sweep) the delivery is dead-lettered.
 * @returns null when the attempt was not stopped (ended, still running, or taken by another)
 */
const recoverStopped = async (ids: DeliveryIds, deps: RecoveryDeps, m: DeliveryMessage | null, now: Date): Promise<DeliveryOutcome | 'running' | null> => {
  const record = await deps.watches.delivery(ids);
  if (record?.state !== 'pending' || !record.leaseUntil || (m && record.attempts !== m.attempt + 1)) return null;
  if (Date.parse(record.leaseUntil) > now.getTime()) return 'running';
  const attempt = record.attempts - 1;
  const lease = leaseFrom(now);
  if (!(await deps.watches.takeOver({ ...ids, attempt, seen: record.leaseUntil, leaseUntil: lease, now }))) return null;
  // The refund needs the entry's key and credits only (the route is the entry's, already written).
  const hold = record.heldCredits > 0 && record.chargeAt ? holdOf(ids, attempt, record.chargeAt, record.heldCredits, '') : null;
  return failed(deps, { ids, lease, now, hold, message: m }, { status: record.lastStatus, error: STOPPED });
};

/**
 * Runs the attempt a message names.
 * @returns what happened (for logs, metrics and tests)
 */
const deliver = async (m: DeliveryMessage, deps: DeliveryDeps): Promise<DeliveryOutcome> => {
  const now = deps.now();
  const due = Date.parse(m.notBefore);
  // Queues delay at most 15 minutes (SQS): a longer wait goes round again.
  if (due > now.getTime() + 1000) {
    await deps.queue.send([m], Math.ceil((due - now.getTime()) / 1000));
    return 'deferred';
  }
  const ids: DeliveryIds = { keyHash: m.keyHash, watchId: m.watchId, deliveryId: m.deliveryId };
  const found = await deps.watches.getWithSecret(m.keyHash, m.watchId);
  // The receiver already has this answer (its baseline, or an earlier delivery of it).
  if (found && m.attempt === 0 && found.watch.lastEtag === m.etag) return 'skipped';
  const lease = leaseFrom(now);
  const started =
    found !== null &&
    found.watch.state !== 'disabled' &&
    (await deps.watches.startAttempt({ ...ids, etag: m.etag, attempt: m.attempt, credits: m.credits, leaseUntil: lease, now }));
  if (!started) {
    // The message came back: its attempt may have stopped half-way with credits held.
    const recovered = await recoverStopped(ids, deps, m, now);
    if (recovered !== 'running') return recovered ?? 'skipped';
    // Still inside its lease (a duplicate message, or the attempt is slow): look again when it ends.
    await deps.queue.send([m], ATTEMPT_LEASE_S);
    return 'deferred';
  }
  const { watch, secret } = found!;
  const hold = m.credits > 0 ? holdOf(ids, m.attempt, now.toISOString(), m.credits, watch.routeId) : null;
  const run = { ids, lease, now, hold, message: m };

  // Paid before it leaves: a hold on the credits, given back unless the receiver answers 2xx.
  if (hold) {
    // `take`: the debit without the key's read-back (a delivery shows no budget).
    let debit: Awaited<ReturnType<CreditLedger['take']>> | null = null;
    try {
      debit = await deps.credits.take(m.keyHash, m.credits, { callId: hold.callId, requestId: hold.requestId, route: hold.route }, now);
    } catch (err) {
      deps.log?.warn('watch delivery: the credit ledger failed; retrying later', { deliveryId: m.deliveryId, error: (err as Error).message });
    }
    if (debit && !debit.ok && debit.reason !== 'conflict') {
      // Refused: nothing was taken.
      if (!(await deps.watches.endAttempt({ ...ids, lease, now }, { state: 'unpaid', status: null, error: debit.reason, credits: 0 }))) return 'skipped';
      await deps.watches.setState(m.keyHash, m.watchId, 'paused', PAUSE_REASONS[debit.reason] ?? `paused: ${debit.reason}`);
      return 'unpaid';
    }
    // The ledger failed or stayed busy: whether the debit landed is unknown, so the refund by its key settles it.
    if (!debit?.ok) return failed(deps, run, { status: null, error: 'the credit ledger was busy or unavailable; nothing was sent' });
  }

  const body = JSON.stringify(deliveryPayload(m, watch, now));
  const result = await deps.post(watch.url, body, {
    'webhook-id': m.deliveryId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(m.deliveryId, now, body),
  });

  if (result.status !== null && result.status >= 200 && result.status < 300) {
    if (!(await deps.watches.endAttempt({ ...ids, lease, now }, { state: 'delivered', status: result.status, error: null, credits: m.credits }))) {
      // Taken over after the lease ended (this attempt outlived it): the taker gives the hold back, so this one did not charge.
      if (hold) await deps.credits.refund(hold, now);
      return 'skipped';
    }
    await deps.watches.recordDelivered(m.keyHash, m.watchId, m.etag, m.credits, now);
    return 'delivered';
  }
  return failed(deps, run, { status: result.status, error: result.error ?? `the receiver answered ${result.status}` });
};

/**
 * The sweep: attempts that stopped (their lease ended `afterS` seconds ago or more) and whose message
 * never came back: their credits given back, the delivery dead-lettered saying so.
 * @returns how many were recovered
 */
const sweepStopped = async (deps: RecoveryDeps, afterS = SWEEP_AFTER_S): Promise<number> => {
  const now = deps.now();
  const before = new Date(now.getTime() - afterS * 1000);
  let recovered = 0;
  // A page per index shard at a time; a recovered attempt leaves the index, so the next page is new.
  for (let page = 0; page < SWEEP_PAGES; page++) {
    const stopped = await deps.watches.stoppedAttempts(before);
    let progress = 0;
    for (const ids of stopped) if ((await recoverStopped(ids, deps, null, now)) === 'dead') progress++;
    recovered += progress;
    // Nothing left, or only entries the index still shows after their attempt ended (it lags).
    if (progress === 0) break;
  }
  return recovered;
};

export { deliver, sweepStopped };
export type { DeliveryDeps, DeliveryOutcome, RecoveryDeps };
