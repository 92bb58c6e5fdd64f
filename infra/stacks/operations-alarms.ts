/**
 * Alarms of a service under load, beside the error alarms of observability.ts: paying calls
 * refused by a throttle (429 at the stage), client errors that are not the x402 handshake, Lambda
 * and DynamoDB throttling, and money stopping while traffic goes on. Each notifies the alarm topic
 * (fires and recovers), like the others.
 */
import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { type Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { METRIC, METRIC_SERVICE } from '../../shared/observability/metrics';

/** Metric-filter metrics counted from the stage's access log (API Gateway has no 429 metric of its own). */
const ACCESS_LOG_METRIC = Object.freeze({ throttled: 'Api429', clientErrors: 'Api4xxNot402' });
const FIVE_MINUTES = Duration.minutes(5);
/** CloudWatch alarms take at most 10 metrics in one expression. */
const MAX_METRICS_PER_ALARM = 10;

interface OperationsAlarmOptions {
  api: HttpApi;
  accessLogs: ILogGroup;
  namespace: string;
  topic: ITopic;
  /** Every function of the API stack (route families, reconciler, settler, and what others add). */
  functions: readonly IFunction[];
  tables: ReadonlyArray<{ table: ITable; indexes: readonly string[] }>;
  /** Requests in an hour above which an hour without any revenue or credits debited is an outage. */
  revenueWatchRequestsPerHour: number;
}

const notifying = (alarm: Alarm, topic: ITopic): Alarm => {
  const action = new SnsAction(topic);
  alarm.addAlarmAction(action);
  alarm.addOkAction(action);
  return alarm;
};

const chunks = <T>(xs: readonly T[], n: number): T[][] => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));

/**
 * The load alarms of the API stack.
 * @example addOperationsAlarms(this, { api, accessLogs, namespace, topic, functions: [...], tables: [...], revenueWatchRequestsPerHour: 1000 })
 */
const addOperationsAlarms = (scope: Construct, o: OperationsAlarmOptions): Alarm[] => {
  const fromAccessLog = (id: string, name: string, pattern: ReturnType<typeof FilterPattern.all>) =>
    new MetricFilter(scope, id, {
      logGroup: o.accessLogs,
      metricNamespace: o.namespace,
      metricName: name,
      filterPattern: pattern,
      metricValue: '1',
      defaultValue: 0,
    }).metric({
      statistic: 'Sum',
      period: FIVE_MINUTES,
    });
  // The access log writes status as a JSON string ("$context.status" in quotes).
  const throttled = fromAccessLog('Api429Filter', ACCESS_LOG_METRIC.throttled, FilterPattern.stringValue('$.status', '=', '429'));
  const clientErrors = fromAccessLog(
    'Api4xxNot402Filter',
    ACCESS_LOG_METRIC.clientErrors,
    FilterPattern.all(
      FilterPattern.stringValue('$.status', '=', '4*'),
      FilterPattern.stringValue('$.status', '!=', '402'),
      FilterPattern.stringValue('$.status', '!=', '429'),
    ),
  );
  const requests = o.api.metricCount({ period: FIVE_MINUTES, statistic: 'Sum' });

  const alarms: Alarm[] = [
    throttled.createAlarm(scope, 'Api429Alarm', {
      alarmDescription:
        'The API stage throttled requests (429) in 5 minutes: paying calls are being refused. Raise the stage throttle (infra/stacks/capacity-settings.ts) or the account quota (npm run capacity names it)',
      threshold: 10,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }),
    new MathExpression({
      expression: 'IF(requests >= 100, 100 * errors / requests, 0)',
      usingMetrics: { requests, errors: clientErrors },
      period: FIVE_MINUTES,
      label: '4xx other than 402 and 429, % of requests',
    }).createAlarm(scope, 'ApiClientErrorRateAlarm', {
      alarmDescription:
        'More than 25% of requests in 5 minutes (of at least 100) were 4xx other than 402 (the x402 handshake) and 429: a broken client release, a bad link, or a changed route',
      threshold: 25,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }),
    ...chunks(o.functions, MAX_METRICS_PER_ALARM).map((group, i) =>
      new MathExpression({
        expression: group.map((_, j) => `t${j}`).join(' + '),
        usingMetrics: Object.fromEntries(group.map((fn, j) => [`t${j}`, fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' })])),
        period: FIVE_MINUTES,
        label: 'Lambda throttles',
      }).createAlarm(scope, `LambdaThrottlesAlarm${i + 1}`, {
        alarmDescription: `Lambda throttled invocations of the API functions (group ${i + 1}): the account's concurrency quota ("Concurrent executions") is reached; raise it`,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    ),
    ...o.tables.map(({ table, indexes }, i) => {
      const m = (name: string, index?: string) =>
        new Metric({
          namespace: 'AWS/DynamoDB',
          metricName: name,
          dimensionsMap: { TableName: table.tableName, ...(index ? { GlobalSecondaryIndexName: index } : {}) },
          statistic: 'Sum',
          period: FIVE_MINUTES,
        });
      const metrics = [m('ReadThrottleEvents'), m('WriteThrottleEvents'), ...indexes.map((x) => m('WriteThrottleEvents', x))];
      return new MathExpression({
        expression: metrics.map((_, j) => `d${j}`).join(' + '),
        usingMetrics: Object.fromEntries(metrics.map((x, j) => [`d${j}`, x])),
        period: FIVE_MINUTES,
        label: 'DynamoDB throttle events',
      }).createAlarm(scope, `DynamoThrottlesAlarm${i + 1}`, {
        alarmDescription:
          'DynamoDB throttled reads or writes of a table or its indexes: a hot partition or an account/table throughput quota (npm run capacity names them)',
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    }),
    new MathExpression({
      expression: `IF(requests >= ${o.revenueWatchRequestsPerHour} AND FILL(revenue, 0) + FILL(credits, 0) == 0, 1, 0)`,
      usingMetrics: {
        requests: o.api.metricCount({ period: Duration.hours(1), statistic: 'Sum' }),
        revenue: new Metric({
          namespace: o.namespace,
          metricName: METRIC.revenueAtomic,
          dimensionsMap: { service: METRIC_SERVICE.api },
          statistic: 'Sum',
          period: Duration.hours(1),
        }),
        credits: new Metric({
          namespace: o.namespace,
          metricName: METRIC.creditsDebited,
          dimensionsMap: { service: METRIC_SERVICE.api },
          statistic: 'Sum',
          period: Duration.hours(1),
        }),
      },
      period: Duration.hours(1),
      label: 'hour with traffic and no money',
    }).createAlarm(scope, 'RevenueZeroAlarm', {
      alarmDescription: `An hour with at least ${o.revenueWatchRequestsPerHour} requests and no USDC revenue and no Pro credits debited: payments are failing (facilitator, pay-to, RPC) or every route is free by mistake`,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }),
  ];
  return alarms.map((a) => notifying(a, o.topic));
};

export { addOperationsAlarms, ACCESS_LOG_METRIC };
