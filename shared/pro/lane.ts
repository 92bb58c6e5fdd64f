/**
 * The Pro-key lane of the payment core: `Authorization: Bearer <key>` debits the route's price in
 * credits (1 credit = 0.01 USD of list price) before the handler runs, and a call that delivers
 * nothing gets them back. Every answer of the lane says what is left of the budget.
 */
import { PaymentError, UnauthorizedError, type HttpError } from '../errors/errors';
import { usdToCredits } from '../routes/pricing';
import type { RouteDef } from '../routes/table';
import type { DynamoCreditLedger, KeyRecord, UsageEntry } from './credit-ledger';
import { hashKey, parseKey } from './keys';

/** The credit table as the lane and the Pro routes use it. */
type CreditLedger = DynamoCreditLedger;

interface ProReceipt {
  lane: 'pro';
  usage: UsageEntry;
  record: KeyRecord;
}

/** Response headers of the lane, exposed to browsers. */
const BUDGET_HEADERS = ['x-credits-charged', 'x-credits-remaining', 'x-credits-limit', 'x-credits-reset'] as const;

const budgetHeaders = (record: KeyRecord, charged: number): Record<string, string> => ({
  'x-credits-charged': String(charged),
  'x-credits-remaining': String(record.creditsLeft),
  'x-credits-limit': String(record.creditsPerPeriod),
  'x-credits-reset': record.periodEnd,
});

/** The key of an `Authorization: Bearer` header, or null when the request has none. */
const bearerOf = (headers: Readonly<Record<string, string | undefined>>): string | null => {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return m ? m[1]! : headers.authorization ? '' : null;
};

const invalidKey = (message: string) => new UnauthorizedError(message);

/**
 * Checks a key and takes the route's credits in one atomic debit.
 * @returns the receipt, or the error to answer (401 invalid/revoked, 402 QUOTA_EXCEEDED)
 */
const authorizeProCall = async (
  key: string,
  route: Pick<RouteDef, 'id' | 'priceUsd'>,
  requestId: string,
  credits: CreditLedger,
  now: Date,
): Promise<{ ok: true; receipt: ProReceipt } | { ok: false; error: HttpError }> => {
  if (!parseKey(key).ok) return { ok: false, error: invalidKey('not a valid Pro key (check for a typo: the checksum does not match)') };
  const price = usdToCredits(route.priceUsd!);
  const debit = await credits.debit(hashKey(key), price, { requestId, route: route.id }, now);
  if (debit.ok) return { ok: true, receipt: { lane: 'pro', usage: debit.usage, record: debit.record } };
  switch (debit.reason) {
    case 'not_found':
      return { ok: false, error: invalidKey('unknown Pro key') };
    case 'revoked':
      return { ok: false, error: invalidKey('this Pro key was revoked (rotated keys are revoked); use the current key') };
    case 'expired':
      return {
        ok: false,
        error: new PaymentError('QUOTA_EXCEEDED', 'the Pro subscription of this key has ended', {
          reason: 'subscription_ended',
          paid_until: debit.record?.paidUntil,
        }),
      };
    case 'quota_exceeded':
      return {
        ok: false,
        error: new PaymentError('QUOTA_EXCEEDED', 'this Pro key has no credits left for this call', {
          credits_required: price,
          credits_remaining: debit.record?.creditsLeft ?? 0,
          resets_at: debit.record?.periodEnd ?? null,
        }),
      };
  }
};

export { authorizeProCall, bearerOf, budgetHeaders, BUDGET_HEADERS };
export type { ProReceipt, CreditLedger };
