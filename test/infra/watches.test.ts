/**
 * Issue 37 on AWS: the observation table's stream (keys only) triggers the watch fan-out, which may
 * send to the delivery queue; the queue feeds the delivery function (partial batch failures) and
 * dead-letters after five receives; stream batches the fan-out fails on go to a failure queue; the
 * paid functions and the fan-out read the ETag secret, and nothing else can.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../shared/config/env-keys';
import { FAMILIES } from '../../shared/routes/table';
import { familyCharges } from '../../infra/stacks/api-stack';
import { ATTEMPT_LEASE_S, SWEEP_EVENT } from '../../shared/watches/lease';
import { actionsOn, logicalId, PAY_TO, refersTo, synthService, type Synthesized } from './synth';

describe('webhook watches in the CDK app', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthService({ stage: 'staging', payTo: PAY_TO });
  });
  const resources = (t: 'api' | 'data') => s.templates[t].toJSON().Resources as Record<string, any>;
  const fnOf = (fn: Parameters<typeof logicalId>[1]) => resources('api')[logicalId(s.api, fn)];

  it('the observation table streams its keys; the fan-out reads that stream and sends failed batches to a queue', () => {
    expect(resources('data')[logicalId(s.data, s.data.observations)].Properties.StreamSpecification).toEqual({ StreamViewType: 'KEYS_ONLY' });
    const mappings = Object.values(s.templates.api.findResources('AWS::Lambda::EventSourceMapping')) as any[];
    const fanOutId = logicalId(s.api, s.api.watches!.fanOut);
    const stream = mappings.find((m) => refersTo(m.Properties.FunctionName, fanOutId));
    expect(stream.Properties).toMatchObject({ StartingPosition: 'LATEST', MaximumRetryAttempts: 3, MaximumBatchingWindowInSeconds: 5 });
    expect(refersTo(stream.Properties.EventSourceArn, logicalId(s.data, s.data.observations), s.templates.data)).toBe(true);
    expect(stream.Properties.DestinationConfig.OnFailure.Destination).toBeDefined();
  });

  it('the delivery queue feeds the delivery function with partial batch failures and dead-letters after five receives', () => {
    const w = s.api.watches!;
    const queue = resources('api')[logicalId(s.api, w.queue)];
    expect(queue.Properties.RedrivePolicy.maxReceiveCount).toBe(5);
    expect(refersTo(queue.Properties.RedrivePolicy.deadLetterTargetArn, logicalId(s.api, w.deadLetters))).toBe(true);
    const mappings = Object.values(s.templates.api.findResources('AWS::Lambda::EventSourceMapping')) as any[];
    const sqs = mappings.find((m) => refersTo(m.Properties.FunctionName, logicalId(s.api, w.delivery)));
    expect(sqs.Properties).toMatchObject({ BatchSize: 10, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    expect(refersTo(sqs.Properties.EventSourceArn, logicalId(s.api, w.queue))).toBe(true);
    // Both functions send to the queue (the fan-out its deliveries, the delivery its retries).
    for (const fn of [w.fanOut, w.delivery]) {
      expect(actionsOn(s.templates.api, logicalId(s.api, fn), logicalId(s.api, w.queue))).toContain('sqs:SendMessage');
      expect(refersTo(fnOf(fn).Properties.Environment.Variables[ENV.WATCH_QUEUE_URL], logicalId(s.api, w.queue))).toBe(true);
    }
  });

  it("a schedule runs the delivery function's sweep of stopped attempts, whose timeout is within an attempt's lease", () => {
    const id = logicalId(s.api, s.api.watches!.delivery);
    const sweeps = (Object.values(s.templates.api.findResources('AWS::Scheduler::Schedule')) as any[]).filter((x) =>
      JSON.stringify(x.Properties.Target.Arn).includes(id),
    );
    expect(sweeps).toHaveLength(1);
    expect(sweeps[0].Properties.ScheduleExpression).toBe('rate(15 minutes)');
    expect(JSON.parse(sweeps[0].Properties.Target.Input)).toEqual(SWEEP_EVENT);
    // A lease that ended belongs to an attempt whose function was stopped (killed at its timeout).
    expect(fnOf(s.api.watches!.delivery).Properties.Timeout).toBeLessThan(ATTEMPT_LEASE_S);
  });

  it('the ETag secret is read by the paying functions and the fan-out, by name in the environment (never its value)', () => {
    const etag = logicalId(s.data, s.data.etagSecret);
    for (const family of FAMILIES) {
      const env = fnOf(s.api.functions.get(family)!).Properties.Environment.Variables;
      expect(env[ENV.ETAG_SECRET_ARN] !== undefined, family).toBe(familyCharges(family));
      if (familyCharges(family)) expect(refersTo(env[ENV.ETAG_SECRET_ARN], etag, s.templates.data), family).toBe(true);
    }
    expect(refersTo(fnOf(s.api.watches!.fanOut).Properties.Environment.Variables[ENV.ETAG_SECRET_ARN], etag, s.templates.data)).toBe(true);
    expect(fnOf(s.api.watches!.delivery).Properties.Environment.Variables[ENV.ETAG_SECRET_ARN]).toBeUndefined();
  });
});
