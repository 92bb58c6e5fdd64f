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
}

/**
 * Observations: pk = series key (PRICE#CL, INV#cushing, COT#CL, META#eia-spot …),
 * sk = as_of (YYYY-MM-DD), so latest = one descending Query, history = one key range.
 */
const OBSERVATIONS_TABLE: TableDef = Object.freeze<TableDef>({
  id: 'Observations',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
});

/**
 * Credits and payments: pk = KEY#<sha256 of a Pro key> | X402#<payer> | …, sk = what the item is
 * (PLAN, USAGE#<yyyy-mm>#<request id>, NONCE#<nonce> …). Finance queries one key by month.
 */
const CREDITS_TABLE: TableDef = Object.freeze<TableDef>({
  id: 'Credits',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
});

/** CreateTable input for a definition (the local runtime and integration tests use it). */
const createTableInput = (def: TableDef, tableName: string) => ({
  TableName: tableName,
  BillingMode: 'PAY_PER_REQUEST' as const,
  AttributeDefinitions: [
    { AttributeName: def.partitionKey.name, AttributeType: def.partitionKey.type },
    { AttributeName: def.sortKey.name, AttributeType: def.sortKey.type },
  ],
  KeySchema: [
    { AttributeName: def.partitionKey.name, KeyType: 'HASH' as const },
    { AttributeName: def.sortKey.name, KeyType: 'RANGE' as const },
  ],
});

export { OBSERVATIONS_TABLE, CREDITS_TABLE, createTableInput };
export type { TableDef, KeyAttr };
