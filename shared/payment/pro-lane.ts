/**
 * The Pro-key lane: a key (`Authorization: Bearer`) debits the route's price in credits (1 credit =
 * 0.01 USD of list price) before the handler runs, and a call that delivers nothing gets them back.
 * Every outcome of a keyed call says what is left of the key's budget.
 */
import { PaymentError, RateLimitedError, ServiceUnavailableError, UnauthorizedError, type HttpError } from '../errors/errors';
import type { PaymentRequiredBody } from './challenge';
import { paymentRequiredFor } from './payment-required';
import {
  releaseReasonText,
  type Budget,
  type ChargeOutcome,
  type Credentials,
  type Grant,
  type Lane,
  type PaidCall,
  type PaymentDeps,
  type ReleaseReason,
  type SettleOutcome,
} from './lane';
import { usdToCredits } from '../routes/pricing';
import type { KeyRecord, UsageEntry } from '../pro/credit-port';
import { hashKey, parseKey } from '../pro/keys';

interface ProGrant extends Grant {
  lane: 'pro';
  usage: UsageEntry;
  record: KeyRecord;
}

/** The budget of a key after a call that charged `charged` credits. */
const budgetOf = (record: KeyRecord, charged: number, creditsLeft = record.creditsLeft): Budget => ({
  charged,
  remaining: creditsLeft,
  limit: record.creditsPerPeriod,
  periodStart: record.periodStart,
  periodEnd: record.periodEnd,
});

/**
 * A per-key request rate (per process: each Lambda container counts its own), so that one key
 * cannot starve the others; answered 429 RATE_LIMITED with Retry-After.
 */
const RATE_WINDOW_MS = 1_000;
const windows = new Map<string, { start: number; count: number }>();
const rateLimited = (hash: string, perSecond: number, nowMs: number): number | null => {
  const w = windows.get(hash);
  if (!w || nowMs - w.start >= RATE_WINDOW_MS) {
    if (windows.size > 10_000) windows.clear();
    windows.set(hash, { start: nowMs, count: 1 });
    return null;
  }
  w.count++;
  return w.count > perSecond ? Math.ceil((w.start + RATE_WINDOW_MS - nowMs) / 1000) : null;
};

const refused = (error: HttpError, budget?: Budget, required?: PaymentRequiredBody): ChargeOutcome => ({
  type: 'refused',
  refusal: { error, ...(budget ? { budget } : {}), ...(required ? { required } : {}) },
});

const invalidKey = (message: string) => new UnauthorizedError(message);

const authorize = async (credentials: Credentials, call: PaidCall, deps: PaymentDeps): Promise<ChargeOutcome> => {
  if (credentials.kind !== 'pro') throw new Error('pro lane: not a Pro key');
  const key = credentials.key;
  // bearerOf gives '' for an Authorization header that is not `Bearer <token>` (Basic credentials, a bare key).
  if (key === '') return refused(invalidKey('the Authorization scheme must be Bearer: send Authorization: Bearer <Pro key>'));
  if (!parseKey(key).ok) return refused(invalidKey('not a valid Pro key (check for a typo: the checksum does not match)'));
  const price = usdToCredits(call.route.priceUsd!);
  const hash = hashKey(key);
  const now = deps.now();
  const retryAfter = rateLimited(hash, deps.config.PRO_RATE_LIMIT_PER_SECOND, now.getTime());
  if (retryAfter !== null)
    return refused(new RateLimitedError(`more than ${deps.config.PRO_RATE_LIMIT_PER_SECOND} calls per second with this key`, retryAfter));
  let debit: Awaited<ReturnType<PaymentDeps['credits']['debit']>>;
  try {
    // One usage entry per paid call: the call id, not the request id (an MCP POST carries many calls).
    debit = await deps.credits.debit(hash, price, { callId: call.callId, requestId: call.requestId, route: call.route.id }, now);
  } catch (err) {
    deps.log.error('credit ledger: debit failed', { requestId: call.requestId, error: err instanceof Error ? err.message : String(err) });
    return refused(new ServiceUnavailableError('PAYMENT_LEDGER_UNAVAILABLE', 'the credit ledger is unavailable; nothing was charged, retry shortly'));
  }
  if (debit.ok) {
    const grant: ProGrant = { lane: 'pro', callId: call.callId, usage: debit.usage, record: debit.record };
    return { type: 'granted', grant };
  }
  const budget = debit.record ? budgetOf(debit.record, 0) : undefined;
  switch (debit.reason) {
    case 'not_found':
      return refused(invalidKey('unknown Pro key'));
    case 'revoked':
      return refused(invalidKey('this Pro key was revoked (rotated keys are revoked); use the current key'));
    case 'expired':
      return refused(invalidKey(`the Pro subscription of this key ended on ${debit.record?.paidUntil ?? 'an earlier date'}; renew it at /pro`));
    case 'conflict':
      // The key's item stayed contended through every retry: no verdict on its credits, nothing taken.
      return refused(
        new ServiceUnavailableError('CREDITS_BUSY', 'too many calls with this Pro key are writing its credits at once; nothing was charged, retry shortly'),
        budget,
      );
    case 'quota_exceeded': {
      // The call can still be paid with x402: the refusal carries the payment requirements.
      const required = await paymentRequiredFor(call, deps, 'quota_exceeded');
      const error = new PaymentError('QUOTA_EXCEEDED', 'this Pro key has no credits left for this call; pay this call with x402 instead (accepts)', {
        credits_required: price,
        credits_remaining: debit.record?.creditsLeft ?? 0,
        resets_at: debit.record?.periodEnd ?? null,
        accepts: required.accepts,
      });
      return refused(error, budget, required);
    }
  }
};

const settle = async (g: ProGrant): Promise<SettleOutcome> => ({ type: 'settled', receipt: { budget: budgetOf(g.record, g.usage.credits) } });

const release = async (g: ProGrant, reason: ReleaseReason, deps: PaymentDeps): Promise<{ budget: Budget }> => {
  let refunded = false;
  try {
    refunded = await deps.credits.refund(g.usage, deps.now());
  } catch (err) {
    deps.log.error('credit ledger: refund failed', {
      requestId: g.usage.requestId,
      reason: releaseReasonText(reason),
      error: err instanceof Error ? err.message : String(err),
    });
  }
  return { budget: budgetOf(g.record, refunded ? 0 : g.usage.credits, g.record.creditsLeft + (refunded ? g.usage.credits : 0)) };
};

const proLane: Lane<ProGrant> = { id: 'pro', authorize, settle, release };

export { proLane, budgetOf };
export type { ProGrant };
