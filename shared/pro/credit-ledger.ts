/**
 * Pro keys and their credits on the credit table (the DynamoDB side of the port in credit-port.ts).
 * A key is one item (pk KEY#<sha256>, sk PLAN); each paid call is one transaction: a conditional
 * debit that can never overdraw and the call's usage entry (sk USAGE#<yyyy-mm>#<at>#<call id>),
 * which finance reads and a refund flips exactly once.
 *
 * One key's PLAN item takes every call of that key. Two transactions on it at once conflict
 * (TransactionCanceledException, TransactionConflict) and a plain write meeting a transaction gets
 * TransactionConflictException: both are retried with backoff and jitter, and a conflict that
 * outlasts the retries is answered as such (503), never as "no credits left".
 */
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, paginateQuery, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  backoffMs,
  DEFAULT_RETRY,
  newKeyRecord,
  periodContaining,
  refusalOf,
  type CreditLedger,
  type DebitFor,
  type DebitResult,
  type KeyRecord,
  type KeyStatus,
  type RetryPolicy,
  type TakeResult,
  type UsageEntry,
} from './credit-port';
import type { PlanId } from './plans';

const keyPk = (hash: string) => `KEY#${hash}`;
const PLAN_SK = 'PLAN';
/** One partition listing every key (sk = created_at#hash): operators and finance list keys with a Query, never a scan. */
const KEYS_PK = 'PROKEYS';
const usageSk = (at: string, callId: string) => `USAGE#${at.slice(0, 7)}#${at}#${callId}`;

const isConditionFailure = (err: unknown): boolean => (err as { name?: string })?.name === 'ConditionalCheckFailedException';
/** A plain write that met a transaction in flight on the same item. */
const isWriteConflict = (err: unknown): boolean => (err as { name?: string })?.name === 'TransactionConflictException';
/** Why the debit transaction was cancelled: the key's condition failed, or another transaction held the item (retry). */
const cancellationOf = (err: unknown): 'refused' | 'conflict' | null => {
  if (isWriteConflict(err)) return 'conflict';
  if ((err as { name?: string })?.name !== 'TransactionCanceledException') return null;
  const codes = ((err as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).map((r) => r.Code);
  if (codes[0] === 'ConditionalCheckFailed') return 'refused';
  return codes.includes('TransactionConflict') ? 'conflict' : null;
};

const toRecord = (item: Record<string, unknown>): KeyRecord => ({
  hash: String(item.hash),
  hint: String(item.hint),
  plan: item.plan as PlanId,
  status: item.status as KeyStatus,
  createdAt: String(item.created_at),
  periodStart: String(item.period_start),
  periodEnd: String(item.period_end),
  paidUntil: String(item.paid_until),
  creditsPerPeriod: Number(item.credits_per_period),
  creditsLeft: Number(item.credits_left),
  ...(item.label !== undefined ? { label: String(item.label) } : {}),
  ...(item.subscription !== undefined ? { subscription: String(item.subscription) } : {}),
  ...(item.rotated_to !== undefined ? { rotatedTo: String(item.rotated_to) } : {}),
});

const toUsage = (item: Record<string, unknown>): UsageEntry => ({
  hash: String(item.hash),
  // Entries written before calls had their own id were keyed by the request id.
  callId: String(item.call_id ?? item.request_id),
  requestId: String(item.request_id),
  route: String(item.route),
  credits: Number(item.credits),
  at: String(item.at),
  ...(item.refunded_at !== undefined ? { refundedAt: String(item.refunded_at) } : {}),
});

/**
 * What the payment lane does with Pro keys on DynamoDB: read one, debit a call with its usage entry,
 * refund a call that delivered nothing. The data functions carry this class and no other credit-table code.
 */
class DynamoCreditLane implements CreditLedger {
  protected readonly retry: RetryPolicy;

  /** @param retry how a contended write is retried (tests make the waits instant and the jitter fixed) */
  constructor(
    protected readonly doc: DynamoDBDocumentClient,
    protected readonly table: string,
    retry: Partial<RetryPolicy> = {},
  ) {
    this.retry = { ...DEFAULT_RETRY, ...retry };
  }

  async get(hash: string): Promise<KeyRecord | null> {
    const res = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: keyPk(hash), sk: PLAN_SK }, ConsistentRead: true }));
    return res.Item ? toRecord(res.Item) : null;
  }

  /** Waits before retry number `attempt`; false when the attempts are spent. */
  private async backOff(attempt: number): Promise<boolean> {
    if (attempt + 1 >= this.retry.attempts) return false;
    await this.retry.sleep(backoffMs(attempt, this.retry));
    return true;
  }

  protected async update(hash: string, update: string, values: Record<string, unknown>, condition = 'attribute_exists(pk)'): Promise<KeyRecord | null> {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: keyPk(hash), sk: PLAN_SK },
            UpdateExpression: update,
            ConditionExpression: condition,
            ...(update.includes('#status') ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        return toRecord(res.Attributes!);
      } catch (err) {
        if (isConditionFailure(err)) return null;
        // A debit's transaction held the item: this write did not happen, so it may be tried again.
        if (isWriteConflict(err) && (await this.backOff(attempt))) continue;
        throw err;
      }
    }
  }

  async debit(hash: string, credits: number, usage: DebitFor, now: Date): Promise<DebitResult> {
    const taken = await this.take(hash, credits, usage, now);
    if (!taken.ok) return taken;
    // A transaction returns no item: read what is left for the budget headers.
    const record = await this.get(hash);
    return { ok: true, record: record!, usage: taken.usage };
  }

  async take(hash: string, credits: number, usage: DebitFor, now: Date): Promise<TakeResult> {
    const at = now.toISOString();
    const entry: UsageEntry = { hash, callId: usage.callId, requestId: usage.requestId, route: usage.route, credits, at };
    for (let attempt = 0; ; attempt++) {
      try {
        // The debit and its usage entry in one transaction: finance's records always match the credits.
        await this.doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: this.table,
                  Key: { pk: keyPk(hash), sk: PLAN_SK },
                  UpdateExpression: 'SET credits_left = credits_left - :c',
                  ConditionExpression: '#status = :active AND period_end > :now AND credits_left >= :c',
                  ExpressionAttributeNames: { '#status': 'status' },
                  ExpressionAttributeValues: { ':c': credits, ':active': 'active', ':now': at },
                },
              },
              {
                Put: {
                  TableName: this.table,
                  Item: {
                    pk: keyPk(hash),
                    sk: usageSk(at, usage.callId),
                    hash,
                    call_id: usage.callId,
                    request_id: usage.requestId,
                    route: usage.route,
                    credits,
                    at,
                  },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
            ],
          }),
        );
        return { ok: true, usage: entry };
      } catch (err) {
        const why = cancellationOf(err);
        if (why === 'conflict') {
          if (await this.backOff(attempt)) continue;
          return { ok: false, reason: 'conflict' };
        }
        if (why !== 'refused') throw err;
      }
      const record = await this.get(hash);
      const refusal = refusalOf(record, credits, at);
      if (refusal === 'renew') await this.renew(record!, now);
      else if (refusal !== null) return { ok: false, reason: refusal, ...(record ? { record } : {}) };
      // Renewed, or another call renewed or refunded between our write and this read: write again.
      if (!(await this.backOff(attempt))) return { ok: false, reason: 'conflict', ...(record ? { record } : {}) };
    }
  }

  /** Starts the credit month that contains `now` (credits do not carry over); a concurrent renewal wins once. */
  private async renew(record: KeyRecord, now: Date): Promise<void> {
    const { start, end } = periodContaining(record.periodEnd, now);
    await this.update(
      record.hash,
      'SET period_start = :start, period_end = :end, credits_left = credits_per_period',
      { ':start': start, ':end': end, ':old': record.periodEnd },
      'period_end = :old',
    );
  }

  async refund(entry: UsageEntry, now: Date): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        // The entry's refund mark and the credits back in one transaction: never one without the other.
        await this.doc.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: this.table,
                  Key: { pk: keyPk(entry.hash), sk: usageSk(entry.at, entry.callId) },
                  UpdateExpression: 'SET refunded_at = :now',
                  ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(refunded_at)',
                  ExpressionAttributeValues: { ':now': now.toISOString() },
                },
              },
              {
                Update: {
                  TableName: this.table,
                  Key: { pk: keyPk(entry.hash), sk: PLAN_SK },
                  UpdateExpression: 'ADD credits_left :c',
                  ConditionExpression: 'attribute_exists(pk)',
                  ExpressionAttributeValues: { ':c': entry.credits },
                },
              },
            ],
          }),
        );
        return true;
      } catch (err) {
        const why = cancellationOf(err);
        if (why === 'refused') return false; // refunded before (or no such entry)
        if (why === 'conflict' && (await this.backOff(attempt))) continue;
        throw err;
      }
    }
  }
}

/**
 * The whole credit table: key administration (the keys CLI, usage reports) and the card checkout's
 * bookkeeping, on top of the lane's operations. The Pro function and the CLIs build this one.
 */
class DynamoCreditLedger extends DynamoCreditLane {
  async put(r: KeyRecord): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          pk: keyPk(r.hash),
          sk: PLAN_SK,
          hash: r.hash,
          hint: r.hint,
          plan: r.plan,
          status: r.status,
          created_at: r.createdAt,
          period_start: r.periodStart,
          period_end: r.periodEnd,
          paid_until: r.paidUntil,
          credits_per_period: r.creditsPerPeriod,
          credits_left: r.creditsLeft,
          ...(r.label ? { label: r.label } : {}),
          ...(r.subscription ? { subscription: r.subscription } : {}),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { pk: KEYS_PK, sk: `${r.createdAt}#${r.hash}`, hash: r.hash } }));
  }

  /** Every key, oldest first: a Query of the key list, then each key's record. */
  async list(): Promise<KeyRecord[]> {
    const hashes: string[] = [];
    const pages = paginateQuery(
      { client: this.doc },
      { TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': KEYS_PK } },
    );
    for await (const page of pages) hashes.push(...(page.Items ?? []).map((i) => String(i.hash)));
    const records = await Promise.all(hashes.map((h) => this.get(h)));
    return records.filter((r): r is KeyRecord => r !== null);
  }

  revoke = (hash: string) => this.update(hash, 'SET #status = :revoked', { ':revoked': 'revoked' });
  topUp = (hash: string, credits: number) => this.update(hash, 'ADD credits_left :n', { ':n': credits });
  /** A paid renewal (Stripe invoice.paid): the subscription runs to `paidUntil`. */
  extend = (hash: string, paidUntil: string) => this.update(hash, 'SET paid_until = :until', { ':until': paidUntil });
  markRotated = (hash: string, to: string) => this.update(hash, 'SET #status = :revoked, rotated_to = :to', { ':revoked': 'revoked', ':to': to });

  // Card checkout bookkeeping (same table): Stripe events seen, paid sessions, subscriptions -> keys.

  /** Whether a Stripe event was handled already (recordEvent is written once its effects are). */
  async eventSeen(eventId: string): Promise<boolean> {
    const res = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: `STRIPE_EVENT#${eventId}`, sk: 'EVENT' }, ConsistentRead: true }));
    return res.Item !== undefined;
  }

  /** Records a handled Stripe event (kept 90 days); a concurrent delivery that recorded it first changes nothing. */
  async recordEvent(eventId: string, type: string, now: Date): Promise<void> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { pk: `STRIPE_EVENT#${eventId}`, sk: 'EVENT', type, at: now.toISOString(), expires_at: Math.floor(now.getTime() / 1000) + 90 * 86_400 },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  }

  /** A paid checkout whose key has not been shown yet. */
  async recordPaidCheckout(sessionId: string, o: { plan: PlanId; subscription: string | null; paidUntil: string | null }, now: Date): Promise<void> {
    await this.doc
      .send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: `CHECKOUT#${sessionId}`,
            sk: 'CHECKOUT',
            plan: o.plan,
            subscription: o.subscription,
            paid_until: o.paidUntil,
            key_shown: false,
            paid_at: now.toISOString(),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      )
      .catch((err) => {
        if (!isConditionFailure(err)) throw err;
      });
  }

  /**
   * Takes the right to show a checkout's key: succeeds once per paid session.
   * @returns the checkout, or why not ('unpaid' until the webhook arrives, 'shown' afterwards)
   */
  async takeCheckoutKey(
    sessionId: string,
  ): Promise<{ ok: true; plan: PlanId; subscription: string | null; paidUntil: string | null } | { ok: false; reason: 'unpaid' | 'shown' }> {
    try {
      const res = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: `CHECKOUT#${sessionId}`, sk: 'CHECKOUT' },
          UpdateExpression: 'SET key_shown = :t',
          ConditionExpression: 'key_shown = :f',
          ExpressionAttributeValues: { ':t': true, ':f': false },
          ReturnValues: 'ALL_NEW',
        }),
      );
      const a = res.Attributes!;
      return { ok: true, plan: a.plan as PlanId, subscription: (a.subscription as string | null) ?? null, paidUntil: (a.paid_until as string | null) ?? null };
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      const seen = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: `CHECKOUT#${sessionId}`, sk: 'CHECKOUT' }, ConsistentRead: true }));
      return { ok: false, reason: seen.Item ? 'shown' : 'unpaid' };
    }
  }

  async linkSubscription(subscription: string, hash: string): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { pk: `SUB#${subscription}`, sk: 'SUB', hash } }));
  }

  async keyOfSubscription(subscription: string): Promise<string | null> {
    const res = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: `SUB#${subscription}`, sk: 'SUB' } }));
    return res.Item ? String(res.Item.hash) : null;
  }

  /** The usage entries of one key in a month (YYYY-MM), oldest first, across Query pages (1 MB each). */
  async usage(hash: string, month: string): Promise<UsageEntry[]> {
    const out: UsageEntry[] = [];
    const pages = paginateQuery(
      { client: this.doc },
      {
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keyPk(hash), ':prefix': `USAGE#${month}#` },
      },
    );
    for await (const page of pages) out.push(...(page.Items ?? []).map(toUsage));
    return out;
  }
}

export { DynamoCreditLane, DynamoCreditLedger, newKeyRecord };
export type { KeyRecord, UsageEntry, DebitResult, KeyStatus };
