/**
 * Alarms and the dashboard. They read the business metrics the code emits (names in
 * shared/observability/metrics.ts, namespace CommodityData/<stage>) and the metrics AWS keeps for
 * API Gateway, Lambda and SQS. An alarm has no action yet: subscribe an SNS topic or a chat
 * integration per account (see the README).
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
  TextWidget,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { METRIC } from '../../shared/observability/metrics';
import type { SourceDef } from '../../shared/sources/types';

/** CloudWatch evaluates an alarm over at most 7 days; stale-source alarms use 6-hour periods. */
const MAX_EVALUATED_HOURS = 168;
const STALE_PERIOD_HOURS = 6;

const business = (namespace: string, name: string, dimensions: Record<string, string> = {}, period = Duration.minutes(5)): Metric =>
  new Metric({ namespace, metricName: name, dimensionsMap: dimensions, statistic: 'Sum', period });

/** An alarm when `metric` reaches `threshold` in each of `periods` periods; no data is no trouble. */
const atLeast = (scope: Construct, id: string, description: string, metric: IMetric, threshold: number, periods = 1): Alarm =>
  new Alarm(scope, id, {
    alarmDescription: description,
    metric,
    threshold,
    evaluationPeriods: periods,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });

/** API side: server errors and payments that stay unresolved. */
const addApiAlarms = (scope: Construct, o: { api: HttpApi; namespace: string }): Alarm[] => [
  atLeast(
    scope,
    'Api5xxAlarm',
    'The API answered 5xx (API Gateway): a store outage, a facilitator outage or a bug',
    o.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
    5,
  ),
  // The reconciler runs every minute; a payment still open after three passes over 15 minutes is
  // older than any request budget: look at the chain and the facilitator.
  atLeast(
    scope,
    'PendingSettlementsAlarm',
    'x402 payments still PENDING/SETTLING after reconciliation for 15 minutes',
    business(o.namespace, METRIC.pendingAfterReconcile).with({ statistic: 'Minimum' }),
    1,
    3,
  ),
];

/** Ingestion side: failed runs (the failure queue) and sources without a success in their cadence. */
const addIngestAlarms = (scope: Construct, o: { failures: IQueue; namespace: string; sources: readonly SourceDef[] }): Alarm[] => [
  atLeast(
    scope,
    'IngestFailuresAlarm',
    'An ingestion run failed after its retries and landed in the IngestFailures queue',
    o.failures.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
    1,
  ),
  // Stale source: no successful run within its max age (cadence plus grace); no data counts as stale.
  // CloudWatch evaluates at most 7 days, so sources with a longer cadence (monthly, annual) are
  // watched through GET /health and the failure queue only.
  ...o.sources
    .filter((s) => s.maxAgeHours <= MAX_EVALUATED_HOURS)
    .map(
      (s) =>
        new Alarm(scope, `Stale${s.id.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase())}Alarm`, {
          alarmDescription: `${s.id}: no successful ingestion run within ${s.maxAgeHours} h (GET /health shows it stale)`,
          metric: business(o.namespace, METRIC.ingestOk, { source: s.id }, Duration.hours(STALE_PERIOD_HOURS)),
          threshold: 1,
          evaluationPeriods: Math.ceil(s.maxAgeHours / STALE_PERIOD_HOURS),
          datapointsToAlarm: Math.ceil(s.maxAgeHours / STALE_PERIOD_HOURS),
          comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
          treatMissingData: TreatMissingData.BREACHING,
        }),
    ),
];

/** One dashboard: calls and money by lane, payments pending, ingestion, errors. */
const addDashboard = (scope: Construct, o: { name: string; namespace: string; api: HttpApi }): Dashboard => {
  const m = (name: string, dims?: Record<string, string>) => business(o.namespace, name, dims);
  // Per-source metrics, whatever sources exist: a SEARCH over the source dimension.
  const perSource = (name: string) =>
    new MathExpression({ expression: `SEARCH('{${o.namespace},source} MetricName="${name}"', 'Sum', 3600)`, label: name, period: Duration.hours(1) });
  return new Dashboard(scope, 'Dashboard', {
    dashboardName: o.name,
    widgets: [
      [new TextWidget({ markdown: `# ${o.name}\nBusiness metrics in \`${o.namespace}\`; alarms in this stack and the ingest stack.`, width: 24, height: 2 })],
      [
        new GraphWidget({ title: 'Paid calls by lane', left: [m(METRIC.paidCalls, { lane: 'x402' }), m(METRIC.paidCalls, { lane: 'pro' })], width: 8 }),
        new GraphWidget({ title: 'Revenue: USDC atomic (x402), credits (Pro)', left: [m(METRIC.revenueAtomic)], right: [m(METRIC.creditsDebited)], width: 8 }),
        new GraphWidget({
          title: '402s issued, settlements, pending',
          left: [m(METRIC.paymentRequired), m(METRIC.settlements), m(METRIC.settlementsPending), m(METRIC.pendingAfterReconcile)],
          width: 8,
        }),
      ],
      [
        new GraphWidget({
          title: 'API 4xx / 5xx',
          left: [o.api.metricClientError({ period: Duration.minutes(5) }), o.api.metricServerError({ period: Duration.minutes(5) })],
          width: 12,
        }),
        new GraphWidget({
          title: 'Ingestion by source: runs succeeded, failed, prices quarantined',
          left: [perSource(METRIC.ingestOk), perSource(METRIC.ingestFailed), perSource(METRIC.quarantined)],
          width: 12,
        }),
      ],
    ],
  });
};

export { addApiAlarms, addIngestAlarms, addDashboard };
