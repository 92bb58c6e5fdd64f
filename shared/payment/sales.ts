/**
 * Sales records of the x402 lanes in the credit table, as finance reads them: one item per paid
 * call, filed by the month of settlement in SALE_SHARDS partitions so that one month's sales never
 * sit on one hot key (a DynamoDB partition takes about 1,000 write units a second; a sale is one).
 *
 *   pk X402SALE#<yyyy-mm>#<shard>   sk <settled_at>#<sale id>
 *
 * shard = first byte of sha256(sale id) mod SALE_SHARDS; a month is read as one Query per shard.
 * The sale id names the payment: `<payer>#<nonce>` for an EIP-3009 authorization (exact lane).
 */
import { createHash } from 'node:crypto';

/** Partitions per month: 16 x ~1,000 writes/s, far beyond the API's throttle. */
const SALE_SHARDS = 16;

/** Which x402 lane took the money. */
type SaleLane = 'x402-exact' | 'x402-batch';

/** A settled sale, as finance reads it. Amounts are USDC atomic units (decimal strings). */
interface SaleRecord {
  lane: SaleLane;
  /** Unique per paid call within its lane. */
  saleId: string;
  payer: string;
  amount: string;
  asset: string;
  network: string;
  payTo: string;
  route: string;
  path: string;
  /** The on-chain transaction that moved the money ('' until known). */
  transaction: string;
  settledAt: string;
  requestId: string;
  /** Lane-specific identifiers (exact: the EIP-3009 nonce). */
  nonce?: string;
}

const shardOf = (id: string, shards: number): number => createHash('sha256').update(id).digest()[0]! % shards;

const salePk = (month: string, shard: number) => `X402SALE#${month}#${shard}`;

/** The partition keys of one month's sales, one per shard. */
const salePartitions = (month: string): string[] => Array.from({ length: SALE_SHARDS }, (_, i) => salePk(month, i));

/** The credit-table item of a sale. */
const saleItem = (sale: SaleRecord) => ({
  pk: salePk(sale.settledAt.slice(0, 7), shardOf(sale.saleId, SALE_SHARDS)),
  sk: `${sale.settledAt}#${sale.saleId}`,
  lane: sale.lane,
  sale_id: sale.saleId,
  payer: sale.payer.toLowerCase(),
  amount: sale.amount,
  asset: sale.asset,
  network: sale.network,
  pay_to: sale.payTo,
  route: sale.route,
  path: sale.path,
  transaction: sale.transaction,
  settled_at: sale.settledAt,
  request_id: sale.requestId,
  ...(sale.nonce !== undefined ? { nonce: sale.nonce.toLowerCase() } : {}),
});

/** A sale read back from its item. */
const saleOfItem = (i: Record<string, unknown>): SaleRecord => ({
  lane: (i.lane as SaleLane | undefined) ?? 'x402-exact',
  saleId: String(i.sale_id ?? `${String(i.payer)}#${String(i.nonce)}`),
  payer: String(i.payer),
  amount: String(i.amount),
  asset: String(i.asset),
  network: String(i.network),
  payTo: String(i.pay_to),
  route: String(i.route),
  path: String(i.path),
  transaction: String(i.transaction ?? ''),
  settledAt: String(i.settled_at),
  requestId: String(i.request_id),
  ...(i.nonce !== undefined ? { nonce: String(i.nonce) } : {}),
});

export { SALE_SHARDS, saleItem, saleOfItem, salePartitions, shardOf };
export type { SaleLane, SaleRecord };
