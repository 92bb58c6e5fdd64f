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
  /** The batch settler: schedule, timeout, memory, and its pass settings (its environment, settle-settings.ts). */
  settler: { everyMinutes: number; timeoutSeconds: number; memoryMb: number; pageSize: number; claimConcurrency: number; closeConcurrency: number };
  /** The deferred exact settle worker: memory and its stream mapping (batch size, parallelization factor). */
  deferred: { memoryMb: number; batchSize: number; parallelizationFactor: number };
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
  functionMs: { challenge: 10, exactPaid: 1_710, exactDeferredPaid: 79.5, batchVoucher: 10.4, pro: 10 },
  /**
   * Share of exact calls answered before their settlement (issue 38: routes priced at or below
   * X402_DEFER_MAX_USD, within the payer's caps); the rest settle first. Most of the catalogue is
   * priced under the cap (prices, history, inventories...); decision packs and /v1/snapshot/all are not.
   */
  exactDeferredShare: 0.9,
  /** A deferred claim's settlement in the stream worker: /settle waits for its block (README: answer to chain p50 2.06 s). */
  deferredSettleMs: 2_060,
  /** DynamoDB Streams has a shard per table partition; a partition takes 1,000 write units/s; a new on-demand table has 4. */
  minStreamShards: 4,
  /** One TransactWriteItems of 50 sale closings (100 items) in the settler, round trip. */
  settleCloseTransactionMs: 25,
  /** A claim transaction of up to 100 channels: the facilitator waits for its block. */
  settleClaimTransactionMs: 2_060,
  /** One Query page of open sales: a round trip plus the items (362 B each, under the 1 MB a page may return). */
  settlePageQueryMs: 10,
  settlePageItemMs: 0.02,
  /** Batch calls a channel makes per second (an agent that opened a channel calls often; fewer channels per call is cheaper). */
  batchCallsPerChannelPerSecond: 1,
  /** Memory of one open sale held by the settler (JS objects of a 362-byte item). */
  settlerBytesPerOpenSale: 1_000,
  /** The settler stops taking work this long before its timeout (settle-settings.ts stopMarginMs). */
  settlerStopMarginSeconds: 60,
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
  /** Of `concurrency`, the deferred settle worker's executions, and the claims/s its stream shards can settle (exact lane). */
  deferredConcurrency?: number;
  deferredClaimsPerSecond?: number;
  deferredCapacityPerSecond?: number;
  /** The stream shards (table partitions) the worker needs for the rate: warm throughput of shards x 1,000 WCU. */
  deferredShardsNeeded?: number;
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

/** Function time of a paid exact call: deferred ones answer after verify, the rest wait for their settlement. */
const exactPaidMs = (): number => {
  const ms = ASSUMED.functionMs;
  return ASSUMED.exactDeferredShare * ms.exactDeferredPaid + (1 - ASSUMED.exactDeferredShare) * ms.exactPaid;
};

/**
 * The deferred settle worker at `rate` exact calls/s: a stream batch of `batchSize` claims is settled
 * side by side in one execution of about one settlement's time (full batches at volume), and the
 * stream runs at most shards x parallelization factor executions at once, a shard per table
 * partition (the table's write units / 1,000, at least 4; warm throughput sets more).
 */
const deferredWorker = (rate: number, tableWcu: number, s: DeploySettings) => {
  const claimsPerSecond = rate * ASSUMED.exactDeferredShare;
  const settleSeconds = ASSUMED.deferredSettleMs / 1000;
  const shards = Math.max(ASSUMED.minStreamShards, Math.ceil(tableWcu / ASSUMED.partitionWcu));
  const perShard = (s.deferred.parallelizationFactor * s.deferred.batchSize) / settleSeconds;
  return {
    claimsPerSecond,
    concurrency: (claimsPerSecond * settleSeconds) / s.deferred.batchSize,
    capacityPerSecond: shards * perShard,
    shardsNeeded: Math.ceil(claimsPerSecond / perShard),
  };
};

/**
 * A batch settlement pass at `rate` batch calls/s (settle-job.ts): every sale of the interval is
 * closed (50 per transaction, closeConcurrency at once) after its channel's claim (100 channels per
 * transaction, claimConcurrency at once); each claimed channel's sales are read a page at a time,
 * and the stamp scan reads what is still open a page at a time (all of an interval's sales, at worst).
 * Memory: a page per closing in flight, not the open sales.
 */
const settlerPass = (rate: number, s: DeploySettings) => {
  const a = ASSUMED;
  const st = s.settler;
  const openSales = rate * st.everyMinutes * 60;
  const channels = Math.ceil(rate / a.batchCallsPerChannelPerSecond);
  const pageMs = a.settlePageQueryMs + st.pageSize * a.settlePageItemMs;
  const claimS = (Math.ceil(channels / 100) * a.settleClaimTransactionMs) / st.claimConcurrency / 1000;
  const closeS =
    (Math.ceil(openSales / 50) * a.settleCloseTransactionMs + (channels + Math.ceil(openSales / st.pageSize)) * pageMs) / st.closeConcurrency / 1000;
  const scanS = (Math.ceil(openSales / st.pageSize) * pageMs) / 1000;
  return {
    seconds: claimS + closeS + scanS,
    parts: { claimS, closeS, scanS },
    heldMb: (Math.min(openSales, st.pageSize * (st.closeConcurrency + 1)) * a.settlerBytesPerOpenSale) / 1e6,
  };
};

/** What `rate` paid calls per second in one lane put on each limit. */
const laneLoad = (lane: Lane, rate: number, s: DeploySettings, z: ItemSizes): LaneLoad => {
  const ms = ASSUMED.functionMs;
  const w = writesPerCall(lane, s, z);
  if (lane === 'x402-exact') {
    const x = w as { table: number; watch: number; sales: number };
    const perShard = Math.max((rate * x.watch) / ASSUMED.shards.watch, (rate * x.sales) / ASSUMED.shards.sales);
    const tableWcu = rate * (x.table + x.watch + x.sales);
    const d = deferredWorker(rate, tableWcu, s);
    return {
      requestsPerSecond: 2 * rate,
      concurrency: (rate * (ms.challenge + exactPaidMs())) / 1000 + d.concurrency,
      tableWcu,
      tableRcu: 0,
      hottest: { what: 'a watch-index shard (X402WATCH#<n>)', wcu: perShard },
      deferredConcurrency: d.concurrency,
      deferredClaimsPerSecond: d.claimsPerSecond,
      deferredCapacityPerSecond: d.capacityPerSecond,
      deferredShardsNeeded: d.shardsNeeded,
    };
  }
  if (lane === 'x402-batch') {
    const x = w as { table: number; channel: number; sale: number; open: number };
    const worst = Math.max(x.channel, x.sale, x.open);
    return {
      requestsPerSecond: rate,
      concurrency: (rate * ms.batchVoucher) / 1000,
      tableWcu: rate * x.table,
      // one consistent read of the channel per voucher (under 4 KB: 1 unit)
      tableRcu: rate,
      hottest: { what: 'a channel shard (X402CHANNEL#<n>)', wcu: (rate * worst) / ASSUMED.shards.channels },
      settlerPassSeconds: settlerPass(rate, s).seconds,
      settlerOpenSalesMb: settlerPass(rate, s).heldMb,
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
  if (load.deferredCapacityPerSecond !== undefined) {
    // More stream shards come from more partitions: the table's warm throughput (a setting before launch).
    const claims = load.deferredClaimsPerSecond!;
    checks.push({
      limit: `settle-deferred stream (${s.deferred.parallelizationFactor} executions per shard, ${s.deferred.batchSize} claims each)`,
      use: claims / load.deferredCapacityPerSecond,
      quota: q.dynamoWarmWcu.name,
      needed: load.deferredShardsNeeded! * ASSUMED.partitionWcu,
    });
  }
  if (load.settlerPassSeconds !== undefined) {
    // A pass must end before the next starts (the schedule) and before its timeout less the margin it stops at.
    const budget = Math.min(s.settler.everyMinutes * 60, s.settler.timeoutSeconds - ASSUMED.settlerStopMarginSeconds);
    checks.push({
      limit: `settler pass time (${budget} s: timeout ${s.settler.timeoutSeconds} s less its stop margin)`,
      use: load.settlerPassSeconds / budget,
    });
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
  const fnMs = lane === 'x402-exact' ? ms.challenge + exactPaidMs() : lane === 'x402-batch' ? ms.batchVoucher : ms.pro;
  // The deferred worker: one execution per stream batch, about one settlement long.
  const deferredExecutions = lane === 'x402-exact' ? ASSUMED.exactDeferredShare / s.deferred.batchSize : 0;
  const parts: Record<string, number> = {
    'API Gateway': requests * p.apiRequests,
    'Lambda requests': requests * p.lambdaRequests,
    'Lambda compute': 1e6 * (fnMs / 1000) * (s.routeMemoryMb / 1024) * ASSUMED.usdPerGbSecondArm,
    ...(lane === 'x402-exact'
      ? {
          'settle-deferred':
            deferredExecutions * (p.lambdaRequests + 1e6 * (ASSUMED.deferredSettleMs / 1000) * (s.deferred.memoryMb / 1024) * ASSUMED.usdPerGbSecondArm),
        }
      : {}),
    'DynamoDB writes': load.tableWcu * p.dynamoWrites,
    'DynamoDB reads': load.tableRcu * p.dynamoReads,
    'CloudWatch Logs': (requests * 1e6 * ASSUMED.logBytesPerRequest * ASSUMED.usdPerGbLogs) / 1e9,
    'X-Ray': requests * ASSUMED.xraySampled * p.xrayTraces,
    ...(s.edge ? { CloudFront: requests * p.cloudFrontRequests, WAF: requests * p.wafRequests } : {}),
  };
  return { usd: Object.values(parts).reduce((a, b) => a + b, 0), parts };
};

export { ASSUMED, LANES, laneLoad, limitsOf, costPerMillion, writesPerCall, settlerPass, deferredWorker };
export type { DeploySettings, ItemSizes, Lane, LaneLoad, LimitCheck };
