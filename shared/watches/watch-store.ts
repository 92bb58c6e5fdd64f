/**
 * Watches on the credit table (they belong to Pro keys, whose items live there), items:
 *
 * - the watch:        pk KEY#<key hash>, sk WATCH#<id> (state, counters, the signing secret)
 * - its count:        pk KEY#<key hash>, sk WATCHCOUNT (a conditional counter: the per-key limit holds under concurrent creates)
 * - the path index:   pk WATCHPATH#<path>, sk <id> (the fan-out finds a path's watches with one Query)
 * - the path list:    pk WATCHPATHS, sk <path> (every watched path, and the tag of its last fanned-out answer)
 * - a delivery:       pk KEY#<key hash>, sk WATCHDEL#<watch id>#<delivery id> (pending, delivered,
 *                     dead = the dead-letter record, or unpaid), the record that makes a delivery charged at most once;
 *                     while an attempt runs it holds the attempt's lease and the time of its debit, and sits in
 *                     the credit table's sparse index gsi1 (gsi1pk WATCHHOLD#<shard>, gsi1sk <lease end>#<delivery id>),
 *                     so a sweep finds attempts whose process stopped with credits held (deliver.ts)
 *
 * A watch, its count and its index are written and deleted in one transaction.
 */
import { GetCommand, paginateQuery, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { hashShard } from '../payment/sales';
import { CREDITS_WATCH_INDEX } from '../store/tables';
import { MAX_WATCHES_PER_KEY, type Watch, type WatchState } from './watch';

const keyPk = (hash: string) => `KEY#${hash}`;
const watchSk = (id: string) => `WATCH#${id}`;
const COUNT_SK = 'WATCHCOUNT';
const pathPk = (path: string) => `WATCHPATH#${path}`;
const PATHS_PK = 'WATCHPATHS';
const deliverySk = (watchId: string, deliveryId: string) => `WATCHDEL#${watchId}#${deliveryId}`;
/** Shards of the running-attempt index: a release's thousands of attempts spread over partitions. */
const HOLD_SHARDS = 4;
const holdPk = (deliveryId: string) => `WATCHHOLD#${hashShard(deliveryId, HOLD_SHARDS)}`;
const holdSk = (leaseUntil: string, deliveryId: string) => `${leaseUntil}#${deliveryId}`;

type DeliveryState = 'pending' | 'delivered' | 'dead' | 'unpaid';

/** A delivery's record: what happened to it, for GET /v1/watches/{id} and for charging it at most once. */
interface DeliveryRecord {
  deliveryId: string;
  watchId: string;
  etag: string;
  state: DeliveryState;
  /** Attempts started. */
  attempts: number;
  createdAt: string;
  updatedAt: string;
  /** The receiver's last HTTP status, or null (no answer: timeout, refused connection). */
  lastStatus: number | null;
  lastError: string | null;
  creditsCharged: number;
  /** While an attempt runs: when its lease ends (after that its process has certainly stopped). */
  leaseUntil: string | null;
  /** While an attempt runs: the instant of its debit (the usage entry's key) and the credits held. */
  chargeAt: string | null;
  heldCredits: number;
}

/** Which delivery: its key, watch and id. */
interface DeliveryIds {
  keyHash: string;
  watchId: string;
  deliveryId: string;
}

/**
 * A transaction cancelled only because another one held one of its items (DynamoDB: every create of
 * a watch on one path updates that path's entry): nothing was decided, so it is tried again.
 */
const isTransactionConflict = (err: unknown): boolean => {
  const reasons = (err as { name?: string; CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
  return (
    (err as { name?: string })?.name === 'TransactionCanceledException' &&
    reasons.some((r) => r.Code === 'TransactionConflict') &&
    !reasons.some((r) => r.Code === 'ConditionalCheckFailed')
  );
};
/** A write refused by its condition (a transaction: by one of its items' conditions, not by a conflict). */
const isConditionFailure = (err: unknown): boolean => {
  const name = (err as { name?: string })?.name;
  return name === 'ConditionalCheckFailedException' || (name === 'TransactionCanceledException' && !isTransactionConflict(err));
};

/** Tries of a conflicting transaction, and the longest random wait between them. */
const CONFLICT_TRIES = 6;
const CONFLICT_WAIT_MS = 100;

const toWatch = (i: Record<string, unknown>): Watch => ({
  id: i.id as string,
  keyHash: i.key_hash as string,
  path: i.path as string,
  routeId: i.route_id as string,
  url: i.url as string,
  state: i.state as WatchState,
  reason: (i.reason as string | null) ?? null,
  createdAt: i.created_at as string,
  deliveries: Number(i.deliveries ?? 0),
  failures: Number(i.failures ?? 0),
  deadInRow: Number(i.dead_in_row ?? 0),
  lastDeliveredAt: (i.last_delivered_at as string | null) ?? null,
  lastEtag: (i.last_etag as string | null) ?? null,
  creditsCharged: Number(i.credits_charged ?? 0),
});

const toDelivery = (i: Record<string, unknown>): DeliveryRecord => ({
  deliveryId: i.delivery_id as string,
  watchId: i.watch_id as string,
  etag: i.etag as string,
  state: i.state as DeliveryState,
  attempts: Number(i.attempts ?? 0),
  createdAt: i.created_at as string,
  updatedAt: i.updated_at as string,
  lastStatus: (i.last_status as number | null) ?? null,
  lastError: (i.last_error as string | null) ?? null,
  creditsCharged: Number(i.credits_charged ?? 0),
  leaseUntil: (i.lease_until as string | undefined) ?? null,
  chargeAt: (i.charge_at as string | undefined) ?? null,
  heldCredits: Number(i.held_credits ?? 0),
});

class WatchStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly maxPerKey = MAX_WATCHES_PER_KEY,
  ) {}

  /**
   * Creates a watch with its signing secret, within the key's limit.
   * @param baselineEtag the tag of the path's answer now: the fan-out delivers only answers after it
   * @returns false when the key already holds its limit of watches
   */
  async create(w: Watch, secret: string, baselineEtag: string | null): Promise<boolean> {
    try {
      await this.transact(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.table,
                Key: { pk: keyPk(w.keyHash), sk: COUNT_SK },
                UpdateExpression: 'SET watches = if_not_exists(watches, :zero) + :one',
                ConditionExpression: 'attribute_not_exists(watches) OR watches < :max',
                ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':max': this.maxPerKey },
              },
            },
            {
              Put: {
                TableName: this.table,
                Item: {
                  pk: keyPk(w.keyHash),
                  sk: watchSk(w.id),
                  id: w.id,
                  key_hash: w.keyHash,
                  path: w.path,
                  route_id: w.routeId,
                  url: w.url,
                  state: w.state,
                  reason: w.reason,
                  created_at: w.createdAt,
                  deliveries: 0,
                  failures: 0,
                  dead_in_row: 0,
                  credits_charged: 0,
                  last_delivered_at: null,
                  last_etag: baselineEtag,
                  secret,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            { Put: { TableName: this.table, Item: { pk: pathPk(w.path), sk: w.id, key_hash: w.keyHash } } },
            {
              Update: {
                TableName: this.table,
                Key: { pk: PATHS_PK, sk: w.path },
                UpdateExpression: 'SET route_id = :r, etag = if_not_exists(etag, :e)',
                ExpressionAttributeValues: { ':r': w.routeId, ':e': baselineEtag },
              },
            },
          ],
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  async get(keyHash: string, id: string): Promise<Watch | null> {
    const res = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: keyPk(keyHash), sk: watchSk(id) }, ConsistentRead: true }));
    return res.Item ? toWatch(res.Item) : null;
  }

  /** The watch with its signing secret (delivery only). */
  async getWithSecret(keyHash: string, id: string): Promise<{ watch: Watch; secret: string } | null> {
    const res = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: keyPk(keyHash), sk: watchSk(id) }, ConsistentRead: true }));
    return res.Item ? { watch: toWatch(res.Item), secret: res.Item.secret as string } : null;
  }

  async list(keyHash: string): Promise<Watch[]> {
    const out: Watch[] = [];
    const pages = paginateQuery(
      { client: this.doc },
      {
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :w)',
        ExpressionAttributeValues: { ':pk': keyPk(keyHash), ':w': 'WATCH#' },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) for (const i of page.Items ?? []) out.push(toWatch(i));
    return out;
  }

  /** Deletes a watch, its index entry and one from its key's count; false when there is no such watch. */
  async delete(keyHash: string, id: string): Promise<boolean> {
    const watch = await this.get(keyHash, id);
    if (!watch) return false;
    try {
      await this.transact(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName: this.table, Key: { pk: keyPk(keyHash), sk: watchSk(id) }, ConditionExpression: 'attribute_exists(pk)' } },
            { Delete: { TableName: this.table, Key: { pk: pathPk(watch.path), sk: id } } },
            {
              Update: {
                TableName: this.table,
                Key: { pk: keyPk(keyHash), sk: COUNT_SK },
                UpdateExpression: 'SET watches = watches - :one',
                ConditionExpression: 'watches > :zero',
                ExpressionAttributeValues: { ':one': 1, ':zero': 0 },
              },
            },
          ],
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  /** Sends a transaction, again after a random wait while another transaction held one of its items. */
  private async transact(command: TransactWriteCommand): Promise<void> {
    for (let tried = 1; ; tried++) {
      try {
        await this.doc.send(command);
        return;
      } catch (err) {
        if (!isTransactionConflict(err) || tried >= CONFLICT_TRIES) throw err;
        await new Promise((r) => setTimeout(r, Math.random() * CONFLICT_WAIT_MS));
      }
    }
  }

  /** Every watched path with the tag of its last fanned-out answer. */
  async paths(): Promise<Array<{ path: string; routeId: string; etag: string | null }>> {
    const out: Array<{ path: string; routeId: string; etag: string | null }> = [];
    const pages = paginateQuery(
      { client: this.doc },
      { TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': PATHS_PK }, ConsistentRead: true },
    );
    for await (const page of pages)
      for (const i of page.Items ?? []) out.push({ path: i.sk as string, routeId: i.route_id as string, etag: (i.etag as string | null) ?? null });
    return out;
  }

  /**
   * Moves a path's tag from `from` to `to`; true for the one fan-out that moved it (two fan-outs of
   * one release enqueue its deliveries once).
   */
  async advancePath(path: string, from: string | null, to: string): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: PATHS_PK, sk: path },
          UpdateExpression: 'SET etag = :to',
          ConditionExpression: from === null ? 'attribute_exists(pk) AND (attribute_not_exists(etag) OR etag = :null)' : 'etag = :from',
          ExpressionAttributeValues: from === null ? { ':to': to, ':null': null } : { ':to': to, ':from': from },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  /** The watches of a path: id and owner. */
  async watchesOfPath(path: string): Promise<Array<{ id: string; keyHash: string }>> {
    const out: Array<{ id: string; keyHash: string }> = [];
    const pages = paginateQuery(
      { client: this.doc },
      { TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pathPk(path) } },
    );
    for await (const page of pages) for (const i of page.Items ?? []) out.push({ id: i.sk as string, keyHash: i.key_hash as string });
    return out;
  }

  /**
   * Starts attempt `attempt` of a delivery: creates its record at the first, and succeeds only when
   * the record is pending with exactly `attempt` attempts started and none running, so one attempt
   * runs once however often its message arrives, and a delivered, dead or unpaid delivery is never
   * attempted again. The running attempt holds a lease until `leaseUntil` and records the instant of
   * its debit (`now`) and the credits it holds, so whoever finds it stopped can give them back.
   * @returns false when the attempt may not start
   */
  async startAttempt(o: DeliveryIds & { etag: string; attempt: number; credits: number; leaseUntil: string; now: Date }): Promise<boolean> {
    const at = o.now.toISOString();
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keyPk(o.keyHash), sk: deliverySk(o.watchId, o.deliveryId) },
          UpdateExpression:
            'SET attempts = :next, updated_at = :at, #state = :pending, delivery_id = :d, watch_id = :w, etag = :e, created_at = if_not_exists(created_at, :at), credits_charged = if_not_exists(credits_charged, :zero), lease_until = :lease, charge_at = :at, held_credits = :c, gsi1pk = :hpk, gsi1sk = :hsk',
          ConditionExpression: o.attempt === 0 ? 'attribute_not_exists(pk)' : '#state = :pending AND attempts = :n AND attribute_not_exists(lease_until)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':next': o.attempt + 1,
            ':at': at,
            ':pending': 'pending',
            ':d': o.deliveryId,
            ':w': o.watchId,
            ':e': o.etag,
            ':zero': 0,
            ':lease': o.leaseUntil,
            ':c': o.credits,
            ':hpk': holdPk(o.deliveryId),
            ':hsk': holdSk(o.leaseUntil, o.deliveryId),
            ...(o.attempt === 0 ? {} : { ':n': o.attempt }),
          },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  /**
   * Takes over attempt `attempt`, still running under lease `seen` (which the caller saw end), with a
   * new lease: one taker wins, and the stopped attempt's own end can no longer land.
   * @returns false when the attempt ended or another taker won
   */
  async takeOver(o: DeliveryIds & { attempt: number; seen: string; leaseUntil: string; now: Date }): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keyPk(o.keyHash), sk: deliverySk(o.watchId, o.deliveryId) },
          UpdateExpression: 'SET lease_until = :lease, gsi1sk = :hsk, updated_at = :at',
          ConditionExpression: '#state = :pending AND attempts = :n AND lease_until = :seen',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':lease': o.leaseUntil,
            ':hsk': holdSk(o.leaseUntil, o.deliveryId),
            ':at': o.now.toISOString(),
            ':pending': 'pending',
            ':n': o.attempt + 1,
            ':seen': o.seen,
          },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  /** Ends the attempt running under `lease`: its outcome on the delivery record, out of the running index. */
  async endAttempt(
    o: DeliveryIds & { lease: string; now: Date },
    outcome: { state: DeliveryState; status: number | null; error: string | null; credits: number },
  ): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keyPk(o.keyHash), sk: deliverySk(o.watchId, o.deliveryId) },
          UpdateExpression:
            'SET #state = :s, last_status = :st, last_error = :e, updated_at = :at, credits_charged = :c REMOVE lease_until, charge_at, held_credits, gsi1pk, gsi1sk',
          ConditionExpression: '#state = :pending AND lease_until = :lease',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':s': outcome.state,
            ':st': outcome.status,
            ':e': outcome.error,
            ':at': o.now.toISOString(),
            ':c': outcome.credits,
            ':pending': 'pending',
            ':lease': o.lease,
          },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  /** One delivery's record (consistent read). */
  async delivery(o: DeliveryIds): Promise<DeliveryRecord | null> {
    const res = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: { pk: keyPk(o.keyHash), sk: deliverySk(o.watchId, o.deliveryId) }, ConsistentRead: true }),
    );
    return res.Item ? toDelivery(res.Item) : null;
  }

  /**
   * Deliveries whose running attempt's lease ended before `before` (the index is eventually
   * consistent: callers read the record itself before acting).
   */
  async stoppedAttempts(before: Date, limitPerShard = 100): Promise<DeliveryIds[]> {
    const shards = await Promise.all(
      Array.from({ length: HOLD_SHARDS }, (_, i) =>
        this.doc.send(
          new QueryCommand({
            TableName: this.table,
            IndexName: CREDITS_WATCH_INDEX,
            KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :before',
            ExpressionAttributeValues: { ':pk': `WATCHHOLD#${i}`, ':before': before.toISOString() },
            Limit: limitPerShard,
          }),
        ),
      ),
    );
    return shards.flatMap((r) =>
      (r.Items ?? []).map((i) => {
        const [, watchId, ...rest] = String(i.sk).split('#');
        return { keyHash: String(i.pk).slice('KEY#'.length), watchId: watchId!, deliveryId: rest.join('#') };
      }),
    );
  }

  /** The newest deliveries of a watch (and its dead letters among them). */
  async deliveries(keyHash: string, watchId: string, limit = 20): Promise<DeliveryRecord[]> {
    const out: DeliveryRecord[] = [];
    const pages = paginateQuery(
      { client: this.doc, pageSize: 100 },
      {
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :d)',
        ExpressionAttributeValues: { ':pk': keyPk(keyHash), ':d': `WATCHDEL#${watchId}#` },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) for (const i of page.Items ?? []) out.push(toDelivery(i));
    return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, limit);
  }

  /** A delivered answer: the watch's counters, its tag, active again. */
  async recordDelivered(keyHash: string, id: string, etag: string, credits: number, now: Date): Promise<void> {
    await this.updateWatch(
      keyHash,
      id,
      'SET last_etag = :e, last_delivered_at = :at, dead_in_row = :zero, #state = :active, reason = :null ADD deliveries :one, credits_charged :c',
      { ':e': etag, ':at': now.toISOString(), ':zero': 0, ':active': 'active', ':null': null, ':one': 1, ':c': credits },
    );
  }

  /** A failed attempt; with `dead`, the delivery was dead-lettered. @returns dead-lettered deliveries in a row */
  async recordFailure(keyHash: string, id: string, dead: boolean): Promise<number> {
    const res = await this.updateWatch(keyHash, id, dead ? 'ADD failures :one, dead_in_row :one' : 'ADD failures :one', { ':one': 1 });
    return Number(res?.dead_in_row ?? 0);
  }

  /** Pauses or disables a watch with the reason (a disabled watch stays disabled). */
  async setState(keyHash: string, id: string, state: Exclude<WatchState, 'active'>, reason: string): Promise<void> {
    await this.updateWatch(keyHash, id, 'SET #state = :s, reason = :r', { ':s': state, ':r': reason, ':disabled': 'disabled' }, '#state <> :disabled');
  }

  private async updateWatch(
    keyHash: string,
    id: string,
    update: string,
    values: Record<string, unknown>,
    extraCondition?: string,
  ): Promise<Record<string, unknown> | null> {
    try {
      const res = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: keyPk(keyHash), sk: watchSk(id) },
          UpdateExpression: update,
          ConditionExpression: `attribute_exists(pk)${extraCondition ? ` AND ${extraCondition}` : ''}`,
          ...(update.includes('#state') || extraCondition?.includes('#state') ? { ExpressionAttributeNames: { '#state': 'state' } } : {}),
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return res.Attributes ?? null;
    } catch (err) {
      // The watch was deleted meanwhile (or is disabled): nothing to record.
      if (isConditionFailure(err)) return null;
      throw err;
    }
  }
}

export { WatchStore };
export type { DeliveryIds, DeliveryRecord, DeliveryState };
