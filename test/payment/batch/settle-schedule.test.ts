/**
 * The batch settler in the synthesized API stack: functions/settle-batches.ts on an EventBridge
 * Scheduler rate beside the reconciler, one pass at a time when the operator reserves it, and on the credit table exactly
 * the actions the job issues (no Scan, no ConditionCheck), nothing on observations.
 */
import { describe, expect, it } from 'vitest';
import { SETTLE_BATCHES_EVERY_MINUTES } from '../../../infra/stacks/api-stack';
import { ENV } from '../../../shared/config/env-keys';
import { batchLaneConfig, DEFAULT_WITHDRAW_DELAY_S } from '../../../shared/payment/batch/config';
import { actionsOn, logicalId, PAY_TO, refersTo, synthService } from '../../infra/synth';

describe('batch settler schedule (CDK)', () => {
  const s = synthService({ stage: 'staging', payTo: PAY_TO, rpcUrl: 'https://rpc.example/base-sepolia' });
  const id = logicalId(s.api, s.api.batchSettler);
  const resources = s.templates.api.toJSON().Resources;

  it('invokes functions/settle-batches.ts on a rate schedule well inside a channel withdrawal delay, without retries', () => {
    const schedules = (Object.values(s.templates.api.findResources('AWS::Scheduler::Schedule')) as any[]).filter((x) => refersTo(x.Properties.Target.Arn, id));
    expect(schedules).toHaveLength(1);
    expect(schedules[0].Properties.ScheduleExpression).toBe(`rate(${SETTLE_BATCHES_EVERY_MINUTES} minutes)`);
    expect(schedules[0].Properties.Target.RetryPolicy.MaximumRetryAttempts).toBe(0);
    // Several passes fit in the delay a payer waits before a withdrawal completes.
    expect(SETTLE_BATCHES_EVERY_MINUTES * 60 * 6).toBeLessThan(DEFAULT_WITHDRAW_DELAY_S);
    // A voucher is accepted on a mirror of the channel's withdrawal state no older than one pass
    // interval (older, the lane asks the chain): a withdrawal requested is seen before the pass that claims it.
    const lane = batchLaneConfig({ X402_NETWORK: 'eip155:84532', X402_PAY_TO: PAY_TO, X402_MAX_TIMEOUT_SECONDS: 60 }, PAY_TO);
    expect(lane.onchainStateTtlMs).toBeLessThanOrEqual(SETTLE_BATCHES_EVERY_MINUTES * 60_000);
  });

  it('gets the stage settings (network, pay-to, RPC) and a timeout for a pass of chain calls', () => {
    const fn = resources[id];
    expect(fn.Properties.Environment.Variables).toMatchObject({
      [ENV.X402_NETWORK]: 'eip155:84532',
      [ENV.X402_PAY_TO]: PAY_TO,
      [ENV.X402_RPC_URL]: 'https://rpc.example/base-sepolia',
    });
    expect(fn.Properties.Timeout).toBe(300);
    expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    // Reserved only when the operator asks (an account at the default quota cannot reserve any).
    const prod = synthService({ stage: 'prod', payTo: PAY_TO, facilitatorUrl: 'https://facilitator.example.com/x402', alarmEmail: 'ops@example.com' });
    expect(prod.templates.api.toJSON().Resources[logicalId(prod.api, prod.api.batchSettler)].Properties.ReservedConcurrentExecutions).toBeUndefined();
    const reserved = synthService({
      stage: 'prod',
      payTo: PAY_TO,
      facilitatorUrl: 'https://facilitator.example.com/x402',
      alarmEmail: 'ops@example.com',
      reconcilerConcurrency: '1',
    });
    expect(reserved.templates.api.toJSON().Resources[logicalId(reserved.api, reserved.api.batchSettler)].Properties.ReservedConcurrentExecutions).toBe(1);
  });

  it('may do on the credit table only what the job does, and nothing on observations', () => {
    const credits = logicalId(s.data, s.data.credits);
    const observations = logicalId(s.data, s.data.observations);
    expect(actionsOn(s.templates.api, id, credits, s.templates.data).sort()).toEqual(
      ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'].sort(),
    );
    expect(actionsOn(s.templates.api, id, observations, s.templates.data)).toEqual([]);
    expect(s.api.batchSettler.tableAccess).toEqual({ [ENV.OBSERVATIONS_TABLE]: 'NAME_ONLY', [ENV.CREDITS_TABLE]: 'CHANNELS' });
  });
});
