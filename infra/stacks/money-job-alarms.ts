/**
 * Alarms of the batch settler, the job that turns batch-lane vouchers into money on chain: it
 * stopped running, a pass failed, passes keep stopping short of their work, or a sale has waited for its claim longer than a quarter of the
 * channels' withdrawal delay (past the delay a buyer can withdraw what was never claimed). They read
 * the metrics shared/payment/batch/settle-metrics.ts emits each pass.
 */
import { Duration } from 'aws-cdk-lib';
import { type Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { METRIC_SERVICE } from '../../shared/observability/metrics';
import { BATCH_METRIC } from '../../shared/payment/batch/settle-metrics';

/** The share of the withdrawal delay a sale may wait for its claim before someone is paged. */
const BACKLOG_AGE_SHARE_OF_WITHDRAW_DELAY = 0.25;

interface MoneyJobAlarmOptions {
  namespace: string;
  topic: ITopic;
  batchSettler: IFunction;
  /** Minutes between passes (its schedule). */
  everyMinutes: number;
  /** The channels' withdrawal delay, seconds (shared/payment/batch/config.ts). */
  withdrawDelaySeconds: number;
}

const addMoneyJobAlarms = (scope: Construct, o: MoneyJobAlarmOptions): Alarm[] => {
  const pass = Duration.minutes(o.everyMinutes);
  const business = (name: string, statistic: string) =>
    new Metric({ namespace: o.namespace, metricName: name, dimensionsMap: { service: METRIC_SERVICE.api }, statistic, period: pass });
  const backlogLimit = Math.round(o.withdrawDelaySeconds * BACKLOG_AGE_SHARE_OF_WITHDRAW_DELAY);
  const alarms = [
    o.batchSettler.metricInvocations({ period: Duration.minutes(o.everyMinutes * 3), statistic: 'Sum' }).createAlarm(scope, 'BatchSettlerNotRunningAlarm', {
      alarmDescription: `The x402 batch settler has not run for ${o.everyMinutes * 3} minutes (it runs every ${o.everyMinutes}): batch-lane vouchers are not being claimed`,
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.BREACHING,
    }),
    business(BATCH_METRIC.failed, 'Sum').createAlarm(scope, 'BatchSettleFailuresAlarm', {
      alarmDescription: 'A batch settlement pass failed or could not refund a channel: its log says which step; the next pass resumes from chain state',
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }),
    business(BATCH_METRIC.stopped, 'Sum').createAlarm(scope, 'BatchSettlerStoppedAlarm', {
      alarmDescription:
        'Three batch settlement passes in a row stopped near their timeout with work left: raise the stage settler settings (infra/stacks/capacity-settings.ts: claims and closings in flight, page size; npm run capacity)',
      threshold: 1,
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }),
    business(BATCH_METRIC.backlogOldestSeconds, 'Maximum').createAlarm(scope, 'BatchBacklogAgeAlarm', {
      alarmDescription: `A batch sale has waited ${backlogLimit / 3600} h for its claim (a quarter of the ${o.withdrawDelaySeconds / 3600} h withdrawal delay, after which a buyer may withdraw unclaimed funds): claims are failing or falling behind`,
      threshold: backlogLimit,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }),
  ];
  const action = new SnsAction(o.topic);
  for (const a of alarms) {
    a.addAlarmAction(action);
    a.addOkAction(action);
  }
  return alarms;
};

export { addMoneyJobAlarms };
