/**
 * What a paid call adds to the business metrics, the same for every transport (HTTP middleware, MCP
 * tools): a 402 issued, a call paid by lane, a settlement with its revenue, credits debited, or a
 * settlement left pending.
 */
import { METRIC, type MetricsSink } from '../observability/metrics';
import type { ProGrant } from './pro-lane';
import type { BatchLaneGrant } from './batch-lane';
import type { ExactGrant } from './exact-lane';
import type { Grant, Refusal, SettleOutcome } from './lane';

/** A refusal before the call ran (402 challenge or refused payment). */
const countRefusal = (metrics: MetricsSink, refusal: Refusal, family: string): void => {
  if (refusal.error.statusCode === 402) metrics.count(METRIC.paymentRequired, 1, { family });
};

/** The end of a granted call: settled (paid) or not. */
const countSettlement = (metrics: MetricsSink, grant: Grant, outcome: SettleOutcome): void => {
  if (outcome.type !== 'settled') {
    if (outcome.refusal.error.statusCode === 504) metrics.count(METRIC.settlementsPending);
    return;
  }
  metrics.count(METRIC.paidCalls, 1, { lane: grant.lane });
  if (grant.lane === 'pro') metrics.count(METRIC.creditsDebited, (grant as ProGrant).usage.credits);
  else if (grant.lane === 'x402-batch') metrics.count(METRIC.revenueAtomic, Number((grant as BatchLaneGrant).batch.amount));
  // Deferred: answered with the settlement pending; the settle worker counts it when the chain has it.
  else if (outcome.receipt.settlement?.errorReason === 'settlement_pending') metrics.count(METRIC.deferredCalls);
  else if ((grant as ExactGrant).mode === 'settle') {
    metrics.count(METRIC.settlements);
    metrics.count(METRIC.revenueAtomic, Number((grant as ExactGrant).amount));
  }
};

export { countRefusal, countSettlement };
