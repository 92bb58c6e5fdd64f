/**
 * Money booked for a paid call, as metrics: the total (alarms and the dashboard's line), the lane's
 * share, and the lane's share per route, so that "what did we earn today, per route and lane" is a
 * sum over a day (the dashboard's table). The request path (payment-metrics.ts) and the deferred
 * settle worker (which books a deferred call's revenue when the chain has it) both count through it.
 */
import { METRIC, type MetricsSink } from '../observability/metrics';

/**
 * Counts one booking: USDC atomic units (RevenueUsdcAtomic) or Pro credits (CreditsDebited).
 * @param route the route table's id (GET /v1/price/{code}), a bounded set; absent: no per-route point
 */
const countRevenue = (metrics: MetricsSink, booked: { unit: 'usdc_atomic' | 'credits'; amount: number }, lane: string, route: string | undefined): void => {
  const name = booked.unit === 'credits' ? METRIC.creditsDebited : METRIC.revenueAtomic;
  metrics.count(name, booked.amount);
  metrics.count(name, booked.amount, { lane });
  if (route) metrics.count(name, booked.amount, { lane, route });
};

export { countRevenue };
