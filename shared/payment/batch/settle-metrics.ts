/**
 * What a batch settlement pass reports to CloudWatch: vouchers claimed, payouts settled, channels
 * refunded, failures, and the backlog of sales no claim covers yet (count, USDC atomic units, the
 * oldest one's age). A pure function from the pass's report and its open sales to metric points;
 * functions/settle-batches.ts emits them each pass, and the alarms (infra/stacks/money-job-alarms.ts)
 * read them: a backlog older than a fraction of the withdrawal delay is money a buyer could take back.
 */
import type { MetricsSink } from '../../observability/metrics';
import type { OpenSale } from './channel-store';
import type { BatchSettlementReport, ScanBacklog } from './settle-job';

/** Metric names of the batch settler (service commodity-data, no other dimension). */
const BATCH_METRIC = Object.freeze({
  claimed: 'BatchVouchersClaimed',
  claimTransactions: 'BatchClaimTransactions',
  settled: 'BatchSettlements',
  refunded: 'BatchChannelsRefunded',
  failed: 'BatchSettleFailures',
  stamped: 'BatchSalesStamped',
  /** 1 when a pass stopped near its timeout and left work for the next (settle-job.ts): passes in a row mean it needs more bounds. */
  stopped: 'BatchPassesStopped',
  backlogSales: 'BatchBacklogSales',
  backlogAtomic: 'BatchBacklogUsdcAtomic',
  backlogOldestSeconds: 'BatchBacklogOldestSeconds',
});

interface Backlog {
  sales: number;
  /** USDC atomic units of the open sales. */
  atomic: bigint;
  /** Age of the oldest open sale, whole seconds; 0 without any. */
  oldestSeconds: number;
}

/**
 * The backlog of open sales at `now`. A sale's time is the start of its key's sort key (`<settled_at>#<sale id>`).
 * @example backlogOf(await store.openSales(), new Date())
 */
const backlogOf = (open: readonly OpenSale[], now: Date): Backlog => {
  let atomic = 0n;
  let oldest = Number.POSITIVE_INFINITY;
  for (const o of open) {
    atomic += BigInt(o.amount);
    const at = Date.parse(o.sale.sk.split('#')[0]!);
    if (Number.isFinite(at) && at < oldest) oldest = at;
  }
  return { sales: open.length, atomic, oldestSeconds: Number.isFinite(oldest) ? Math.max(0, Math.floor((now.getTime() - oldest) / 1000)) : 0 };
};

/** The backlog a pass's complete stamp scan measured (settle-job.ts), at `now`. */
const backlogOfScan = (scan: ScanBacklog, now: Date): Backlog => ({
  sales: scan.sales,
  atomic: scan.atomic,
  oldestSeconds: scan.oldestMs === undefined ? 0 : Math.max(0, Math.floor((now.getTime() - scan.oldestMs) / 1000)),
});

/**
 * The points of one pass. `report` is undefined when the pass threw: one failure. `backlog` is
 * undefined when the open sales could not be read: no backlog points then (a zero would claim none).
 * Atomic amounts beyond 2^53 would lose precision as a CloudWatch value; a backlog that size is reported at the cap.
 */
const settleMetrics = (report: BatchSettlementReport | undefined, backlog: Backlog | undefined): Array<{ name: string; value: number }> => [
  { name: BATCH_METRIC.claimed, value: report?.claims.reduce((n, c) => n + c.vouchers, 0) ?? 0 },
  { name: BATCH_METRIC.claimTransactions, value: report?.claims.length ?? 0 },
  { name: BATCH_METRIC.settled, value: report?.settle ? 1 : 0 },
  { name: BATCH_METRIC.refunded, value: report?.refunds.length ?? 0 },
  // A refund, a channel's claim or a receiver's settlement that failed in the pass (each retried later).
  { name: BATCH_METRIC.failed, value: report ? report.refundFailures + report.claimFailures.length + report.settlements.filter((x) => x.error).length : 1 },
  { name: BATCH_METRIC.stamped, value: report?.stamped ?? 0 },
  { name: BATCH_METRIC.stopped, value: report?.stopped ? 1 : 0 },
  ...(backlog
    ? [
        { name: BATCH_METRIC.backlogSales, value: backlog.sales },
        {
          name: BATCH_METRIC.backlogAtomic,
          value: Number(backlog.atomic > BigInt(Number.MAX_SAFE_INTEGER) ? BigInt(Number.MAX_SAFE_INTEGER) : backlog.atomic),
        },
        { name: BATCH_METRIC.backlogOldestSeconds, value: backlog.oldestSeconds },
      ]
    : []),
];

/** Records and publishes the points of one pass. */
const emitSettleMetrics = (sink: MetricsSink, report: BatchSettlementReport | undefined, backlog: Backlog | undefined): void => {
  for (const p of settleMetrics(report, backlog)) sink.count(p.name, p.value);
  sink.publish();
};

export { BATCH_METRIC, backlogOf, backlogOfScan, settleMetrics, emitSettleMetrics };
export type { Backlog };
