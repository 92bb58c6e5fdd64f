/**
 * Pro keys and their credits on the credit table. A key is one item (pk KEY#<sha256>, sk PLAN);
 * each paid call is one transaction: a conditional debit that can never overdraw and its usage
 * entry (sk USAGE#<yyyy-mm>#<at>#<request id>), which finance reads and a refund flips exactly once.
 */
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, paginateQuery, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
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

interface UsageEntry {
  hash: string;
  requestId: string;
  route: string;
  credits: number;
  at: string;
  refundedAt?: string;
}

type DebitResult =
  | { ok: true; record: KeyRecord; usage: UsageEntry }
  | { ok: false; reason: 'not_found' | 'revoked' | 'expired' | 'quota_exceeded'; record?: KeyRecord };

const keyPk = (hash: string) => `KEY#${hash}`;
const PLAN_SK = 'PLAN';
/** One partition listing every key (sk = created_at#hash): operators and finance list keys with a Query, never a scan. */
const KEYS_PK = 'PROKEYS';
const usageSk = (at: string, requestId: string) => `USAGE#${at.slice(0, 7)}#${at}#${requestId}`;

const isConditionFailure = (err: unknown): boolean => (err as { name?: string })?.name === 'ConditionalCheckFailedException';
/** Why the debit transaction was cancelled: the key's condition failed, or another transaction held the item (retry). */
const cancellationOf = (err: unknown): 'refused' | 'conflict' | null => {
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
  requestId: String(item.request_id),
  route: String(item.route),
  credits: Number(item.credits),
  at: String(item.at),
  ...(item.refunded_at !== undefined ? { refundedAt: String(item.refunded_at) } : {}),
});

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

/**
 * What the payment lane does with Pro keys: read one, debit a call with its usage entry, refund a call
 * that delivered nothing. The data functions carry this class and no other credit-table code.
 */
class CreditLedger {
  constructor(
    protected readonly doc: DynamoDBDocumentClient,
    protected readonly table: string,
  ) {}

  async get(hash: string): Promise<KeyRecord | null> {
    const res = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: keyPk(hash), sk: PLAN_SK }, ConsistentRead: true }));
    return res.Item ? toRecord(res.Item) : null;
  }

  protected async update(hash: string, update: string, values: Record<string, unknown>, condition = 'attribute_exists(pk)'): Promise<KeyRecord | null> {
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
      throw err;
    }
  }

  /**
   * Takes `credits` from the key in one conditional write (never below zero, never on a revoked or
   * lapsed key), renewing the credit month first when it is over and the subscription still paid.
   */
  async debit(hash: string, credits: number, usage: { requestId: string; route: string }, now: Date): Promise<DebitResult> {
    const at = now.toISOString();
    for (let attempt = 0; attempt < 5; attempt++) {
      const entry: UsageEntry = { hash, requestId: usage.requestId, route: usage.route, credits, at };
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
                  Item: { pk: keyPk(hash), sk: usageSk(at, usage.requestId), hash, request_id: usage.requestId, route: usage.route, credits, at },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
            ],
          }),
        );
        // A transaction returns no item: read what is left for the budget headers.
        const record = await this.get(hash);
        return { ok: true, record: record!, usage: entry };
      } catch (err) {
        const why = cancellationOf(err);
        if (why === 'conflict') continue;
        if (why !== 'refused') throw err;
      }
      const record = await this.get(hash);
      if (!record) return { ok: false, reason: 'not_found' };
      if (record.status !== 'active') return { ok: false, reason: 'revoked', record };
      if (record.periodEnd > at) {
        // Another call renewed the month between our write and this read: try again with the new month.
        if (record.creditsLeft >= credits) continue;
        return { ok: false, reason: 'quota_exceeded', record };
      }
      if (record.paidUntil <= at) return { ok: false, reason: 'expired', record };
      await this.renew(record, now);
    }
    return { ok: false, reason: 'quota_exceeded' };
  }

  /** Starts the credit month that contains `now` (credits do not carry over); a concurrent renewal wins once. */
  private async renew(record: KeyRecord, now: Date): Promise<void> {
    let start = record.periodEnd;
    let end = addMonths(start, 1);
    while (end <= now.toISOString()) {
      start = end;
      end = addMonths(start, 1);
    }
    await this.update(
      record.hash,
      'SET period_start = :start, period_end = :end, credits_left = credits_per_period',
      { ':start': start, ':end': end, ':old': record.periodEnd },
      'period_end = :old',
    );
  }

  /** Gives back the credits of a call that delivered nothing: at most once per usage entry. */
  async refund(entry: UsageEntry, now: Date): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keyPk(entry.hash), sk: usageSk(entry.at, entry.requestId) },
          UpdateExpression: 'SET refunded_at = :now',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(refunded_at)',
          ExpressionAttributeValues: { ':now': now.toISOString() },
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
    await this.update(entry.hash, 'ADD credits_left :c', { ':c': entry.credits });
    return true;
  }
}

/**
 * The whole credit table: key administration (the keys CLI, usage reports) and the card checkout's
 * bookkeeping, on top of the lane's operations. The Pro function and the CLIs build this one.
 */
class DynamoCreditLedger extends CreditLedger {
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

  /** True the first time an event id is seen: a replayed or duplicated Stripe event changes nothing. */
  async firstDelivery(eventId: string, type: string, now: Date): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { pk: `STRIPE_EVENT#${eventId}`, sk: 'EVENT', type, at: now.toISOString(), expires_at: Math.floor(now.getTime() / 1000) + 90 * 86_400 },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
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

export { CreditLedger, DynamoCreditLedger, newKeyRecord };
export type { KeyRecord, UsageEntry, DebitResult, KeyStatus };
