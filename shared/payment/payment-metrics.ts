/**
 * What a paid call adds to the business metrics, the same for every transport (HTTP middleware, MCP
 * tools): a 402 issued, a call paid by lane, a settlement with its revenue, credits debited, or a
 * settlement left pending. What a call books is its lane's (the registry, lanes.ts), so a lane's
 * revenue is counted under its own name, never as another lane's.
 */
import { METRIC, type MetricsSink } from '../observability/metrics';
import type { Grant, PaymentDeps, Refusal, SettleOutcome } from './lane';
import { laneOfGrant } from './lanes';

/** A refusal before the call ran (402 challenge or refused payment). */
const countRefusal = (metrics: MetricsSink, refusal: Refusal, family: string): void => {
  if (refusal.error.statusCode === 402) metrics.count(METRIC.paymentRequired, 1, { family });
};

/**
 * The end of a granted call: settled (paid) or not.
 * @param deps the payment services whose lanes made the grant (default: the registry)
 */
const countSettlement = (metrics: MetricsSink, grant: Grant, outcome: SettleOutcome, deps: Pick<PaymentDeps, 'lanes'> = {}): void => {
  if (outcome.type !== 'settled') {
    if (outcome.refusal.error.statusCode === 504) metrics.count(METRIC.settlementsPending);
    return;
  }
  metrics.count(METRIC.paidCalls, 1, { lane: grant.lane });
  const booked = laneOfGrant(deps, grant)?.booked(grant as never);
  if (!booked) return;
  if (booked.unit === 'credits') {
    metrics.count(METRIC.creditsDebited, booked.amount);
    return;
  }
  if (booked.settlement) metrics.count(METRIC.settlements);
  // The total (the dashboard's) and the lane's own share.
  metrics.count(METRIC.revenueAtomic, booked.amount);
  metrics.count(METRIC.revenueAtomic, booked.amount, { lane: grant.lane });
};

export { countRefusal, countSettlement };
