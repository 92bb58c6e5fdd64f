/**
 * The batch settler's metrics from a pass report and its open sales: what was claimed, settled,
 * refunded and failed, and the backlog (count, USDC atomic units, oldest age). Sales and amounts are
 * synthetic (a 0.01 USD price call is 10,000 atomic units).
 */
import { describe, expect, it } from 'vitest';
import type { OpenSale } from '../../../shared/payment/batch/channel-store';
import { BATCH_METRIC, backlogOf, emitSettleMetrics, settleMetrics } from '../../../shared/payment/batch/settle-metrics';
import type { BatchSettlementReport } from '../../../shared/payment/batch/settle-job';

const NOW = new Date('2026-11-27T12:00:00.000Z');
const sale = (at: string, amount: string, channelId = '0xc1'): OpenSale => ({
  channelId,
  cumulative: 0n,
  amount,
  sale: { pk: 'X402SALE#2026-11#3', sk: `${at}#${channelId}#1` },
});
const report = (over: Partial<BatchSettlementReport> = {}): BatchSettlementReport => ({
  synced: 0,
  recovered: 0,
  claims: [],
  claimFailures: [],
  claimsDeferred: 0,
  refunds: [],
  refundFailures: 0,
  settlements: [],
  stamped: 0,
  open: 0,
  cursor: 1n,
  stopped: false,
  ...over,
});

describe('batch settler metrics', () => {
  it('measures the backlog: count, atomic USDC summed exactly, the oldest sale in whole seconds', () => {
    const open = [sale('2026-11-27T11:00:00.000Z', '10000'), sale('2026-11-27T06:00:00.000Z', '250000', '0xc2'), sale('2026-11-27T11:59:59.500Z', '10000')];
    expect(backlogOf(open, NOW)).toEqual({ sales: 3, atomic: 270_000n, oldestSeconds: 6 * 3600 });
    expect(backlogOf([], NOW)).toEqual({ sales: 0, atomic: 0n, oldestSeconds: 0 });
  });

  it('reports a pass: vouchers and transactions claimed, a settlement, refunds, refund failures, stamped sales', () => {
    const points = settleMetrics(
      report({
        claims: [
          { vouchers: 100, transaction: '0xa' },
          { vouchers: 37, transaction: '0xb' },
        ],
        refunds: [{ channel: '0xc9', transaction: '0xd' }],
        refundFailures: 2,
        settle: { transaction: '0xe' },
        stamped: 137,
      }),
      { sales: 4, atomic: 40_000n, oldestSeconds: 90 },
    );
    expect(Object.fromEntries(points.map((p) => [p.name, p.value]))).toEqual({
      [BATCH_METRIC.claimed]: 137,
      [BATCH_METRIC.claimTransactions]: 2,
      [BATCH_METRIC.settled]: 1,
      [BATCH_METRIC.refunded]: 1,
      [BATCH_METRIC.failed]: 2,
      [BATCH_METRIC.stamped]: 137,
      [BATCH_METRIC.stopped]: 0,
      [BATCH_METRIC.backlogSales]: 4,
      [BATCH_METRIC.backlogAtomic]: 40_000,
      [BATCH_METRIC.backlogOldestSeconds]: 90,
    });
  });

  it('counts a channel whose claim failed and a receiver whose settlement failed as failures (each retried by a later pass)', () => {
    const points = settleMetrics(
      report({
        claimFailures: [{ channelId: '0xc1', receiver: '0x0000000000000000000000000000000000000001', reason: 'reverted', attempts: 1 }],
        settlements: [
          { receiver: '0x0000000000000000000000000000000000000001', error: 'rpc timeout' },
          { receiver: '0x0000000000000000000000000000000000000002', transaction: '0xf' },
        ],
        refundFailures: 1,
      }),
      undefined,
    );
    expect(points.find((p) => p.name === BATCH_METRIC.failed)?.value).toBe(3);
  });

  it('counts a pass stopped near its timeout (work left for the next pass), which is no failure', () => {
    const points = settleMetrics(report({ stopped: true }), undefined);
    expect(points.find((p) => p.name === BATCH_METRIC.stopped)?.value).toBe(1);
    expect(points.find((p) => p.name === BATCH_METRIC.failed)?.value).toBe(0);
  });

  it('counts a pass that threw as one failure, and leaves the backlog out when it could not be read', () => {
    const points = settleMetrics(undefined, undefined);
    expect(points.find((p) => p.name === BATCH_METRIC.failed)?.value).toBe(1);
    expect(points.map((p) => p.name)).not.toContain(BATCH_METRIC.backlogSales);
    expect(points.find((p) => p.name === BATCH_METRIC.claimed)?.value).toBe(0);
  });

  it('records every point on the sink and publishes once', () => {
    const seen: Array<[string, number | undefined]> = [];
    let published = 0;
    emitSettleMetrics(
      { count: (n, v) => seen.push([n, v]), publish: () => published++ },
      report(),
      backlogOf([sale('2026-11-27T11:59:00.000Z', '10000')], NOW),
    );
    expect(seen).toContainEqual([BATCH_METRIC.backlogOldestSeconds, 60]);
    expect(seen).toHaveLength(10);
    expect(published).toBe(1);
  });
});
