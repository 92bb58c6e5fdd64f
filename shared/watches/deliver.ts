/**
 * One attempt of one delivery (issue 37). The money rules:
 *
 * - An attempt starts only once (WatchStore.startAttempt: a delivered, dead or unpaid delivery, or an
 *   attempt already started, is never run again), so a retried or duplicated message cannot charge twice.
 * - The route's price in credits is taken from the key BEFORE the POST and given back when the
 *   receiver does not answer 2xx: a delivery is charged once, only when the receiver took it, and
 *   nothing unpaid ever leaves (a key without credits gets no POST; its watch is paused with the reason).
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
import { DISABLE_AFTER_DEAD_DELIVERIES, deliveryPayload, RETRY_DELAYS_S, type DeliveryMessage } from './watch';
import type { WatchStore } from './watch-store';

interface DeliveryDeps {
  watches: WatchStore;
  credits: Pick<CreditLedger, 'debit' | 'refund'>;
  queue: DeliveryQueue;
  post: PostFn;
  now: () => Date;
  /** Waits before each retry, seconds (default RETRY_DELAYS_S; tests shorten it). */
  retryDelaysS?: readonly number[];
  log?: { warn: (message: string, extra?: Record<string, unknown>) => void };
}

type DeliveryOutcome = 'delivered' | 'retrying' | 'dead' | 'unpaid' | 'skipped' | 'deferred';

/** Why a debit refusal pauses a watch, in words the owner reads on it. */
const PAUSE_REASONS: Readonly<Record<string, string>> = {
  quota_exceeded: 'paused: the Pro key has no credits left for a delivery; it resumes at the next release once the key has credits again',
  expired: 'paused: the Pro subscription of the key ended; renew it at /pro',
  revoked: 'paused: the Pro key was revoked',
  not_found: 'paused: the Pro key is unknown',
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
  const found = await deps.watches.getWithSecret(m.keyHash, m.watchId);
  if (!found || found.watch.state === 'disabled') return 'skipped';
  const { watch, secret } = found;
  // The receiver already has this answer (its baseline, or an earlier delivery of it).
  if (m.attempt === 0 && watch.lastEtag === m.etag) return 'skipped';
  const ids = { keyHash: m.keyHash, watchId: m.watchId, deliveryId: m.deliveryId, now };
  if (!(await deps.watches.startAttempt({ ...ids, etag: m.etag, attempt: m.attempt }))) return 'skipped';

  // Paid before it leaves: a hold on the credits, given back unless the receiver answers 2xx.
  let usage: UsageEntry | null = null;
  if (m.credits > 0) {
    let debit: Awaited<ReturnType<CreditLedger['debit']>> | null = null;
    try {
      debit = await deps.credits.debit(m.keyHash, m.credits, { callId: `${m.deliveryId}#${m.attempt}`, requestId: m.deliveryId, route: watch.routeId }, now);
    } catch (err) {
      deps.log?.warn('watch delivery: the credit ledger failed; retrying later', { deliveryId: m.deliveryId, error: (err as Error).message });
    }
    if (debit && !debit.ok && debit.reason !== 'conflict') {
      await deps.watches.endAttempt(ids, { state: 'unpaid', status: null, error: debit.reason, credits: 0 });
      await deps.watches.setState(m.keyHash, m.watchId, 'paused', PAUSE_REASONS[debit.reason] ?? `paused: ${debit.reason}`);
      return 'unpaid';
    }
    if (debit?.ok) usage = debit.usage;
  }

  const result =
    m.credits > 0 && !usage
      ? { status: null, error: 'the credit ledger was busy or unavailable; nothing was sent' }
      : await (async () => {
          const body = JSON.stringify(deliveryPayload(m, watch, now));
          const signature = new Webhook(secret).sign(m.deliveryId, now, body);
          return deps.post(watch.url, body, {
            'webhook-id': m.deliveryId,
            'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
            'webhook-signature': signature,
          });
        })();

  if (result.status !== null && result.status >= 200 && result.status < 300) {
    await deps.watches.endAttempt(ids, { state: 'delivered', status: result.status, error: null, credits: m.credits });
    await deps.watches.recordDelivered(m.keyHash, m.watchId, m.etag, m.credits, now);
    return 'delivered';
  }
  // Not taken: the hold goes back.
  if (usage) await deps.credits.refund(usage, now);
  const error = result.error ?? `the receiver answered ${result.status}`;
  const delays = deps.retryDelaysS ?? RETRY_DELAYS_S;
  const wait = delays[m.attempt];
  if (wait !== undefined) {
    await deps.watches.endAttempt(ids, { state: 'pending', status: result.status, error, credits: 0 });
    await deps.watches.recordFailure(m.keyHash, m.watchId, false);
    await deps.queue.send([{ ...m, attempt: m.attempt + 1, notBefore: new Date(now.getTime() + wait * 1000).toISOString() }], wait);
    return 'retrying';
  }
  // Retries spent: the dead-letter record is the delivery's own, with the last answer.
  await deps.watches.endAttempt(ids, { state: 'dead', status: result.status, error, credits: 0 });
  const deadInRow = await deps.watches.recordFailure(m.keyHash, m.watchId, true);
  if (deadInRow >= DISABLE_AFTER_DEAD_DELIVERIES) {
    await deps.watches.setState(
      m.keyHash,
      m.watchId,
      'disabled',
      `disabled: ${deadInRow} deliveries in a row failed every retry (last: ${error}); create a new watch once the receiver answers 2xx`,
    );
  }
  return 'dead';
};

export { deliver };
export type { DeliveryDeps, DeliveryOutcome };
