/**
 * What a paid call adds to the business metrics, the same for every transport (HTTP middleware, MCP
 * tools): a 402 issued, a call paid by lane, a settlement with its revenue, credits debited, or a
 * settlement left pending. What a call books is its lane's (the registry, lanes.ts), so a lane's
 * revenue is counted under its own name, never as another lane's.
 */
import { createHash } from 'node:crypto';
import { METRIC, type MetricsSink } from '../observability/metrics';
import type { Credentials, Grant, PaymentDeps, PaymentLog, Refusal, SettleOutcome } from './lane';
import { laneOfGrant } from './lanes';
import { countRevenue } from './revenue-metrics';

/**
 * A wallet address as logs carry it: the first 16 hex digits of the SHA-256 of its lower-case form.
 * The same payer always gives the same value (refusals of one buyer can be followed), and a log
 * never holds the address.
 */
const hashedPayer = (address: string): string => createHash('sha256').update(address.toLowerCase(), 'utf8').digest('hex').slice(0, 16);

/** The payer a presented x402 payload names: exact's authorization `from`, batch-settlement's channel payer. */
const payerOf = (credentials: Credentials): string | null => {
  const payload = credentials.kind === 'x402' ? credentials.payload : credentials.kind === 'pro' ? credentials.x402 : undefined;
  const p = (payload as { payload?: { authorization?: { from?: unknown }; channelConfig?: { payer?: unknown } } } | undefined)?.payload;
  const payer = p?.authorization?.from ?? p?.channelConfig?.payer;
  return typeof payer === 'string' && /^0x[0-9a-fA-F]{40}$/.test(payer) ? payer : null;
};

/** A reason fit for a metric dimension: our snake_case codes; anything else is `other` (bounded cardinality). */
const reasonDimension = (reason: unknown): string => (typeof reason === 'string' && /^[a-z0-9_]{1,64}$/.test(reason) ? reason : 'other');

/**
 * A refusal before the call ran (402 challenge or refused payment). A presented payment that is
 * refused is also counted by its reason and logged with the route and the hashed payer.
 * @param presented the route and what the buyer presented, and where the refusal is logged
 */
const countRefusal = (
  metrics: MetricsSink,
  refusal: Refusal,
  family: string,
  presented?: { route: string; credentials: Credentials; log: PaymentLog },
): void => {
  if (refusal.error.statusCode !== 402) return;
  metrics.count(METRIC.paymentRequired, 1, { family });
  // A challenge to a call that presented nothing is not a refused payment.
  if (!presented || refusal.error.code === 'PAYMENT_REQUIRED') return;
  const reason = reasonDimension(refusal.error.details?.reason ?? refusal.error.code.toLowerCase());
  metrics.count(METRIC.paymentsRefused, 1, { reason });
  const payer = payerOf(presented.credentials);
  presented.log.info('payment refused', { reason, route: presented.route, payer: payer ? hashedPayer(payer) : null, code: refusal.error.code });
};

/**
 * The end of a granted call: settled (paid) or not.
 * @param deps the payment services whose lanes made the grant (default: the registry)
 * @param route the route table's id of the call (HTTP route or MCP tool's route): its calls and revenue per route
 */
const countSettlement = (metrics: MetricsSink, grant: Grant, outcome: SettleOutcome, deps: Pick<PaymentDeps, 'lanes'> = {}, route?: string): void => {
  if (outcome.type !== 'settled') {
    if (outcome.refusal.error.statusCode === 504) metrics.count(METRIC.settlementsPending);
    return;
  }
  metrics.count(METRIC.paidCalls, 1, { lane: grant.lane });
  if (route) metrics.count(METRIC.paidCalls, 1, { lane: grant.lane, route });
  // Deferred: answered with the settlement pending; the settle worker counts its revenue when the chain has it.
  if (outcome.receipt.settlement?.errorReason === 'settlement_pending') {
    metrics.count(METRIC.deferredCalls);
    return;
  }
  const booked = laneOfGrant(deps, grant)?.booked(grant as never);
  if (!booked) return;
  if (booked.settlement) metrics.count(METRIC.settlements);
  countRevenue(metrics, booked, grant.lane, route);
};

export { countRefusal, countSettlement, hashedPayer };
