/**
 * Alarms that see and notify. The stage is synthesized; then the Lambda entries that emit business
 * metrics in production (functions/reconcile-payments.ts, functions/ingest.ts,
 * functions/source-freshness.ts) run with the environment their synthesized function gets (tables
 * on the embedded store), Powertools writes its embedded-metric-format lines to stdout, and those
 * lines are captured and parsed. Every alarm on a business metric must name a metric that was
 * emitted (namespace, name, and the exact dimension set with its values, `service` included), every
 * alarm on an AWS metric must point at a resource of the stage, and every alarm notifies the topic.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { countRefusal, countSettlement } from '../../shared/payment/payment-metrics';
import { emitSettleMetrics } from '../../shared/payment/batch/settle-metrics';
import type { Grant, Refusal, SettleOutcome } from '../../shared/payment/lane';
import { PaymentError } from '../../shared/errors/errors';
import { SettlementPendingError } from '../../shared/payment/errors';
import { loadConfig } from '../../shared/config';
import { ENV } from '../../shared/config/env-keys';
import { METRIC } from '../../shared/observability/metrics';
import { createServices } from '../../shared/services';
import { SOURCES } from '../../shared/sources/registry';
import { startTestStore, type TestStore } from '../helpers/store';
import { ACCESS_LOG_METRIC } from '../../infra/stacks/operations-alarms';
import { logicalId, PAY_TO, refersTo, synthService, type Synthesized } from './synth';

/** One metric point of an EMF line: namespace, name, dimension names and their values. */
interface EmfPoint {
  namespace: string;
  name: string;
  dimensions: Record<string, string>;
  value: unknown;
}

/** Parses the EMF documents among captured stdout writes (Powertools prints one JSON document per line). */
const emfPoints = (writes: string[]): EmfPoint[] =>
  writes
    .flatMap((w) => w.split('\n'))
    .filter((line) => line.includes('"_aws"'))
    .flatMap((line) => {
      const doc = JSON.parse(line) as Record<string, any>;
      return (doc._aws.CloudWatchMetrics as Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }>).flatMap((d) =>
        d.Metrics.flatMap((m) =>
          d.Dimensions.map((set) => ({
            namespace: d.Namespace,
            name: m.Name,
            dimensions: Object.fromEntries(set.map((k) => [k, String(doc[k])])),
            value: doc[m.Name],
          })),
        ),
      );
    });

/** Runs `fn` with stdout captured; returns what was written. */
const captureStdout = async (fn: () => Promise<unknown>): Promise<string[]> => {
  const writes: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    writes.push(String(chunk));
    return true;
  });
  try {
    await fn().catch(() => undefined); // a failed ingestion run throws by design; its metrics are what is looked at
  } finally {
    spy.mockRestore();
  }
  return writes;
};

const NAMESPACE = 'CommodityData/staging';
/** The functions run on the real clock (their entries take no other); yesterday's rate is fresh whatever the date. */
const YESTERDAY = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
type Templates = Synthesized['templates'];
const alarmsOf = (t: Templates[keyof Templates]) => Object.entries(t.findResources('AWS::CloudWatch::Alarm')) as Array<[string, any]>;

describe('alarms (staging)', () => {
  let s: Synthesized;
  let store: TestStore;
  const emitted: EmfPoint[] = [];

  /** The environment CDK gives a function, its table names replaced by the embedded store's (deploy-time tokens otherwise). */
  const envOfFunction = (template: Templates[keyof Templates], id: string, drop: string[] = []): Record<string, string> => {
    const vars = template.toJSON().Resources[id].Properties.Environment.Variables as Record<string, unknown>;
    const literal = Object.fromEntries(Object.entries(vars).filter((e): e is [string, string] => typeof e[1] === 'string' && !drop.includes(e[0])));
    return {
      ...literal,
      // Deploy-time tokens (the HTTP API's endpoint) stood in by a value.
      ...(vars[ENV.PUBLIC_BASE_URL] !== undefined && typeof vars[ENV.PUBLIC_BASE_URL] !== 'string'
        ? { [ENV.PUBLIC_BASE_URL]: 'https://abc123.execute-api.us-east-1.amazonaws.com' }
        : {}),
      [ENV.OBSERVATIONS_TABLE]: store.config.OBSERVATIONS_TABLE,
      [ENV.CREDITS_TABLE]: store.config.CREDITS_TABLE,
      [ENV.DYNAMODB_ENDPOINT]: store.config.DYNAMODB_ENDPOINT!,
      [ENV.AWS_REGION]: 'us-east-1',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    };
  };

  /** Imports a Lambda entry afresh (its cold-start services) with the function's environment, and invokes it. */
  const invokeEntry = async (entry: string, env: Record<string, string>, event: unknown = {}) => {
    const saved = { ...process.env };
    process.env = { ...saved, ...env };
    try {
      vi.resetModules();
      const mod = (await import(`../../functions/${entry}.ts`)) as { handler: (e: unknown) => Promise<unknown> };
      emitted.push(...emfPoints(await captureStdout(() => mod.handler(event))));
    } finally {
      process.env = saved;
    }
  };

  beforeAll(async () => {
    s = synthService({ stage: 'staging', payTo: PAY_TO, alarmEmail: 'ops@example.com' });
    store = await startTestStore();

    // The reconciler: one pass over an empty pending index (no chain call) reports 0 still open.
    await invokeEntry('reconcile-payments', envOfFunction(s.templates.api, logicalId(s.api, s.api.reconciler)));

    // Ingestion: fred (keyless) live, its publisher answered by a stub of the global fetch; eia-spot with no
    // key (the secret's ARN left out): a skipped run.
    // One implausible rate (500 CNY per USD, outside its band) is quarantined: PricesQuarantined.
    vi.stubGlobal('fetch', async (url: string) => {
      const id = ['DEXUSEU', 'DEXCHUS', 'DTWEXBGS'].find((x) => String(url).includes(x))!;
      return new Response(`observation_date,${id}\n${YESTERDAY},${id === 'DEXCHUS' ? 500 : 1.0842}\n`);
    });
    try {
      await invokeEntry('ingest', envOfFunction(s.templates.ingest, logicalId(s.ingest, s.ingest.functions.get('fred')!)), { source: 'fred' });
    } finally {
      vi.unstubAllGlobals();
    }
    await invokeEntry('ingest', envOfFunction(s.templates.ingest, logicalId(s.ingest, s.ingest.functions.get('eia-spot')!), [ENV.SOURCE_KEYS_SECRET_ARN]), {
      source: 'eia-spot',
    });

    // The freshness check, over what the runs above left: fred fresh, the rest stale.
    await invokeEntry('source-freshness', envOfFunction(s.templates.ingest, logicalId(s.ingest, s.ingest.freshnessCheck)));

    // A paid call's metrics through the functions both payment adapters call, on the sink the services build.
    const { metrics } = createServices(loadConfig(envOfFunction(s.templates.api, logicalId(s.api, s.api.functions.get('price')!))));
    emitted.push(
      ...emfPoints(
        await captureStdout(async () => {
          countRefusal(metrics, { error: new PaymentError('PAYMENT_REQUIRED', 'pay') } as Refusal, 'price');
          const settled: SettleOutcome = { type: 'settled', receipt: {} };
          countSettlement(metrics, { lane: 'x402-exact', callId: 'c1', mode: 'settle', amount: '10000' } as Grant, settled, {}, 'GET /v1/price/{code}');
          countSettlement(metrics, { lane: 'pro', callId: 'c2', usage: { credits: 1 } } as Grant, settled, {}, 'GET /v1/history/{code}');
          countSettlement(metrics, { lane: 'x402-batch', callId: 'c4', batch: { amount: '10000' } } as Grant, settled, {}, 'GET /v1/price/{code}');
          countSettlement(metrics, { lane: 'x402-exact', callId: 'c3', mode: 'settle' } as Grant, {
            type: 'refused',
            refusal: { error: new SettlementPendingError('pending') },
          });
          metrics.publish();
          // The batch settler's pass metrics (functions/settle-batches.ts emits them on its services' sink).
          const settler = createServices(loadConfig(envOfFunction(s.templates.api, logicalId(s.api, s.api.batchSettler)))).metrics;
          emitSettleMetrics(
            settler,
            {
              synced: 0,
              recovered: 0,
              claims: [{ vouchers: 3, transaction: '0xa' }],
              claimFailures: [],
              claimsDeferred: 0,
              refunds: [],
              refundFailures: 1,
              settlements: [],
              stamped: 3,
              open: 1,
              cursor: 1n,
              stopped: false,
            },
            { sales: 1, atomic: 10_000n, oldestSeconds: 120 },
          );
        }),
      ),
    );
  }, 120_000);
  afterAll(() => store?.close());

  it('captured the production metrics, service dimension included', () => {
    expect(emitted.find((p) => p.name === METRIC.pendingAfterReconcile)).toEqual({
      namespace: NAMESPACE,
      name: METRIC.pendingAfterReconcile,
      dimensions: { service: 'commodity-data' },
      value: 0,
    });
    expect(emitted.filter((p) => p.name === METRIC.sourceStale)).toHaveLength(SOURCES.length);
    expect(emitted.find((p) => p.name === METRIC.sourceStale && p.dimensions.source === 'fred')?.value).toBe(0);
    expect(emitted.find((p) => p.name === METRIC.sourceStale && p.dimensions.source === 'eia-spot')?.value).toBe(1);
  });

  it('counts a run skipped for a missing API key as failed, never as succeeded', () => {
    const runs = emitted.filter((p) => p.name === METRIC.ingestOk || p.name === METRIC.ingestFailed);
    expect(runs.map((p) => [p.name, p.dimensions.source])).toEqual([
      [METRIC.ingestOk, 'fred'],
      [METRIC.ingestFailed, 'eia-spot'],
    ]);
  });

  it('every alarm on a business metric reads a metric the code emits: namespace, name, dimension names and values', () => {
    // Access-log counts (metric filters, test/infra/capacity-stack.test.ts) share the namespace; the code emits the rest.
    const accessLogCounts: string[] = Object.values(ACCESS_LOG_METRIC);
    const business = [...alarmsOf(s.templates.api), ...alarmsOf(s.templates.ingest)].filter(
      ([, a]) => a.Properties.Namespace === NAMESPACE && !accessLogCounts.includes(a.Properties.MetricName),
    );
    // the pending-settlement alarm, the batch settler's failures, passes stopped short and backlog age, one stale alarm per source, and the deferred-loss alarm
    expect(business).toHaveLength(1 + 3 + SOURCES.length + 1);
    // The deferred settle worker's loss count is captured by test/payment/deferred.test.ts (a planted drain on the local chain).
    for (const [id, a] of business.filter(([, a]) => a.Properties.MetricName !== METRIC.deferredLossAtomic)) {
      const want = Object.fromEntries((a.Properties.Dimensions as Array<{ Name: string; Value: string }>).map((d) => [d.Name, d.Value]));
      const match = emitted.find((p) => p.namespace === a.Properties.Namespace && p.name === a.Properties.MetricName && sameDimensions(p.dimensions, want));
      expect(match, `${id}: ${a.Properties.MetricName} ${JSON.stringify(want)} was never emitted`).toBeDefined();
    }
    const stale = business.filter(([, a]) => a.Properties.MetricName === METRIC.sourceStale).map(([, a]) => a.Properties);
    expect(stale.map((a) => a.Dimensions.find((d: any) => d.Name === 'source').Value).sort()).toEqual(SOURCES.map((x) => x.id).sort());
    for (const a of stale) {
      // fires within the hour a source turns stale (the check runs every 15 minutes); a silent check counts as stale
      expect(a).toMatchObject({ Period: 3600, EvaluationPeriods: 1, Statistic: 'Maximum', Threshold: 1, TreatMissingData: 'breaching' });
      expect(a.ComparisonOperator).toBe('GreaterThanOrEqualToThreshold');
    }
  });

  it('every alarm on an AWS metric points at a resource of the stage: each API function, the reconciler (errors and silence), the batch settler, the freshness check, the API, the failure queue', () => {
    const api = alarmsOf(s.templates.api).map(([, a]) => a.Properties);
    const ingest = alarmsOf(s.templates.ingest).map(([, a]) => a.Properties);
    const lambdaAlarms = (list: any[], fnId: string) =>
      list.filter((a) => a.Namespace === 'AWS/Lambda' && a.Dimensions.some((d: any) => d.Name === 'FunctionName' && refersTo(d.Value, fnId)));
    for (const [family, fn] of s.api.functions) {
      expect(
        lambdaAlarms(api, logicalId(s.api, fn)).map((a) => a.MetricName),
        family,
      ).toEqual(['Errors']);
    }
    expect(
      lambdaAlarms(api, logicalId(s.api, s.api.reconciler))
        .map((a) => [a.MetricName, a.ComparisonOperator, a.TreatMissingData])
        .sort(),
    ).toEqual([
      ['Errors', 'GreaterThanOrEqualToThreshold', 'notBreaching'],
      ['Invocations', 'LessThanThreshold', 'breaching'],
    ]);
    expect(lambdaAlarms(ingest, logicalId(s.ingest, s.ingest.freshnessCheck)).map((a) => a.MetricName)).toEqual(['Errors']);
    expect(
      lambdaAlarms(api, logicalId(s.api, s.api.batchSettler))
        .map((a) => [a.MetricName, a.ComparisonOperator, a.TreatMissingData])
        .sort(),
    ).toEqual([
      ['Errors', 'GreaterThanOrEqualToThreshold', 'notBreaching'],
      ['Invocations', 'LessThanThreshold', 'breaching'],
    ]);
    const fiveXx = api.filter((a) => a.Namespace === 'AWS/ApiGateway');
    expect(fiveXx.map((a) => a.MetricName)).toEqual(['5xx']);
    expect(refersTo(fiveXx[0].Dimensions.find((d: any) => d.Name === 'ApiId').Value, logicalId(s.api, s.api.api))).toBe(true);
    // The deferred settle worker: falling behind its stream, and its dead-letter queue.
    const deferredFn = logicalId(s.api, s.api.deferredSettlement.fn);
    expect(lambdaAlarms(api, deferredFn).map((a) => a.MetricName)).toEqual(['IteratorAge']);
    expect(
      api.filter((a) => a.Namespace === 'AWS/SQS' && refersTo(a.Dimensions[0].Value, logicalId(s.api, s.api.deferredSettlement.deadLetterQueue))),
    ).toHaveLength(1);
    // Issue 37: the watches' queues and functions (test/infra/watches.test.ts).
    const watchFns = [s.api.watches!.fanOut, s.api.watches!.delivery].map((fn) => lambdaAlarms(api, logicalId(s.api, fn)).map((a) => a.MetricName));
    expect(watchFns).toEqual([['Errors'], ['Errors']]);
    // the deferred worker's dead letters, and the watches' queue, its dead letters and its age
    expect(api.filter((a) => a.Namespace === 'AWS/SQS')).toHaveLength(1 + 3);
    const queue = ingest.filter((a) => a.Namespace === 'AWS/SQS');
    // new failures (messages sent), not the queue's depth, which an undrained message would hold up
    expect(queue.map((a) => [a.MetricName, a.Statistic])).toEqual([['NumberOfMessagesSent', 'Sum']]);
    expect(refersTo(queue[0].Dimensions[0].Value, logicalId(s.ingest, s.ingest.deadLetterQueue))).toBe(true);
    // nothing else: every alarm is one of the above, or a load alarm (test/infra/capacity-stack.test.ts)
    const load = alarmsOf(s.templates.api).filter(([id]) => /^(Api429|ApiClientErrorRate|LambdaThrottles|DynamoThrottles|RevenueZero)Alarm/.test(id));
    expect(load.length).toBe(1 + 1 + Math.ceil((s.api.functions.size + 2 + 1 + 2) / 10) + 2 + 1);
    expect(api.length + ingest.length - load.length).toBe(s.api.functions.size + 2 + 1 + 1 + 1 + 1 + 1 + 1 + 3 + SOURCES.length + 3 + 5);
  });

  it('every alarm notifies the alarm topic when it fires and when it recovers; the topic mails the given address', () => {
    const topicId = logicalId(s.data, s.data.alarmTopic);
    for (const [name, t] of [
      ['api', s.templates.api],
      ['ingest', s.templates.ingest],
    ] as const) {
      for (const [id, a] of alarmsOf(t)) {
        expect(a.Properties.AlarmActions, `${name}/${id}`).toHaveLength(1);
        expect(refersTo(a.Properties.AlarmActions, topicId, s.templates.data), `${name}/${id}`).toBe(true);
        expect(refersTo(a.Properties.OKActions, topicId, s.templates.data), `${name}/${id}`).toBe(true);
      }
    }
    s.templates.data.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
  });

  it('an existing topic (-c alarmTopicArn) receives every alarm instead', () => {
    const arn = 'arn:aws:sns:us-east-1:123456789012:oncall';
    const t = synthService({ stage: 'staging', payTo: PAY_TO, alarmTopicArn: arn });
    t.templates.data.resourceCountIs('AWS::SNS::Topic', 0);
    for (const [id, a] of [...alarmsOf(t.templates.api), ...alarmsOf(t.templates.ingest)]) expect(a.Properties.AlarmActions, id).toEqual([arn]);
  });

  it('the dashboard reads the metrics the code emits (service dimension included)', () => {
    const body = dashboardBody(s.templates.api);
    const metrics = body.widgets.flatMap((w: any) => w.properties.metrics ?? []) as unknown[][];
    const plain = metrics.filter((m) => typeof m[0] === 'string' && m[0] === NAMESPACE);
    expect(plain.length).toBeGreaterThan(0);
    for (const m of plain) {
      const [, name, ...rest] = m as [string, string, ...unknown[]];
      // [namespace, name, dimension, value, dimension, value, …, {options}]
      const pairs = rest.filter((x): x is string => typeof x === 'string');
      const dims = Object.fromEntries(pairs.flatMap((k, i) => (i % 2 === 0 ? [[k, pairs[i + 1]!]] : [])));
      expect(
        emitted.some((p) => p.namespace === NAMESPACE && p.name === name && sameDimensions(p.dimensions, dims)),
        `${name} ${JSON.stringify(dims)}`,
      ).toBe(true);
    }
    // SEARCH expressions: their dimension schema is exactly the emitted point's dimension names
    const searches = metrics.map((m) => (m[0] as { expression?: string })?.expression).filter((e): e is string => typeof e === 'string');
    expect(searches.length).toBeGreaterThan(0);
    // "What did we earn today, per route and lane": a table per money metric over {lane, route, service}, summed over the range
    for (const name of [METRIC.revenueAtomic, METRIC.creditsDebited, METRIC.paidCalls]) {
      const table = body.widgets.find(
        (w: any) =>
          w.type === 'metric' &&
          w.properties.view === 'table' &&
          JSON.stringify(w.properties.metrics).includes(`lane,route,service} service=\\"commodity-data\\" MetricName=\\"${name}\\"`),
      );
      expect(table, name).toBeDefined();
      expect(table.properties.table).toMatchObject({ summaryColumns: ['SUM'] });
    }
    for (const e of searches) {
      const [, schema, name] = /\{[^,]+,([^}]*)\}.*MetricName="([^"]+)"/.exec(e)!;
      const names = schema!.split(',').sort();
      expect(
        emitted.some((p) => p.namespace === NAMESPACE && p.name === name && Object.keys(p.dimensions).sort().join() === names.join()),
        e,
      ).toBe(true);
    }
  });
});

const sameDimensions = (a: Record<string, string>, b: Record<string, string>): boolean =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v);

/** The dashboard's JSON body, with CloudFormation tokens (ARNs, the region) replaced by placeholders. */
const dashboardBody = (t: Templates['api']): any => {
  const [dashboard] = Object.values(t.findResources('AWS::CloudWatch::Dashboard')) as any[];
  const parts = dashboard.Properties.DashboardBody['Fn::Join'][1] as unknown[];
  return JSON.parse(parts.map((p) => (typeof p === 'string' ? p : 'TOKEN')).join(''));
};
