/**
 * Sales records in the credit table: one item per paid call, for finance (revenue per route and
 * lane). The same shape serves every x402 lane (exact writes lane 'x402-exact', batch 'x402-batch'):
 *
 *   pk  X402SALE#<yyyy-mm>#<shard>     shard = first byte of sha256(sale id) % 16
 *   sk  <settled_at ISO>#<sale id>
 *
 * An exact-lane sale is its settled claim (ledger.ts), with the same keys in the sparse sales index
 * (gsi2pk, gsi2sk): the settlement writes one item, and finance reads the index beside the table.
 *
 * A month's sales are 16 partitions, so a busy month never concentrates its writes on one
 * partition; a month is read with one Query per shard. Amounts are USDC atomic units as decimal
 * strings (never floats). `transaction` is the on-chain transaction that moved the money: for the
 * batch lane the claim that covers the call, '' until it is known.
 */
import { createHash } from 'node:crypto';
import { type DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { CREDITS_SALES_INDEX, SALES_INDEX_ATTRIBUTES } from '../store/tables';
import type { LaneId } from './lane';

/** How many partitions a month's sales are spread over. */
const SALE_SHARDS = 16;

/** A lane that books sales: every lane of the registry but Pro (its usage entries are its books). */
type SaleLane = Exclude<LaneId, 'pro'>;

/** One paid call, as finance reads it. */
interface SaleRecord {
  /** Unique per paid call; for the batch lane `batch:<channel id>:<cumulative amount after the call>`. */
  saleId: string;
  lane: SaleLane;
  /** Route id from the route table, e.g. `GET /v1/price/{code}`. */
  route: string;
  path: string;
  /** USDC atomic units, decimal string. */
  amount: string;
  asset: string;
  network: string;
  payTo: string;
  payer: string;
  /** Transaction that moved the money; '' while not yet known (batch: before the claim). */
  transaction: string;
  /** When the call was paid (ISO 8601, UTC). */
  settledAt: string;
  requestId: string;
  /** exact: the EIP-3009 nonce of the authorization (the sale id is `<payer>#<nonce>`). */
  nonce?: string;
  /** Lane-specific fields (batch: channel_id, cumulative_amount), stored as attributes. */
  extra?: Readonly<Record<string, string>>;
}

/** Key of a sale item. */
interface SaleKey {
  pk: string;
  sk: string;
}

/** The shard of an id among `shards` partitions: first byte of its SHA-256, modulo `shards`. */
const hashShard = (id: string, shards: number): number => createHash('sha256').update(id, 'utf8').digest()[0]! % shards;

/** The shard of a sale id. */
const saleShard = (saleId: string): number => hashShard(saleId, SALE_SHARDS);

/** The partition key of a month's shard. */
const salePk = (month: string, shard: number): string => `X402SALE#${month}#${shard}`;

/** Where a sale lives. */
const saleKey = (sale: Pick<SaleRecord, 'saleId' | 'settledAt'>): SaleKey => ({
  pk: salePk(sale.settledAt.slice(0, 7), saleShard(sale.saleId)),
  sk: `${sale.settledAt}#${sale.saleId}`,
});

/** A sale's attributes, without keys (names as finance queries them). */
const saleFields = (sale: SaleRecord): Record<string, string> => ({
  ...sale.extra,
  sale_id: sale.saleId,
  lane: sale.lane,
  route: sale.route,
  path: sale.path,
  amount: sale.amount,
  asset: sale.asset,
  network: sale.network,
  pay_to: sale.payTo,
  payer: sale.payer.toLowerCase(),
  transaction: sale.transaction,
  settled_at: sale.settledAt,
  request_id: sale.requestId,
  ...(sale.nonce !== undefined ? { nonce: sale.nonce.toLowerCase() } : {}),
});

/** The credit-table item of a sale. */
const saleItem = (sale: SaleRecord): Record<string, string> => ({ ...saleKey(sale), ...saleFields(sale) });

/** A sale's own attributes (what the sales index projects) and its keys; any other attribute is an extra. */
const isCoreAttribute = (name: string): boolean => name === 'pk' || name === 'sk' || SALES_INDEX_ATTRIBUTES.includes(name);

/**
 * A sale back from its item.
 * @param withExtra false for a settled claim read from the sales index: its other attributes are the claim's, not the sale's
 */
const saleFromItem = (item: Record<string, unknown>, withExtra = true): SaleRecord => {
  const extra = withExtra
    ? Object.fromEntries(
        Object.entries(item)
          .filter(([k]) => !isCoreAttribute(k))
          .map(([k, v]) => [k, String(v)]),
      )
    : {};
  return {
    saleId: String(item.sale_id),
    lane: item.lane as SaleLane,
    route: String(item.route),
    path: String(item.path),
    amount: String(item.amount),
    asset: String(item.asset),
    network: String(item.network),
    payTo: String(item.pay_to),
    payer: String(item.payer),
    transaction: String(item.transaction),
    settledAt: String(item.settled_at),
    requestId: String(item.request_id),
    ...(item.nonce !== undefined ? { nonce: String(item.nonce) } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
  };
};

/** The attributes that make a settled exact-lane claim its sale: the sale's fields and its keys in the sales index. */
const saleAttributesOfClaim = (sale: SaleRecord): Record<string, string> => {
  const key = saleKey(sale);
  return { ...saleFields(sale), gsi2pk: key.pk, gsi2sk: key.sk };
};

/**
 * Finance's read: a calendar month's sales of every lane, oldest first: per shard, one Query of the
 * table (sale items) and one of the sales index (settled exact-lane claims).
 * @param month YYYY-MM (UTC)
 */
const salesOfMonth = async (doc: DynamoDBDocumentClient, table: string, month: string): Promise<SaleRecord[]> => {
  const read = async (shard: number, index: boolean): Promise<SaleRecord[]> => {
    const out: SaleRecord[] = [];
    const pages = paginateQuery(
      { client: doc },
      index
        ? {
            TableName: table,
            IndexName: CREDITS_SALES_INDEX,
            KeyConditionExpression: 'gsi2pk = :pk',
            ExpressionAttributeValues: { ':pk': salePk(month, shard) },
          }
        : { TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': salePk(month, shard) } },
    );
    for await (const page of pages) for (const item of page.Items ?? []) out.push(saleFromItem(item, !index));
    return out;
  };
  const shards = await Promise.all(Array.from({ length: SALE_SHARDS }, (_, shard) => Promise.all([read(shard, false), read(shard, true)])));
  return shards.flat(2).sort((a, b) => (a.settledAt < b.settledAt ? -1 : a.settledAt > b.settledAt ? 1 : 0));
};

export { hashShard, saleShard, saleKey, saleItem, saleAttributesOfClaim, salesOfMonth };
export type { SaleRecord, SaleKey, SaleLane };
