/**
 * The batch settler's alarms as synthesized: silence over three passes (missing data counts), a
 * failed pass, and a sale waiting for its claim a quarter of the withdrawal delay (one day: 6 h).
 */
import { describe, expect, it } from 'vitest';
import { SETTLE_BATCHES_EVERY_MINUTES } from '../../infra/stacks/api-stack';
import { BATCH_METRIC } from '../../shared/payment/batch/settle-metrics';
import { logicalId, PAY_TO, refersTo, synthService } from './synth';

describe('batch settler alarms', () => {
  const s = synthService({ stage: 'staging', payTo: PAY_TO });
  const alarms = Object.entries(s.templates.api.findResources('AWS::CloudWatch::Alarm')) as Array<[string, any]>;
  const byId = (prefix: string) => alarms.find(([id]) => id.startsWith(prefix))![1].Properties;

  it('pages when the settler has not run for three passes, missing data included', () => {
    const a = byId('BatchSettlerNotRunningAlarm');
    expect(a).toMatchObject({ MetricName: 'Invocations', Namespace: 'AWS/Lambda', Statistic: 'Sum', Threshold: 1, TreatMissingData: 'breaching' });
    expect(a.ComparisonOperator).toBe('LessThanThreshold');
    expect(a.Period).toBe(3 * SETTLE_BATCHES_EVERY_MINUTES * 60);
    expect(refersTo(a.Dimensions, logicalId(s.api, s.api.batchSettler))).toBe(true);
  });

  it('pages on a failed pass, and on a backlog older than 6 hours (a quarter of the one-day withdrawal delay)', () => {
    expect(byId('BatchSettleFailuresAlarm')).toMatchObject({
      MetricName: BATCH_METRIC.failed,
      Statistic: 'Sum',
      Threshold: 1,
      Namespace: 'CommodityData/staging',
    });
    // three passes in a row cut short by their timeout: the settler's bounds are too small for the load
    expect(byId('BatchSettlerStoppedAlarm')).toMatchObject({
      MetricName: BATCH_METRIC.stopped,
      Statistic: 'Sum',
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      Period: SETTLE_BATCHES_EVERY_MINUTES * 60,
    });
    expect(byId('BatchBacklogAgeAlarm')).toMatchObject({ MetricName: BATCH_METRIC.backlogOldestSeconds, Statistic: 'Maximum', Threshold: 6 * 3600 });
  });
});
