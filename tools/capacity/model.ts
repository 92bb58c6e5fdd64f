/**
 * The capacity model of `npm run capacity`: for a rate of paid calls per second in a lane, what each
 * AWS limit sees, the first one reached, and the AWS cost per million calls. Its inputs are the
 * synthesized prod template's settings (DeploySettings, read by settingsFromTemplates) and the item
 * sizes measured by test/infra/item-sizes.test.ts; its assumptions (latencies, list prices, quotas)
 * are stated in ASSUMED and printed with every table.
 */
import { writeUnits } from './item-size';

type Lane = 'x402-exact' | 'x402-batch' | 'pro';
const LANES: readonly Lane[] = ['x402-exact', 'x402-batch', 'pro'];

/** What the model reads from the synthesized templates. */
interface DeploySettings {
  stageRateLimit: number;
  stageBurstLimit: number;
  /** MB of the route functions (all the same shape). */
  routeMemoryMb: number;
  settler: { everyMinutes: number; timeoutSeconds: number; memoryMb: number };
  /** Non-key attributes each credit-table index projects; 'ALL' copies the whole item. */
  watchIndexProjection: 'ALL' | 'INCLUDE' | 'KEYS_ONLY';
  salesIndexProjection: 'ALL' | 'INCLUDE' | 'KEYS_ONLY';
  edge: boolean;
}

/** Bytes of each item one paid call leaves (tools/capacity/measured-item-sizes.json). */
interface ItemSizes {
  exactClaim: number;
  exactClaimInWatchIndex: number;
  exactSale: number;
  exactSaleInSalesIndex: number;
  batchChannel: number;
  batchSale: number;
  batchOpen: number;
  proPlan: number;
  proUsage: number;
}

/**
 * Assumptions, printed with the table. Prices: AWS list prices, us-east-1, as published in 2025
 * (API Gateway HTTP APIs first 300 M requests/month; Lambda arm64; DynamoDB on-demand after the
 * November 2024 reduction; CloudFront US/Europe HTTPS requests; WAF requests; CloudWatch Logs
 * standard ingestion; X-Ray traces recorded). Latencies: the README's benchmark (2026-11-26): an
 * exact paid call waits for its settlement on Base's 2 s blocks (1,710 ms p50), a batch voucher
 * 10.4 ms, a 402 or a Pro call about 10 ms at the function.
 */
const ASSUMED = Object.freeze({
  usdPerMillion: { apiRequests: 1.0, lambdaRequests: 0.2, dynamoWrites: 0.625, dynamoReads: 0.125, cloudFrontRequests: 1.0, wafRequests: 0.6, xrayTraces: 5.0 },
  usdPerGbSecondArm: 0.0000133334,
  usdPerGbLogs: 0.5,
  /** Log bytes per request: the access-log line and the function's own lines (Powertools JSON). */
  logBytesPerRequest: 300 + 1_000,
  /** X-Ray's default sampling keeps about 5% of requests at volume (1/s reservoir + 5%). */
  xraySampled: 0.05,
  functionMs: { challenge: 10, exactPaid: 1_710, batchVoucher: 10.4, pro: 10 },
  /** One TransactWriteItems of 50 sale closings (100 items) in the settler, round trip. */
  settleCloseTransactionMs: 25,
  /** Memory of one open sale held by the settler (JS objects of a 362-byte item). */
  settlerBytesPerOpenSale: 1_000,
  /** PRO_RATE_LIMIT_PER_SECOND: one key's calls per second in one Lambda process. */
  proKeyCallsPerSecond: 50,
  /** A single partition key takes this many write units per second (DynamoDB's per-partition limit). */
  partitionWcu: 1_000,
  shards: { watch: 16, sales: 16, channels: 16, open: 16 },
  /** Account quotas at their defaults, by their Service Quotas names. */
  quotas: {
    apiGatewayRps: { name: 'API Gateway: Throttle rate (per account, per Region)', default: 10_000 },
    lambdaConcurrency: { name: 'AWS Lambda: Concurrent executions', default: 1_000 },
    dynamoTableWcu: { name: 'DynamoDB: Table-level write throughput limit (on-demand, per table)', default: 40_000 },
    dynamoTableRcu: { name: 'DynamoDB: Table-level read throughput limit (on-demand, per table)', default: 40_000 },
    dynamoWarmWcu: {
      name: 'DynamoDB: warm throughput of the Credits table (a new on-demand table takes 4,000 writes/s at once; set its warm throughput before launch)',
      default: 4_000,
    },
  },
});

interface LaneLoad {
  requestsPerSecond: number;
  /** Lambda executions in flight at once. */
  concurrency: number;
  /** Write and read units per second on the credit table (indexes included). */
  tableWcu: number;
  tableRcu: number;
  /** The busiest single partition key's write units per second, and which. */
  hottest: { what: string; wcu: number };
  /** Seconds of a batch settlement pass, and MB of open sales it holds (batch lane only). */
  settlerPassSeconds?: number;
  settlerOpenSalesMb?: number;
}

/** Write units per paid call, by what is written. */
const writesPerCall = (lane: Lane, s: DeploySettings, z: ItemSizes) => {
  if (lane === 'x402-exact') {
    const watchCopy = s.watchIndexProjection === 'ALL' ? z.exactClaim : z.exactClaimInWatchIndex;
    const salesCopy = s.salesIndexProjection === 'ALL' ? z.exactSale : z.exactSaleInSalesIndex;
    // claim (conditional update) + its watch-index copy; settle: the update is billed on the larger of
    // before and after, the watch copy is deleted, the sales copy written.
    const claim = writeUnits(z.exactClaim);
    const settle = writeUnits(Math.max(z.exactClaim, z.exactSale));
    return { table: claim + settle, watch: writeUnits(watchCopy) * 2, sales: writeUnits(salesCopy), payerPartition: claim + settle };
  }
  if (lane === 'x402-batch') {
    // reservation PutItem of the channel; commit TransactWriteItems of channel, sale, open entry (2x each);
    // the settler's closing: one transaction of the sale's stamp and the open entry's delete (2x each).
    const channel = writeUnits(z.batchChannel) + 2 * writeUnits(z.batchChannel);
    const sale = 2 * writeUnits(z.batchSale) + 2 * writeUnits(z.batchSale);
    const open = 2 * writeUnits(z.batchOpen) + 2 * writeUnits(z.batchOpen);
    return { table: channel + sale + open, channel, sale, open };
  }
  // one TransactWriteItems of the key's PLAN update and the call's USAGE put
  return { table: 2 * writeUnits(z.proPlan) + 2 * writeUnits(z.proUsage), plan: 2 * writeUnits(z.proPlan) };
};

/** What `rate` paid calls per second in one lane put on each limit. */
const laneLoad = (lane: Lane, rate: number, s: DeploySettings, z: ItemSizes): LaneLoad => {
  const ms = ASSUMED.functionMs;
  const w = writesPerCall(lane, s, z);
  if (lane === 'x402-exact') {
    const x = w as { table: number; watch: number; sales: number };
    const perShard = Math.max((rate * x.watch) / ASSUMED.shards.watch, (rate * x.sales) / ASSUMED.shards.sales);
    return {
      requestsPerSecond: 2 * rate,
      concurrency: (rate * (ms.challenge + ms.exactPaid)) / 1000,
      tableWcu: rate * (x.table + x.watch + x.sales),
      tableRcu: 0,
      hottest: { what: 'a watch-index shard (X402WATCH#<n>)', wcu: perShard },
    };
  }
  if (lane === 'x402-batch') {
    const x = w as { table: number; channel: number; sale: number; open: number };
    const openSales = rate * s.settler.everyMinutes * 60;
    const worst = Math.max(x.channel, x.sale, x.open);
    return {
      requestsPerSecond: rate,
      concurrency: (rate * ms.batchVoucher) / 1000,
      tableWcu: rate * x.table,
      // one consistent read of the channel per voucher (under 4 KB: 1 unit)
      tableRcu: rate,
      hottest: { what: 'a channel shard (X402CHANNEL#<n>)', wcu: (rate * worst) / ASSUMED.shards.channels },
      settlerPassSeconds: (Math.ceil(openSales / 50) * ASSUMED.settleCloseTransactionMs) / 1000,
      settlerOpenSalesMb: (openSales * ASSUMED.settlerBytesPerOpenSale) / 1e6,
    };
  }
  const x = w as { table: number; plan: number };
  return {
    requestsPerSecond: rate,
    concurrency: (rate * ms.pro) / 1000,
    tableWcu: rate * x.table,
    tableRcu: rate,
    // One key's PLAN item takes every call of that key; the lane's rate is spread over many keys, and
    // one key is held to PRO_RATE_LIMIT_PER_SECOND per process (50/s; a few warm processes for one busy key).
    hottest: { what: "one Pro key's PLAN item at 4 x 50 calls/s", wcu: Math.min(rate, 4 * ASSUMED.proKeyCallsPerSecond) * x.plan },
  };
};

interface LimitCheck {
  limit: string;
  /** Load / limit. */
  use: number;
  /** An account quota (raise it by name) rather than a setting of the template or a hard limit. */
  quota?: string;
  needed?: number;
}

/** Every limit a load meets, busiest first. */
const limitsOf = (load: LaneLoad, s: DeploySettings): LimitCheck[] => {
  const q = ASSUMED.quotas;
  const checks: LimitCheck[] = [
    { limit: `stage throttle (${s.stageRateLimit} requests/s)`, use: load.requestsPerSecond / s.stageRateLimit },
    { limit: q.apiGatewayRps.name, use: load.requestsPerSecond / q.apiGatewayRps.default, quota: q.apiGatewayRps.name, needed: load.requestsPerSecond },
    {
      limit: q.lambdaConcurrency.name,
      use: load.concurrency / q.lambdaConcurrency.default,
      quota: q.lambdaConcurrency.name,
      needed: Math.ceil(load.concurrency),
    },
    { limit: q.dynamoTableWcu.name, use: load.tableWcu / q.dynamoTableWcu.default, quota: q.dynamoTableWcu.name, needed: Math.ceil(load.tableWcu) },
    { limit: q.dynamoWarmWcu.name, use: load.tableWcu / q.dynamoWarmWcu.default, quota: q.dynamoWarmWcu.name, needed: Math.ceil(load.tableWcu) },
    { limit: q.dynamoTableRcu.name, use: load.tableRcu / q.dynamoTableRcu.default, quota: q.dynamoTableRcu.name, needed: Math.ceil(load.tableRcu) },
    // a hot key is not helped by any quota
    { limit: `partition write units (${ASSUMED.partitionWcu}/s on ${load.hottest.what})`, use: load.hottest.wcu / ASSUMED.partitionWcu },
  ];
  if (load.settlerPassSeconds !== undefined) {
    checks.push({ limit: `settler pass time (timeout ${s.settler.timeoutSeconds} s)`, use: load.settlerPassSeconds / s.settler.timeoutSeconds });
    checks.push({ limit: `settler memory (${s.settler.memoryMb} MB)`, use: load.settlerOpenSalesMb! / s.settler.memoryMb });
  }
  return checks.sort((a, b) => b.use - a.use);
};

/** AWS cost of a million paid calls in a lane, USD. */
const costPerMillion = (lane: Lane, s: DeploySettings, z: ItemSizes): { usd: number; parts: Record<string, number> } => {
  const p = ASSUMED.usdPerMillion;
  const load = laneLoad(lane, 1, s, z); // per call
  const requests = load.requestsPerSecond;
  const ms = ASSUMED.functionMs;
  const fnMs = lane === 'x402-exact' ? ms.challenge + ms.exactPaid : lane === 'x402-batch' ? ms.batchVoucher : ms.pro;
  const parts: Record<string, number> = {
    'API Gateway': requests * p.apiRequests,
    'Lambda requests': requests * p.lambdaRequests,
    'Lambda compute': 1e6 * (fnMs / 1000) * (s.routeMemoryMb / 1024) * ASSUMED.usdPerGbSecondArm,
    'DynamoDB writes': load.tableWcu * p.dynamoWrites,
    'DynamoDB reads': load.tableRcu * p.dynamoReads,
    'CloudWatch Logs': (requests * 1e6 * ASSUMED.logBytesPerRequest * ASSUMED.usdPerGbLogs) / 1e9,
    'X-Ray': requests * ASSUMED.xraySampled * p.xrayTraces,
    ...(s.edge ? { CloudFront: requests * p.cloudFrontRequests, WAF: requests * p.wafRequests } : {}),
  };
  return { usd: Object.values(parts).reduce((a, b) => a + b, 0), parts };
};

export { ASSUMED, LANES, laneLoad, limitsOf, costPerMillion, writesPerCall };
export type { DeploySettings, ItemSizes, Lane, LaneLoad, LimitCheck };
