/**
 * Alarms and the dashboard. They read the business metrics the code emits (names and the
 * `service` dimension Powertools adds in shared/observability/metrics.ts, namespace
 * CommodityData/<stage>) and the metrics AWS keeps for API Gateway, Lambda and SQS. Every alarm
 * notifies the stage's alarm topic (DataStack.alarmTopic) when it fires and when it recovers.
 */
import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TableSummaryColumn,
  TableWidget,
  TextWidget,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { METRIC, METRIC_SERVICE } from '../../shared/observability/metrics';
import { BATCH_METRIC } from '../../shared/payment/batch/settle-metrics';
import { LANE_IDS } from '../../shared/payment/lane';
import type { SourceDef } from '../../shared/sources/types';

/** Minutes between freshness checks (functions/source-freshness.ts); a stale alarm looks at the last hour of them. */
const FRESHNESS_CHECK_EVERY_MINUTES = 15;
const STALE_PERIOD = Duration.hours(1);

type Service = (typeof METRIC_SERVICE)[keyof typeof METRIC_SERVICE];

/** A business metric exactly as Powertools emits it: its name, the service dimension and the point's own dimensions. */
const business = (namespace: string, service: Service, name: string, dimensions: Record<string, string> = {}, period = Duration.minutes(5)): Metric =>
  new Metric({ namespace, metricName: name, dimensionsMap: { service, ...dimensions }, statistic: 'Sum', period });

const pascal = (s: string): string => s.replace(/(^|[-_])(\w)/g, (_m, _sep, c: string) => c.toUpperCase());

/** Every alarm notifies the topic on ALARM and on OK (the recovery is news too). */
const notify = (alarm: Alarm, topic: ITopic): Alarm => {
  const action = new SnsAction(topic);
  alarm.addAlarmAction(action);
  alarm.addOkAction(action);
  return alarm;
};

interface AlarmSpec {
  description: string;
  metric: IMetric;
  threshold: number;
  periods?: number;
  comparison?: ComparisonOperator;
  missing?: TreatMissingData;
}

const alarm = (scope: Construct, id: string, topic: ITopic, s: AlarmSpec): Alarm =>
  notify(
    new Alarm(scope, id, {
      alarmDescription: s.description,
      metric: s.metric,
      threshold: s.threshold,
      evaluationPeriods: s.periods ?? 1,
      comparisonOperator: s.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // No data is no trouble, unless the metric's absence is the trouble (stated per alarm).
      treatMissingData: s.missing ?? TreatMissingData.NOT_BREACHING,
    }),
    topic,
  );

/** A function failed (an unhandled error, a timeout, a crash at start): the handlers map every expected error to an answer. */
const errorsAlarm = (scope: Construct, id: string, topic: ITopic, fn: IFunction, what: string): Alarm =>
  alarm(scope, id, topic, {
    description: `${what}: the Lambda function failed (Errors >= 1 in 5 minutes); its log group says why`,
    metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
    threshold: 1,
  });

interface ApiAlarmOptions {
  api: HttpApi;
  namespace: string;
  topic: ITopic;
  /** The route-family functions, by family. */
  functions: ReadonlyMap<string, IFunction>;
  reconciler: IFunction;
  /** Claims and settles batch-settlement vouchers: money earned but not yet on chain. */
  batchSettler: IFunction;
}

/** API side: server errors, failed functions, and payments that stay unresolved or a reconciler that stopped. */
const addApiAlarms = (scope: Construct, o: ApiAlarmOptions): Alarm[] => [
  alarm(scope, 'Api5xxAlarm', o.topic, {
    description: 'The API answered 5xx (API Gateway): a store outage, a facilitator outage or a bug',
    metric: o.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
    threshold: 5,
  }),
  ...[...o.functions].map(([family, fn]) => errorsAlarm(scope, `${pascal(family)}FunctionErrorsAlarm`, o.topic, fn, `${family} routes`)),
  // The reconciler moves money that is in doubt (payments settled on chain but not yet recorded):
  // any failure of it, or its schedule going quiet, is worth a page.
  errorsAlarm(scope, 'ReconcilerErrorsAlarm', o.topic, o.reconciler, 'x402 reconciler'),
  errorsAlarm(scope, 'BatchSettlerErrorsAlarm', o.topic, o.batchSettler, 'x402 batch settler'),
  alarm(scope, 'ReconcilerNotRunningAlarm', o.topic, {
    description: 'The x402 reconciler has not run for 10 minutes (it runs every minute): pending payments are not being resolved',
    metric: o.reconciler.metricInvocations({ period: Duration.minutes(5), statistic: 'Sum' }),
    threshold: 1,
    periods: 2,
    comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
    missing: TreatMissingData.BREACHING,
  }),
  // The reconciler runs every minute; a payment still open after three passes over 15 minutes is
  // older than any request budget: look at the chain and the facilitator.
  alarm(scope, 'PendingSettlementsAlarm', o.topic, {
    description: 'x402 payments still PENDING/SETTLING after reconciliation for 15 minutes',
    metric: business(o.namespace, METRIC_SERVICE.api, METRIC.pendingAfterReconcile).with({ statistic: 'Minimum' }),
    threshold: 1,
    periods: 3,
  }),
];

interface IngestAlarmOptions {
  failures: IQueue;
  namespace: string;
  topic: ITopic;
  sources: readonly SourceDef[];
  freshnessCheck: IFunction;
}

/**
 * Ingestion side. A run that fails (or is skipped for a missing key) throws, is retried twice and
 * lands in the failure queue: that queue's alarm is the ingestion functions' error alarm (an Errors
 * alarm per function would page twice for one failed run). Each source has a stale alarm on the
 * freshness check's SourceStale, and the check has its own Errors alarm.
 */
const addIngestAlarms = (scope: Construct, o: IngestAlarmOptions): Alarm[] => [
  // New failures, not the queue's depth: a message left in the queue (kept 14 days) would hold the
  // alarm in ALARM and every later failure would page no one. Lambda's failure destination and the
  // scheduler's dead-letter queue both send with SendMessage, which NumberOfMessagesSent counts.
  // Reading, replaying and draining the queue: README, operator runbook.
  alarm(scope, 'IngestFailuresAlarm', o.topic, {
    description:
      'An ingestion run failed or was skipped (missing API key) after its retries and landed in the IngestFailures queue (a new message in 5 minutes); runbook: read, re-run, drain',
    metric: o.failures.metricNumberOfMessagesSent({ period: Duration.minutes(5), statistic: 'Sum' }),
    threshold: 1,
  }),
  errorsAlarm(scope, 'SourceFreshnessErrorsAlarm', o.topic, o.freshnessCheck, 'source freshness check'),
  // Stale by the rule GET /health applies. No point in the last hour means the check stopped: that
  // is no proof of freshness, so it counts as stale.
  ...o.sources.map((s) =>
    alarm(scope, `Stale${pascal(s.id)}Alarm`, o.topic, {
      description: `${s.id} is stale (GET /health): no successful run within ${s.maxAgeHours} h, or its newest figure is older than its cadence allows`,
      metric: business(o.namespace, METRIC_SERVICE.ingest, METRIC.sourceStale, { source: s.id }, STALE_PERIOD).with({ statistic: 'Maximum' }),
      threshold: 1,
      missing: TreatMissingData.BREACHING,
    }),
  ),
];

/** One dashboard: calls and money by lane, payments pending, ingestion, errors. */
const addDashboard = (scope: Construct, o: { name: string; namespace: string; api: HttpApi }): Dashboard => {
  const m = (name: string, dims?: Record<string, string>, statistic = 'Sum') => business(o.namespace, METRIC_SERVICE.api, name, dims).with({ statistic });
  // Per-source metrics, whatever sources exist: a SEARCH over the source dimension (with the service's, which every point has).
  const perSource = (name: string, stat = 'Sum') =>
    new MathExpression({
      expression: `SEARCH('{${o.namespace},service,source} service="${METRIC_SERVICE.ingest}" MetricName="${name}"', '${stat}', 3600)`,
      label: name,
      period: Duration.hours(1),
    });
  // Money per lane and route, whatever routes exist: a SEARCH over the {service, lane, route} dimension set.
  const perRoute = (name: string) =>
    new MathExpression({
      expression: `SEARCH('{${o.namespace},lane,route,service} service="${METRIC_SERVICE.api}" MetricName="${name}"', 'Sum', 3600)`,
      label: name,
      period: Duration.hours(1),
    });
  // "What did we earn today, per route and lane": each row a lane and route, its sum over the time range.
  const perRouteTable = (title: string, name: string) =>
    new TableWidget({
      title,
      metrics: [perRoute(name)],
      summary: { columns: [TableSummaryColumn.SUM], hideNonSummaryColumns: true },
      setPeriodToTimeRange: true,
      width: 8,
      height: 8,
    });
  return new Dashboard(scope, 'Dashboard', {
    dashboardName: o.name,
    widgets: [
      [new TextWidget({ markdown: `# ${o.name}\nBusiness metrics in \`${o.namespace}\`; alarms in this stack and the ingest stack.`, width: 24, height: 2 })],
      [
        new GraphWidget({ title: 'Paid calls by lane', left: LANE_IDS.map((lane) => m(METRIC.paidCalls, { lane })), width: 8 }),
        new GraphWidget({ title: 'Revenue: USDC atomic (x402), credits (Pro)', left: [m(METRIC.revenueAtomic)], right: [m(METRIC.creditsDebited)], width: 8 }),
        new GraphWidget({
          title: '402s issued, settlements, pending',
          left: [
            new MathExpression({
              expression: `SEARCH('{${o.namespace},family,service} MetricName="${METRIC.paymentRequired}"', 'Sum', 300)`,
              label: METRIC.paymentRequired,
              period: Duration.minutes(5),
            }),
            m(METRIC.settlements),
            m(METRIC.settlementsPending),
            m(METRIC.pendingAfterReconcile),
          ],
          width: 8,
        }),
      ],
      [
        perRouteTable('Revenue by lane and route (USDC atomic, sum over the range)', METRIC.revenueAtomic),
        perRouteTable('Credits by lane and route (Pro, sum over the range)', METRIC.creditsDebited),
        perRouteTable('Paid calls by lane and route (sum over the range)', METRIC.paidCalls),
      ],
      [
        new GraphWidget({
          title: 'Batch settler per pass: vouchers claimed, refunds, failures, passes stopped short',
          left: [m(BATCH_METRIC.claimed), m(BATCH_METRIC.refunded), m(BATCH_METRIC.failed), m(BATCH_METRIC.stopped)],
          width: 12,
        }),
        new GraphWidget({
          title: 'Batch backlog: open sales and their oldest age (s)',
          left: [m(BATCH_METRIC.backlogSales, undefined, 'Maximum')],
          right: [m(BATCH_METRIC.backlogOldestSeconds, undefined, 'Maximum')],
          width: 12,
        }),
      ],
      [
        new GraphWidget({
          title: 'API 4xx / 5xx',
          left: [o.api.metricClientError({ period: Duration.minutes(5) }), o.api.metricServerError({ period: Duration.minutes(5) })],
          width: 12,
        }),
        new GraphWidget({
          title: 'Ingestion by source: runs succeeded, failed, prices quarantined, stale',
          left: [perSource(METRIC.ingestOk), perSource(METRIC.ingestFailed), perSource(METRIC.quarantined), perSource(METRIC.sourceStale, 'Maximum')],
          width: 12,
        }),
      ],
    ],
  });
};

export { addApiAlarms, addIngestAlarms, addDashboard, FRESHNESS_CHECK_EVERY_MINUTES };
