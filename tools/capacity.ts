/**
 * `npm run capacity`: for 100, 1,000 and 10,000 paid calls per second in each lane (and the three
 * lanes at once), the first AWS limit reached and the AWS cost per million calls, from the settings
 * of the synthesized prod template (stage throttle, function memory, the settler's schedule and
 * timeout, index projections, the edge) and the item sizes test/infra/item-sizes.test.ts measures.
 * Prints the assumptions (latencies, list prices, default quotas) with the table.
 *
 *   npm run capacity              the table
 *   npm run capacity -- --json    the same as JSON
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SETTLE_PASS_ENV } from '../shared/payment/batch/settle-settings';
import { synthService } from '../test/infra/synth';
import {
  ASSUMED,
  costPerMillion,
  type DeploySettings,
  deferredWorker,
  type ItemSizes,
  LANES,
  type Lane,
  type LaneLoad,
  laneLoad,
  limitsOf,
  settlerPass,
} from './capacity/model';

const RATES = [100, 1_000, 10_000] as const;

const fail = (message: string): never => {
  throw new Error(message);
};
const TARGET = 1_000;

/** The model's inputs from the prod templates. */
const settingsFromTemplates = (): DeploySettings => {
  const s = synthService({
    stage: 'prod',
    payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    facilitatorUrl: 'https://api.cdp.coinbase.com/platform/v2/x402',
    rpcUrl: 'https://base.rpc.example.com',
    alarmEmail: 'ops@example.com',
  });
  // biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON, read by its documented property names
  type Resource = { Type: string; Properties: any };
  const api = s.templates.api.toJSON().Resources as Record<string, Resource>;
  const only = (what: string, found: Resource | undefined): Resource => found ?? fail(`the prod template has no ${what}`);
  const stage = only(
    'API stage',
    Object.values(api).find((r) => r.Type === 'AWS::ApiGatewayV2::Stage'),
  );
  const fn = (construct: { node: { defaultChild?: unknown } }) => only('function', api[s.api.getLogicalId(construct.node.defaultChild as never)]).Properties;
  const settlerId = s.api.getLogicalId(s.api.batchSettler.node.defaultChild as never);
  const schedule = only(
    'settler schedule',
    Object.values(api).find((r) => r.Type === 'AWS::Scheduler::Schedule' && JSON.stringify(r.Properties.Target.Arn).includes(settlerId)),
  );
  const [, minutes] = /^rate\((\d+) minutes?\)$/.exec(schedule.Properties.ScheduleExpression) ?? [];
  const settlerEnv = (name: string): number => Number(fn(s.api.batchSettler).Environment.Variables[name] ?? fail(`the settler has no ${name}`));
  const deferredFn = s.api.deferredSettlement.fn;
  const deferredId = s.api.getLogicalId(deferredFn.node.defaultChild as never);
  const mapping = only(
    'settle-deferred stream mapping',
    Object.values(api).find((r) => r.Type === 'AWS::Lambda::EventSourceMapping' && JSON.stringify(r.Properties.FunctionName).includes(deferredId)),
  );
  const [credits] = (Object.values(s.templates.data.findResources('AWS::DynamoDB::Table')) as Resource[]).filter((t) => t.Properties.GlobalSecondaryIndexes);
  const projectionOf = (name: string) =>
    (credits!.Properties.GlobalSecondaryIndexes as Array<{ IndexName: string; Projection: { ProjectionType: DeploySettings['watchIndexProjection'] } }>).find(
      (i) => i.IndexName === name,
    )!.Projection.ProjectionType;
  return {
    stageRateLimit: stage.Properties.DefaultRouteSettings.ThrottlingRateLimit,
    stageBurstLimit: stage.Properties.DefaultRouteSettings.ThrottlingBurstLimit,
    routeMemoryMb: fn(s.api.functions.get('price')!).MemorySize,
    settler: {
      everyMinutes: Number(minutes),
      timeoutSeconds: fn(s.api.batchSettler).Timeout,
      memoryMb: fn(s.api.batchSettler).MemorySize,
      pageSize: settlerEnv(SETTLE_PASS_ENV.pageSize),
      claimConcurrency: settlerEnv(SETTLE_PASS_ENV.claimConcurrency),
      closeConcurrency: settlerEnv(SETTLE_PASS_ENV.closeConcurrency),
    },
    deferred: { memoryMb: fn(deferredFn).MemorySize, batchSize: mapping.Properties.BatchSize, parallelizationFactor: mapping.Properties.ParallelizationFactor },
    watchIndexProjection: projectionOf('gsi1'),
    salesIndexProjection: projectionOf('gsi2'),
    edge: Object.values(api).some((r) => r.Type === 'AWS::CloudFront::Distribution'),
  };
};

const sizes = (): ItemSizes => JSON.parse(readFileSync(new URL('./capacity/measured-item-sizes.json', import.meta.url), 'utf8')) as ItemSizes;

/** The loads of all three lanes at once (the stage and the account quotas are shared). */
const combined = (rate: number, s: DeploySettings, z: ItemSizes): LaneLoad => {
  const loads = LANES.map((l) => laneLoad(l, rate, s, z));
  const batch = laneLoad('x402-batch', rate, s, z);
  return {
    requestsPerSecond: loads.reduce((n, l) => n + l.requestsPerSecond, 0),
    concurrency: loads.reduce((n, l) => n + l.concurrency, 0),
    tableWcu: loads.reduce((n, l) => n + l.tableWcu, 0),
    tableRcu: loads.reduce((n, l) => n + l.tableRcu, 0),
    hottest: loads.map((l) => l.hottest).sort((a, b) => b.wcu - a.wcu)[0]!,
    settlerPassSeconds: batch.settlerPassSeconds!,
    settlerOpenSalesMb: batch.settlerOpenSalesMb!,
    // the deferred worker's stream has a shard per partition of the table all three lanes write
    ...((d) => ({
      deferredConcurrency: d.concurrency,
      deferredClaimsPerSecond: d.claimsPerSecond,
      deferredCapacityPerSecond: d.capacityPerSecond,
      deferredShardsNeeded: d.shardsNeeded,
    }))(
      deferredWorker(
        rate,
        loads.reduce((n, l) => n + l.tableWcu, 0),
        s,
      ),
    ),
  };
};

interface Row {
  lane: Lane | 'all three';
  rate: number;
  load: LaneLoad;
  /** First limit reached with the account's default quotas. */
  firstLimit: string | null;
  /** First limit reached once the listed quotas are raised (a setting or a hard limit). */
  firstHardLimit: string | null;
  quotasToRaise: Array<{ name: string; needed: number }>;
  usdPerMillion?: number;
}

const rowsOf = (s: DeploySettings, z: ItemSizes): Row[] =>
  RATES.flatMap((rate) =>
    [...LANES, 'all three' as const].map((lane) => {
      const load = lane === 'all three' ? combined(rate, s, z) : laneLoad(lane, rate, s, z);
      const checks = limitsOf(load, s);
      const hit = checks.filter((c) => c.use >= 1);
      return {
        lane,
        rate,
        load,
        firstLimit: hit[0]?.limit ?? null,
        firstHardLimit: hit.find((c) => !c.quota)?.limit ?? null,
        quotasToRaise: hit.filter((c) => c.quota).map((c) => ({ name: c.quota!, needed: c.needed! })),
        ...(lane === 'all three' ? {} : { usdPerMillion: costPerMillion(lane, s, z).usd }),
      };
    }),
  );

const main = () => {
  const { values } = parseArgs({ options: { json: { type: 'boolean' } } });
  const s = settingsFromTemplates();
  const z = sizes();
  const rows = rowsOf(s, z);
  if (values.json) {
    console.log(JSON.stringify({ settings: s, itemSizes: z, assumed: ASSUMED, rows }, null, 2));
    return;
  }
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  console.log('Capacity of the prod stage (synthesized template + measured item sizes)');
  console.log(
    `settings: stage throttle ${n(s.stageRateLimit)}/s (burst ${n(s.stageBurstLimit)}); route functions ${s.routeMemoryMb} MB; settler every ${s.settler.everyMinutes} min, timeout ${s.settler.timeoutSeconds} s, ${s.settler.memoryMb} MB; index projections watch ${s.watchIndexProjection}, sales ${s.salesIndexProjection}; edge (CloudFront + WAF) ${s.edge ? 'on' : 'off'}`,
  );
  console.log(
    `item sizes (bytes): ${Object.entries(z)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  console.log('');
  console.log(
    'calls/s  lane        requests/s  Lambda conc.  table WCU/s  hottest key WCU/s  first limit hit (default quotas)  first limit after raising quotas  USD per 1M calls',
  );
  for (const r of rows) {
    console.log(
      [
        n(r.rate).padStart(7),
        r.lane.padEnd(10),
        n(r.load.requestsPerSecond).padStart(10),
        n(r.load.concurrency).padStart(12),
        n(r.load.tableWcu).padStart(11),
        n(r.load.hottest.wcu).padStart(17),
        (r.firstLimit ?? 'none').padEnd(32),
        (r.firstHardLimit ?? 'none').padEnd(32),
        r.usdPerMillion === undefined ? '' : r.usdPerMillion.toFixed(2).padStart(8),
      ].join('  '),
    );
  }
  console.log('');
  const st = s.settler;
  console.log(
    `batch settler pass (page ${n(st.pageSize)} sales, ${st.claimConcurrency} claim transactions and ${st.closeConcurrency} closings in flight; budget ${Math.min(st.everyMinutes * 60, st.timeoutSeconds - ASSUMED.settlerStopMarginSeconds)} s):`,
  );
  for (const rate of RATES) {
    const p = settlerPass(rate, s);
    console.log(
      `  ${n(rate).padStart(6)} batch calls/s: ${p.seconds.toFixed(0)} s (claims ${p.parts.claimS.toFixed(0)} s, closings ${p.parts.closeS.toFixed(0)} s, stamp scan ${p.parts.scanS.toFixed(0)} s), holds ${p.heldMb.toFixed(0)} MB`,
    );
  }
  const d = s.deferred;
  console.log(
    `deferred exact settle worker (${(ASSUMED.exactDeferredShare * 100).toFixed(0)}% of exact calls; stream batches of ${d.batchSize}, ${d.parallelizationFactor} per shard, ${d.memoryMb} MB):`,
  );
  for (const rate of RATES) {
    const l = laneLoad('x402-exact', rate, s, z);
    console.log(
      `  ${n(rate).padStart(6)} exact calls/s: ${n(l.deferredClaimsPerSecond!)} claims/s, ${n(Math.ceil(l.deferredConcurrency!))} executions, stream shards needed ${l.deferredShardsNeeded} (warm throughput ${n(l.deferredShardsNeeded! * ASSUMED.partitionWcu)} WCU)`,
    );
  }
  const target = rows.filter((r) => r.rate === TARGET);
  const raise = new Map<string, number>();
  for (const r of target) for (const q of r.quotasToRaise) raise.set(q.name, Math.max(raise.get(q.name) ?? 0, q.needed));
  console.log('');
  const met = target.every((r) => r.firstHardLimit === null);
  console.log(`target ${n(TARGET)} paid calls/s per lane (and all three at once): ${met ? 'met' : 'NOT met'} with these account quotas raised:`);
  for (const [name, needed] of raise) console.log(`  - ${name}: at least ${n(needed * 1.25)} (need ${n(needed)}, +25% headroom)`);
  if (!raise.size) console.log('  (none: the defaults hold it)');
  console.log('');
  console.log('cost per million calls by part (USD):');
  for (const lane of LANES) {
    const c = costPerMillion(lane, s, z);
    console.log(
      `  ${lane.padEnd(10)} ${c.usd.toFixed(2)}: ${Object.entries(c.parts)
        .map(([k, v]) => `${k} ${v.toFixed(3)}`)
        .join(', ')}`,
    );
  }
  console.log('');
  console.log('assumed (list prices us-east-1, 2025; latencies from the README benchmark; default quotas):');
  console.log(
    `  USD per million: ${Object.entries(ASSUMED.usdPerMillion)
      .map(([k, v]) => `${k} ${v}`)
      .join(
        ', ',
      )}; Lambda arm64 ${ASSUMED.usdPerGbSecondArm}/GB-s; logs ${ASSUMED.usdPerGbLogs}/GB ingested (${ASSUMED.logBytesPerRequest} B per request); X-Ray ${ASSUMED.xraySampled * 100}% sampled`,
  );
  console.log(
    `  function time per request (ms): ${Object.entries(ASSUMED.functionMs)
      .map(([k, v]) => `${k} ${v}`)
      .join(
        ', ',
      )}; ${ASSUMED.exactDeferredShare * 100}% of exact calls deferred, settled in ${ASSUMED.deferredSettleMs} ms; settler: closing transaction ${ASSUMED.settleCloseTransactionMs} ms per 50 sales, claim transaction ${ASSUMED.settleClaimTransactionMs} ms per 100 channels, page query ${ASSUMED.settlePageQueryMs} ms + ${ASSUMED.settlePageItemMs} ms per sale, ${ASSUMED.batchCallsPerChannelPerSecond} batch call/s per channel`,
  );
  console.log(
    `  default quotas: ${Object.values(ASSUMED.quotas)
      .map((q) => `${q.name} ${n(q.default)}`)
      .join('; ')}`,
  );
  console.log(
    "  not counted: the facilitator's fees (CDP charges per settlement after a free tier), gas, data transfer out, fixed monthly costs (WAF ACL and rules, alarms, dashboard, secrets)",
  );
  process.exitCode = met ? 0 : 1;
};

export { settingsFromTemplates, rowsOf, sizes, TARGET };

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) main();
