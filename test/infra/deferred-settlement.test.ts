/**
 * The deferred settle worker's infrastructure (infra/constructs/deferred-settlement.ts), synthesized:
 * the credit table's stream feeds it, filtered to CLAIMED -> DEFERRED, with retries, a dead-letter
 * queue and alarms; it may use the credit table and its watch index, and nothing on observations.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../shared/config/env-keys';
import { METRIC_SERVICE } from '../../shared/observability/metrics';
import { CREDITS_WATCH_INDEX } from '../../shared/store/tables';
import { actionsOn, logicalId, PAY_TO, synthService, type Synthesized } from './synth';

describe('deferred settlement on AWS (staging synth)', () => {
  let s: Synthesized;
  let fnId: string;
  beforeAll(() => {
    s = synthService({ stage: 'staging', payTo: PAY_TO });
    fnId = logicalId(s.api, s.api.deferredSettlement.fn);
  });

  it('turns the credit table stream on with both images (the filter reads the state before and after)', () => {
    s.templates.data.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } });
  });

  it('feeds the worker from that stream, CLAIMED -> DEFERRED only, with retries, bisect, partial failures and a dead-letter queue', () => {
    const mappings = Object.values(s.templates.api.findResources('AWS::Lambda::EventSourceMapping')) as any[];
    const mine = mappings.filter((m) => m.Properties.FunctionName?.Ref === fnId);
    expect(mine).toHaveLength(1);
    const p = mine[0].Properties;
    expect(p).toMatchObject({
      StartingPosition: 'LATEST',
      MaximumRetryAttempts: 5,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(p.DestinationConfig.OnFailure.Destination).toBeDefined();
    const pattern = JSON.parse(p.FilterCriteria.Filters[0].Pattern);
    expect(pattern).toEqual({ eventName: ['MODIFY'], dynamodb: { OldImage: { state: { S: ['CLAIMED'] } }, NewImage: { state: { S: ['DEFERRED'] } } } });
  });

  it('lets the worker use the credit table and its watch index, reads no observations, and alarms on losses, the DLQ and lag', () => {
    const creditsId = logicalId(s.data, s.data.credits);
    const actions = actionsOn(s.templates.api, fnId, creditsId, s.templates.data);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:Query']));
    expect(JSON.stringify(s.templates.api.toJSON().Resources)).toContain(`/index/${CREDITS_WATCH_INDEX}`);
    expect(actionsOn(s.templates.api, fnId, logicalId(s.data, s.data.observations), s.templates.data)).toEqual([]);
    expect(s.api.deferredSettlement.fn.tableAccess).toEqual({ [ENV.OBSERVATIONS_TABLE]: 'NAME_ONLY', [ENV.CREDITS_TABLE]: 'LEDGER' });
    s.templates.api.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'DeferredLossUsdcAtomic', Threshold: 0, AlarmActions: Match.anyValue() });
    // The loss alarm reads the metric where the worker puts it: its function's METRICS_NAMESPACE, and the
    // service dimension every payment sink adds (shared/services: METRIC_SERVICE.api); else it never fires.
    const fn = s.templates.api.toJSON().Resources[fnId];
    const lossAlarm = Object.values(s.templates.api.findResources('AWS::CloudWatch::Alarm')).find(
      (a: any) => a.Properties.MetricName === 'DeferredLossUsdcAtomic',
    ) as any;
    expect(lossAlarm.Properties.Namespace).toBe(fn.Properties.Environment.Variables.METRICS_NAMESPACE);
    expect(lossAlarm.Properties.Dimensions).toEqual([{ Name: 'service', Value: METRIC_SERVICE.api }]);
    s.templates.api.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 0 });
    s.templates.api.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'IteratorAge', Namespace: 'AWS/Lambda' });
  });
});
