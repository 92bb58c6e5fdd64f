/**
 * The batch channel store on the credit table (shared/store/tables.ts CREDITS_TABLE):
 *
 *   pk X402CHANNEL#<shard>     sk <channel id>                         one item per channel: {version, channel}
 *   pk X402BATCHOPEN#<shard>   sk <channel id>#<cumulative, 39 digits>  a sale whose claim transaction is not known yet
 *   pk X402SALE#<yyyy-mm>#<s>  sk <settled_at>#<sale id>               the sale itself (sale-record.ts)
 *   pk X402BATCHJOB            sk CURSOR                               the block the settlement job reads claims from
 *   pk X402BATCHJOB            sk PASS                                 where an interrupted settlement pass stopped
 *   pk X402BATCHANSWER#<shard> sk <channel id>                         the answer the channel's latest voucher paid for
 *
 * (shard = the channel id's first byte % 16, so listing all channels is 16 Queries and no Scan.)
 *
 * Every change of a channel is a compare-and-swap on its `version`: read, compute, then write only
 * if the version is still the one read; a refused write is retried from a fresh read. Many Lambda
 * instances may hold vouchers of one channel at once: each acceptance moves the version, so two of
 * them can never both spend the same balance. A change that books sales writes the channel, the
 * sales and their open entries in one TransactWriteItems, so revenue and charged amount move
 * together or not at all.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, paginateQuery, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ChannelUpdateResult } from '@x402/evm/batch-settlement/server';
import {
  type BatchChannelStore,
  type ChannelLaneStore,
  type BatchSale,
  type ChannelChange,
  type DeliveredAnswer,
  normalizeChannelId,
  type OpenSale,
  openSaleOf,
  type StoredChannel,
} from './channel-store';
import { saleItem, saleKey } from '../sales';

const SHARDS = 16;
const shardOf = (channelId: string): number => Number.parseInt(channelId.slice(2, 4), 16) % SHARDS;
const channelKey = (id: string) => ({ pk: `X402CHANNEL#${shardOf(id)}`, sk: id });
/** uint128 has 39 decimal digits: padded, cumulative amounts sort as numbers. */
const padCumulative = (n: bigint): string => n.toString().padStart(39, '0');
const openKey = (o: Pick<OpenSale, 'channelId' | 'cumulative'>) => ({
  pk: `X402BATCHOPEN#${shardOf(o.channelId)}`,
  sk: `${o.channelId}#${padCumulative(o.cumulative)}`,
});
const CURSOR_KEY = { pk: 'X402BATCHJOB', sk: 'CURSOR' };
const PASS_KEY = { pk: 'X402BATCHJOB', sk: 'PASS' };
const answerKey = (id: string) => ({ pk: `X402BATCHANSWER#${shardOf(id)}`, sk: id });

/**
 * How long one change may keep retrying before it gives up (a paid request is waiting; every
 * conflict means another writer made progress, so only a crowd of writers on one channel waits).
 */
const CHANGE_BUDGET_MS = 10_000;
/** TransactWriteItems takes at most 100 operations; a closed sale is two (stamp + delete). */
const CLOSE_BATCH = 50;

type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

const errorName = (err: unknown): string | undefined => (err as { name?: string })?.name;

/** Which operations of a refused transaction failed their condition (DynamoDB lists one reason per operation). */
const cancellationCodes = (err: unknown): string[] =>
  ((err as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).map((r) => r.Code ?? 'None');

/** A refusal that means "someone else wrote first": re-read and try again. */
const isConflict = (err: unknown, channelOpIndex = 0): boolean => {
  if (errorName(err) === 'ConditionalCheckFailedException') return true;
  if (errorName(err) !== 'TransactionCanceledException') return false;
  const codes = cancellationCodes(err);
  return codes[channelOpIndex] === 'ConditionalCheckFailed' || codes.includes('TransactionConflict');
};

/** Exponential backoff with full jitter: crowded writers spread out instead of colliding again. */
const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(200, 4 * 2 ** Math.min(attempt, 6))));

class StoreConflictError extends Error {
  constructor(channelId: string) {
    super(`channel ${channelId}: too many concurrent writers, gave up after ${CHANGE_BUDGET_MS} ms`);
    this.name = 'StoreConflictError';
  }
}

/**
 * What the paid functions use of the channel store: read a channel and change it (the lane). The
 * settlement job's listing, open sales and cursor are DynamoChannelStore's, so paid bundles carry
 * none of them.
 */
class DynamoChannelLane implements ChannelLaneStore {
  /** The version each record this store handed out was read or written at (for seeded changes). */
  private readonly versions = new WeakMap<StoredChannel, number>();

  constructor(
    protected readonly doc: DynamoDBDocumentClient,
    protected readonly table: string,
  ) {}

  async get(channelId: string): Promise<StoredChannel | undefined> {
    return (await this.read(normalizeChannelId(channelId))).channel;
  }

  async change(channelId: string, update: (current: StoredChannel | undefined) => ChannelChange, seed?: StoredChannel): Promise<ChannelUpdateResult> {
    const id = normalizeChannelId(channelId);
    const deadline = Date.now() + CHANGE_BUDGET_MS;
    const seeded = seed && this.versions.has(seed) && seed.channelId.toLowerCase() === id ? { channel: seed, version: this.versions.get(seed) } : undefined;
    for (let attempt = 1; Date.now() < deadline; attempt++) {
      const { channel: current, version } = attempt === 1 && seeded ? seeded : await this.read(id);
      const { channel: next, sales = [], answer } = update(current);
      if (next === current) return { channel: current, status: 'unchanged' };
      if (!next && !current) return { channel: undefined, status: 'unchanged' };
      try {
        if (!next) {
          await this.doc.send(new DeleteCommand({ TableName: this.table, Key: channelKey(id), ...versionIs(version) }));
          return { channel: undefined, status: 'deleted' };
        }
        const put = { TableName: this.table, Item: { ...channelKey(id), version: (version ?? 0) + 1, channel: next }, ...versionIs(version) };
        const kept: TransactItem[] = answer ? [{ Put: { TableName: this.table, Item: answerItem(answer) } }] : [];
        if (sales.length === 0 && kept.length === 0) await this.doc.send(new PutCommand(put));
        else
          await this.doc.send(new TransactWriteCommand({ TransactItems: [{ Put: put }, ...sales.flatMap((sale) => saleWrites(this.table, sale)), ...kept] }));
        this.versions.set(next, (version ?? 0) + 1);
        return { channel: next, status: 'updated' };
      } catch (err) {
        // Any other refusal (a sale that exists already, a throttle the SDK gave up on) is not ours to retry.
        if (!isConflict(err)) throw err;
        await backoff(attempt);
      }
    }
    throw new StoreConflictError(id);
  }

  async answerOf(channelId: string): Promise<DeliveredAnswer | undefined> {
    const id = normalizeChannelId(channelId);
    const res = await this.doc.send(new GetCommand({ TableName: this.table, Key: answerKey(id), ConsistentRead: true }));
    if (!res.Item) return undefined;
    return { channelId: id, cumulative: String(res.Item.cumulative), path: String(res.Item.path), body: new Uint8Array(res.Item.body as Uint8Array) };
  }

  protected async read(id: string): Promise<{ channel: StoredChannel | undefined; version: number | undefined }> {
    const res = await this.doc.send(new GetCommand({ TableName: this.table, Key: channelKey(id), ConsistentRead: true }));
    if (!res.Item) return { channel: undefined, version: undefined };
    const channel = res.Item.channel as StoredChannel;
    const version = Number(res.Item.version);
    this.versions.set(channel, version);
    return { channel, version };
  }
}

/** The channel store of the settlement job: the lane's operations, plus listing, open sales and the job's cursor. */
class DynamoChannelStore extends DynamoChannelLane implements BatchChannelStore {
  async list(): Promise<StoredChannel[]> {
    const shards = await Promise.all(
      Array.from({ length: SHARDS }, async (_, shard) => {
        const out: StoredChannel[] = [];
        const pages = paginateQuery(
          { client: this.doc },
          { TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `X402CHANNEL#${shard}` }, ConsistentRead: true },
        );
        for await (const page of pages) for (const item of page.Items ?? []) out.push(item.channel as StoredChannel);
        return out;
      }),
    );
    return shards.flat();
  }

  async updateChannel(channelId: string, update: (current: StoredChannel | undefined) => StoredChannel | undefined): Promise<ChannelUpdateResult> {
    return this.change(channelId, (current) => ({ channel: update(current) }));
  }

  async openSales(): Promise<OpenSale[]> {
    const shards = await Promise.all(
      Array.from({ length: SHARDS }, async (_, shard) => {
        const out: OpenSale[] = [];
        const pages = paginateQuery(
          { client: this.doc },
          { TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `X402BATCHOPEN#${shard}` }, ConsistentRead: true },
        );
        for await (const page of pages) for (const i of page.Items ?? []) out.push(openSaleOfItem(i));
        return out;
      }),
    );
    return shards.flat();
  }

  /** Shard by shard in key order; a page's `next` is `<shard>|<sort key>` of its last sale. */
  async openSalesPage(after: string | undefined, limit: number): Promise<{ sales: OpenSale[]; next?: string }> {
    const [shardText, afterSk] = after === undefined ? ['0', undefined] : [after.slice(0, after.indexOf('|')), after.slice(after.indexOf('|') + 1)];
    const sales: OpenSale[] = [];
    let shard = Number(shardText);
    let startSk = afterSk || undefined;
    let lastSk: string | undefined;
    while (shard < SHARDS && sales.length < limit) {
      const pk = `X402BATCHOPEN#${shard}`;
      const res = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
          Limit: limit - sales.length,
          ...(startSk === undefined ? {} : { ExclusiveStartKey: { pk, sk: startSk } }),
        }),
      );
      for (const i of res.Items ?? []) {
        sales.push(openSaleOfItem(i));
        lastSk = String(i.sk);
      }
      if (res.LastEvaluatedKey) return { sales, next: `${shard}|${String(res.LastEvaluatedKey.sk)}` };
      // This shard is read to its end: the next one from its start.
      shard++;
      startSk = undefined;
      lastSk = undefined;
    }
    if (shard >= SHARDS) return { sales };
    return { sales, next: lastSk === undefined ? `${shard}|` : `${shard}|${lastSk}` };
  }

  async openSalesOf(channelId: string, range: { above: bigint; upTo: bigint }, limit: number): Promise<OpenSale[]> {
    const id = normalizeChannelId(channelId);
    if (range.upTo <= range.above) return [];
    const res = await this.doc.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': openKey({ channelId: id, cumulative: 0n }).pk,
          ':from': openKey({ channelId: id, cumulative: range.above + 1n }).sk,
          ':to': openKey({ channelId: id, cumulative: range.upTo }).sk,
        },
        ConsistentRead: true,
        Limit: limit,
      }),
    );
    return (res.Items ?? []).map(openSaleOfItem);
  }

  async closeSales(sales: readonly OpenSale[], transaction: string): Promise<void> {
    for (let i = 0; i < sales.length; i += CLOSE_BATCH) {
      const chunk = sales.slice(i, i + CLOSE_BATCH);
      try {
        await this.doc.send(new TransactWriteCommand({ TransactItems: chunk.flatMap((o) => closeWrites(this.table, o, transaction)) }));
      } catch (err) {
        if (errorName(err) !== 'TransactionCanceledException') throw err;
        // Some were closed by an earlier (interrupted) run: close the rest one by one.
        for (const o of chunk) {
          try {
            await this.doc.send(new TransactWriteCommand({ TransactItems: closeWrites(this.table, o, transaction) }));
          } catch (e) {
            if (errorName(e) !== 'TransactionCanceledException') throw e;
          }
        }
      }
    }
  }

  async jobCursor(): Promise<bigint | undefined> {
    const res = await this.doc.send(new GetCommand({ TableName: this.table, Key: CURSOR_KEY, ConsistentRead: true }));
    return res.Item ? BigInt(String(res.Item.block)) : undefined;
  }

  async setJobCursor(block: bigint): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { ...CURSOR_KEY, block: block.toString() } }));
  }

  async passState(): Promise<string | undefined> {
    const res = await this.doc.send(new GetCommand({ TableName: this.table, Key: PASS_KEY, ConsistentRead: true }));
    return res.Item ? String(res.Item.state) : undefined;
  }

  async setPassState(state: string | undefined): Promise<void> {
    if (state === undefined) await this.doc.send(new DeleteCommand({ TableName: this.table, Key: PASS_KEY }));
    else await this.doc.send(new PutCommand({ TableName: this.table, Item: { ...PASS_KEY, state } }));
  }
}

/** An open-sale item as an OpenSale. */
const openSaleOfItem = (i: Record<string, unknown>): OpenSale => ({
  channelId: String(i.channel_id),
  cumulative: BigInt(String(i.cumulative)),
  amount: String(i.amount),
  sale: { pk: String(i.sale_pk), sk: String(i.sale_sk) },
});

/** The compare-and-swap condition: the version read, or no item when none was read. */
const versionIs = (version: number | undefined) =>
  version === undefined
    ? { ConditionExpression: 'attribute_not_exists(pk)' }
    : { ConditionExpression: '#version = :version', ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':version': version } };

/** The kept answer of a channel's latest voucher (one item per channel, replaced by every commit). */
const answerItem = (a: DeliveredAnswer) => ({ ...answerKey(normalizeChannelId(a.channelId)), cumulative: a.cumulative, path: a.path, body: a.body });

/** A booked sale: its record (never overwritten: sale ids are unique) and its open entry. */
const saleWrites = (table: string, sale: BatchSale): TransactItem[] => {
  const key = saleKey(sale);
  const open = openSaleOf(sale, key);
  return [
    { Put: { TableName: table, Item: saleItem(sale), ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      Put: {
        TableName: table,
        Item: { ...openKey(open), channel_id: open.channelId, cumulative: open.cumulative.toString(), amount: open.amount, sale_pk: key.pk, sale_sk: key.sk },
      },
    },
  ];
};

/** Closing a sale: its transaction stamped (only if still blank) and its open entry removed (only if still there). */
const closeWrites = (table: string, o: OpenSale, transaction: string): TransactItem[] => [
  {
    Update: {
      TableName: table,
      Key: o.sale,
      UpdateExpression: 'SET #tx = :tx',
      ConditionExpression: 'attribute_exists(pk) AND #tx = :blank',
      ExpressionAttributeNames: { '#tx': 'transaction' },
      ExpressionAttributeValues: { ':tx': transaction, ':blank': '' },
    },
  },
  { Delete: { TableName: table, Key: openKey(o), ConditionExpression: 'attribute_exists(pk)' } },
];

export { DynamoChannelLane, DynamoChannelStore, StoreConflictError };
