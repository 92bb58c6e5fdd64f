/**
 * What a paid call adds to the business metrics, the same for every adapter (HTTP middleware, MCP
 * tools): a 402 issued, a call paid by lane, a settlement with its revenue, credits debited, or a
 * settlement left pending.
 */
import { METRIC, type MetricsSink } from '../observability/metrics';
import type { HttpResponseLike, PaymentReceipt, SettleOutcome } from './core';

/** A refusal before the call ran (402 challenge or refused payment). */
const countRefusal = (metrics: MetricsSink, response: HttpResponseLike, family: string): void => {
  if (response.statusCode === 402) metrics.count(METRIC.paymentRequired, 1, { family });
};

/** The end of a verified call: settled (paid) or not. */
const countSettlement = (metrics: MetricsSink, receipt: PaymentReceipt, outcome: SettleOutcome): void => {
  if (outcome.type !== 'settled') {
    if (outcome.response.statusCode === 504) metrics.count(METRIC.settlementsPending);
    return;
  }
  metrics.count(METRIC.paidCalls, 1, { lane: receipt.lane });
  if (receipt.lane === 'pro') metrics.count(METRIC.creditsDebited, receipt.usage.credits);
  else if (receipt.mode === 'settle') {
    metrics.count(METRIC.settlements);
    metrics.count(METRIC.revenueAtomic, Number(receipt.amount));
  }
};

export { countRefusal, countSettlement };
