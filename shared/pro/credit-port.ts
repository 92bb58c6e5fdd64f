/**
 * The credit ledger port: what the Pro lane needs of a store of Pro keys and their credits. The
 * DynamoDB implementation is in credit-ledger.ts, an in-memory one for fast unit tests in
 * memory-credit-ledger.ts; test/pro/credit-ledger-contract.test.ts holds both to one behaviour.
 * Everything here is pure.
 */
import { addMonthsToInstant as addMonths } from '../dates';
import { PLANS, type PlanId } from './plans';

type KeyStatus = 'active' | 'revoked';

interface KeyRecord {
  hash: string;
  /** Prefix and last four characters: all anyone sees of a key after it was issued. */
  hint: string;
  plan: PlanId;
  status: KeyStatus;
  createdAt: string;
  /** The current credit month. */
  periodStart: string;
  periodEnd: string;
  /** End of the paid subscription; credits renew monthly until then. */
  paidUntil: string;
  creditsPerPeriod: number;
  creditsLeft: number;
  label?: string;
  /** Stripe subscription that pays for the key, when bought online. */
  subscription?: string;
  rotatedTo?: string;
}

/** One paid call: its own entry, even when several calls share a request (an MCP POST with many tool calls). */
interface UsageEntry {
  hash: string;
  /** The call's own id: the entry's key, so no two calls share an entry. */
  callId: string;
  /** The HTTP request that made the call (several calls may share it). */
  requestId: string;
  route: string;
  credits: number;
  at: string;
  refundedAt?: string;
}

/** What a debit is for: the call (its own id), the request that made it, the route. */
interface DebitFor {
  callId: string;
  requestId: string;
  route: string;
}

type DebitResult =
  | { ok: true; record: KeyRecord; usage: UsageEntry }
  /**
   * quota_exceeded is a verdict on the key (its credits are below the price); conflict is not: the
   * key's item stayed contended by other calls through every retry, so nothing was decided (503).
   */
  | { ok: false; reason: 'not_found' | 'revoked' | 'expired' | 'quota_exceeded' | 'conflict'; record?: KeyRecord };

/** A debit without the key's record after it (what `take` answers). */
type TakeResult = { ok: true; usage: UsageEntry } | Extract<DebitResult, { ok: false }>;

/** The Pro lane's view of the credit table. */
interface CreditLedger {
  get(hash: string): Promise<KeyRecord | null>;
  /**
   * Takes `credits` from the key with the call's usage entry, never below zero, never on a revoked or
   * lapsed key; renews the credit month first when it is over and the subscription still paid.
   */
  debit(hash: string, credits: number, usage: DebitFor, now: Date): Promise<DebitResult>;
  /**
   * The same debit, without reading the key after it: for callers that show no budget (a watch
   * delivery), one store read fewer per call.
   */
  take(hash: string, credits: number, usage: DebitFor, now: Date): Promise<TakeResult>;
  /** Gives back the credits of a call that delivered nothing: at most once per usage entry. */
  refund(entry: UsageEntry, now: Date): Promise<boolean>;
}

/** A new key's record: the first credit month starts now. */
const newKeyRecord = (o: { hash: string; hint: string; plan: PlanId; now: Date; label?: string; subscription?: string }): KeyRecord => {
  const plan = PLANS[o.plan];
  const start = o.now.toISOString();
  return {
    hash: o.hash,
    hint: o.hint,
    plan: o.plan,
    status: 'active',
    createdAt: start,
    periodStart: start,
    periodEnd: addMonths(start, 1),
    paidUntil: addMonths(start, plan.months),
    creditsPerPeriod: plan.creditsPerMonth,
    creditsLeft: plan.creditsPerMonth,
    ...(o.label ? { label: o.label } : {}),
    ...(o.subscription ? { subscription: o.subscription } : {}),
  };
};

/** The credit month that contains `now`, counted on from a period that ended at `periodEnd` (credits do not carry over). */
const periodContaining = (periodEnd: string, now: Date): { start: string; end: string } => {
  let start = periodEnd;
  let end = addMonths(start, 1);
  while (end <= now.toISOString()) {
    start = end;
    end = addMonths(start, 1);
  }
  return { start, end };
};

/**
 * How a debit retries when its write meets another call's on the same key: exponential backoff with
 * full jitter (a random wait up to base x 2^attempt, capped), so that calls that collided do not
 * collide again in step. After `attempts` writes the answer is "conflict" (a retryable 503).
 */
interface RetryPolicy {
  attempts: number;
  baseMs: number;
  capMs: number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

const DEFAULT_RETRY: RetryPolicy = Object.freeze({
  // Worst case about 1.5 s of waiting in all, well inside a request's budget (API Gateway: 29 s).
  attempts: 8,
  baseMs: 10,
  capMs: 400,
  sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
  random: Math.random,
});

/** Pure: the wait before retry number `attempt` (0 = after the first write). */
const backoffMs = (attempt: number, p: Pick<RetryPolicy, 'baseMs' | 'capMs' | 'random'>): number =>
  Math.floor(p.random() * Math.min(p.capMs, p.baseMs * 2 ** attempt));

/** Pure: why a refused debit was refused, from the key as it is now; null: it would pass now (retry). */
const refusalOf = (record: KeyRecord | null, credits: number, at: string): Exclude<DebitResult, { ok: true }>['reason'] | 'renew' | null => {
  if (!record) return 'not_found';
  if (record.status !== 'active') return 'revoked';
  if (record.periodEnd > at) return record.creditsLeft >= credits ? null : 'quota_exceeded';
  return record.paidUntil <= at ? 'expired' : 'renew';
};

export { newKeyRecord, periodContaining, backoffMs, refusalOf, DEFAULT_RETRY };
export type { KeyRecord, KeyStatus, UsageEntry, DebitFor, DebitResult, TakeResult, CreditLedger, RetryPolicy };
