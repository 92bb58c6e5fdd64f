/**
 * The Pro-key lane of the payment core: `Authorization: Bearer <key>` debits the route's price in
 * credits (1 credit = 0.01 USD of list price) before the handler runs, and a call that delivers
 * nothing gets them back. Every answer of the lane says what is left of the budget.
 */
import { randomUUID } from 'node:crypto';
import { PaymentError, RateLimitedError, ServiceUnavailableError, UnauthorizedError, type HttpError } from '../errors/errors';
import { usdToCredits } from '../routes/pricing';
import type { RouteDef } from '../routes/table';
import type { CreditLedger, KeyRecord, UsageEntry } from './credit-port';
import { hashKey, parseKey } from './keys';

interface ProReceipt {
  lane: 'pro';
  usage: UsageEntry;
  record: KeyRecord;
}

/** Response headers of the lane, exposed to browsers. */
const BUDGET_HEADERS = ['x-credits-charged', 'x-credits-remaining', 'x-credits-limit', 'x-credits-reset'] as const;

const budgetHeaders = (record: KeyRecord, charged: number, now: Date = new Date()): Record<string, string> => {
  const resetS = Math.max(0, Math.ceil((Date.parse(record.periodEnd) - now.getTime()) / 1000));
  return {
    'x-credits-charged': String(charged),
    'x-credits-remaining': String(record.creditsLeft),
    'x-credits-limit': String(record.creditsPerPeriod),
    'x-credits-reset': record.periodEnd,
    // IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers) for the monthly credit quota.
    'ratelimit-policy': `"credits";q=${record.creditsPerPeriod};w=${Math.ceil((Date.parse(record.periodEnd) - Date.parse(record.periodStart)) / 1000)}`,
    ratelimit: `"credits";r=${record.creditsLeft};t=${resetS}`,
  };
};

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

/** The key of an `Authorization: Bearer` header, or null when the request has none. */
const bearerOf = (headers: Readonly<Record<string, string | undefined>>): string | null => {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return m ? m[1]! : headers.authorization ? '' : null;
};

const invalidKey = (message: string) => new UnauthorizedError(message);

/**
 * Checks a key and takes the route's credits in one atomic debit.
 * @returns the receipt, or the error to answer (401 invalid/revoked, 402 QUOTA_EXCEEDED, 503 CREDITS_BUSY)
 */
const authorizeProCall = async (
  key: string,
  route: Pick<RouteDef, 'id' | 'priceUsd'>,
  requestId: string,
  credits: CreditLedger,
  now: Date,
  limits: { perSecond: number; accepts: () => unknown[] },
): Promise<{ ok: true; receipt: ProReceipt } | { ok: false; error: HttpError }> => {
  if (!parseKey(key).ok) return { ok: false, error: invalidKey('not a valid Pro key (check for a typo: the checksum does not match)') };
  const price = usdToCredits(route.priceUsd!);
  const hash = hashKey(key);
  const retryAfter = rateLimited(hash, limits.perSecond, now.getTime());
  if (retryAfter !== null) return { ok: false, error: new RateLimitedError(`more than ${limits.perSecond} calls per second with this key`, retryAfter) };
  // Each call its own usage entry: an MCP POST makes many calls under one request id.
  const debit = await credits.debit(hash, price, { callId: randomUUID(), requestId, route: route.id }, now);
  if (debit.ok) return { ok: true, receipt: { lane: 'pro', usage: debit.usage, record: debit.record } };
  switch (debit.reason) {
    case 'not_found':
      return { ok: false, error: invalidKey('unknown Pro key') };
    case 'revoked':
      return { ok: false, error: invalidKey('this Pro key was revoked (rotated keys are revoked); use the current key') };
    case 'expired':
      return { ok: false, error: invalidKey(`the Pro subscription of this key ended on ${debit.record?.paidUntil ?? 'an earlier date'}; renew it at /pro`) };
    case 'conflict':
      // The key's item stayed contended through every retry: no verdict on its credits, nothing taken.
      return {
        ok: false,
        error: new ServiceUnavailableError(
          'CREDITS_BUSY',
          'too many calls with this Pro key are writing its credits at once; nothing was charged, retry shortly',
        ),
      };
    case 'quota_exceeded':
      return {
        ok: false,
        error: new PaymentError('QUOTA_EXCEEDED', 'this Pro key has no credits left for this call; pay this call with x402 instead (accepts)', {
          credits_required: price,
          credits_remaining: debit.record?.creditsLeft ?? 0,
          resets_at: debit.record?.periodEnd ?? null,
          accepts: limits.accepts(),
        }),
      };
  }
};

export { authorizeProCall, bearerOf, budgetHeaders, BUDGET_HEADERS };
export type { ProReceipt, CreditLedger };
