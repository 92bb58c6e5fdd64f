/**
 * DynamoDB table definitions, used both by CDK (infra) and by the local runtime's CreateTable,
 * so the key schema exists once.
 */
interface KeyAttr {
  readonly name: string;
  readonly type: 'S' | 'N';
}

interface TableDef {
  /** Logical id (CDK construct id, local table-name suffix). */
  readonly id: string;
  readonly partitionKey: KeyAttr;
  readonly sortKey: KeyAttr;
  /** Attribute holding an epoch-seconds expiry, when items may expire. */
  readonly timeToLiveAttribute?: string;
  /** Sparse global secondary indexes. */
  readonly globalIndexes?: readonly IndexDef[];
  /** A change stream of the items' keys (AWS only; the local runtime polls instead). */
  readonly stream?: 'KEYS_ONLY';
}

interface IndexDef {
  readonly name: string;
  readonly partitionKey: KeyAttr;
  readonly sortKey: KeyAttr;
  /**
   * The attributes besides the keys (the table's and the index's) that the index's readers use.
   * Every write of an indexed item writes its projection to the index too, in write units per KB:
   * a projection of what is read, not the whole item (payment payloads, stored answers), keeps an
   * index write at 1 unit. Empty: KEYS_ONLY.
   */
  readonly projected: readonly string[];
}

/** DynamoDB TTL attribute of the credit table (epoch seconds): unsettled claims and payment-id bindings expire; sales (settled claims included) and usage do not. */
const TTL_ATTRIBUTE = 'expires_at';

/**
 * Sparse index of the credit table: x402 claims the reconciler must still look at
 * (gsi1pk = X402WATCH#<shard>, gsi1sk = <claimed_at>#<payer>#<nonce>). An item leaves it when the
 * attributes are removed (settled, or proven unused on chain). Webhook deliveries share it while an
 * attempt runs (gsi1pk = WATCHHOLD#<shard>, read by their keys only: shared/watches/watch-store.ts).
 */
const CREDITS_WATCH_INDEX = 'gsi1';

/**
 * Sparse index of the credit table: x402 exact-lane sales, which are their settled claims
 * (gsi2pk = X402SALE#<month>#<shard>, gsi2sk = <settled_at>#<sale id>, as a sale item's keys), so a
 * settlement is one write of one item. Finance reads a month's shards from the table and this index.
 */
const CREDITS_SALES_INDEX = 'gsi2';

/**
 * What the watch index's readers use: payer and nonce (the reconciler, DynamoReconcileLedger.listWatched,
 * then reads the claim itself by key), and the state the deferred settle worker filters on
 * (DynamoDeferredLedger.listDeferred: DEFERRED claims, oldest first).
 */
const WATCH_INDEX_ATTRIBUTES = /* @__PURE__ */ Object.freeze(['payer', 'nonce', 'state']);
/**
 * What finance reads from the sales index (salesOfMonth -> saleFromItem without extras): the sale's core
 * fields, the one list of them (sales.ts tells a sale's extras by it).
 */
const SALES_INDEX_ATTRIBUTES = /* @__PURE__ */ Object.freeze([
  'sale_id',
  'lane',
  'route',
  'path',
  'amount',
  'asset',
  'network',
  'pay_to',
  'payer',
  'transaction',
  'settled_at',
  'request_id',
  'nonce',
]);

/**
 * Observations: pk = series key (PRICE#CL, INV#cushing, COT#CL, META#eia-spot …),
 * sk = as_of (YYYY-MM-DD), so latest = one descending Query, history = one key range.
 */
const OBSERVATIONS_TABLE: TableDef = /* @__PURE__ */ Object.freeze<TableDef>({
  id: 'Observations',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  // Issue 37: the webhook watches' fan-out runs on its writes (infra/constructs/watches.ts).
  stream: 'KEYS_ONLY',
});

/**
 * Credits and payments: pk = KEY#<sha256 of a Pro key> | X402#<payer> | …, sk = what the item is
 * (PLAN, USAGE#<yyyy-mm>#<request id>, NONCE#<nonce> …). Finance queries one key by month.
 */
const CREDITS_TABLE: TableDef = /* @__PURE__ */ Object.freeze<TableDef>({
  id: 'Credits',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  timeToLiveAttribute: TTL_ATTRIBUTE,
  globalIndexes: [
    { name: CREDITS_WATCH_INDEX, partitionKey: { name: 'gsi1pk', type: 'S' }, sortKey: { name: 'gsi1sk', type: 'S' }, projected: WATCH_INDEX_ATTRIBUTES },
    { name: CREDITS_SALES_INDEX, partitionKey: { name: 'gsi2pk', type: 'S' }, sortKey: { name: 'gsi2sk', type: 'S' }, projected: SALES_INDEX_ATTRIBUTES },
  ],
});

/** CreateTable input for a definition (the local runtime and integration tests use it). */
const keySchema = (pk: KeyAttr, sk: KeyAttr) => [
  { AttributeName: pk.name, KeyType: 'HASH' as const },
  { AttributeName: sk.name, KeyType: 'RANGE' as const },
];

/** The DynamoDB Projection of an index definition. */
const projectionOf = (i: IndexDef): { ProjectionType: 'KEYS_ONLY' } | { ProjectionType: 'INCLUDE'; NonKeyAttributes: string[] } =>
  i.projected.length ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...i.projected] } : { ProjectionType: 'KEYS_ONLY' };

const createTableInput = (def: TableDef, tableName: string) => {
  const attrs = [def.partitionKey, def.sortKey, ...(def.globalIndexes ?? []).flatMap((i) => [i.partitionKey, i.sortKey])];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [...new Map(attrs.map((a) => [a.name, a])).values()].map((a) => ({ AttributeName: a.name, AttributeType: a.type })),
    KeySchema: keySchema(def.partitionKey, def.sortKey),
    ...(def.globalIndexes?.length
      ? {
          GlobalSecondaryIndexes: def.globalIndexes.map((i) => ({
            IndexName: i.name,
            KeySchema: keySchema(i.partitionKey, i.sortKey),
            Projection: projectionOf(i),
          })),
        }
      : {}),
  };
};

export { OBSERVATIONS_TABLE, CREDITS_TABLE, CREDITS_WATCH_INDEX, CREDITS_SALES_INDEX, SALES_INDEX_ATTRIBUTES, TTL_ATTRIBUTE, createTableInput };
export type { TableDef, KeyAttr, IndexDef };
