/**
 * Business metrics (CloudWatch embedded metric format, as Powertools Metrics writes it: emf.ts). Emitted only where
 * METRICS_NAMESPACE is set (CDK sets it on every Lambda): the local runtime and the tests get a
 * sink that drops them, so nothing is printed there. The alarms and the dashboard read these names
 * (infra/stacks/observability.ts). Every point carries a `service` dimension (as Powertools adds it): a
 * CloudWatch metric is its name AND its full set of dimensions, so whoever reads one states the
 * service too (METRIC_SERVICE).
 */
import { emfCounter } from './emf';

/** The metric names, one place for the code that emits and the stack that alarms. */
const METRIC = Object.freeze({
  /** Paid calls answered 200, by lane. */
  paidCalls: 'PaidCalls',
  /** 402 challenges and refusals issued. */
  paymentRequired: 'PaymentRequired',
  /** Payments presented and refused (402), by reason code. */
  paymentsRefused: 'PaymentsRefused',
  /** x402 settlements confirmed at request time. */
  settlements: 'Settlements',
  /** USDC atomic units settled (x402). */
  revenueAtomic: 'RevenueUsdcAtomic',
  /** Pro credits debited. */
  creditsDebited: 'CreditsDebited',
  /** Settlements answered 504 (outcome unknown at request time). */
  settlementsPending: 'SettlementsPending',
  /** Payments still open after a reconciliation pass (PENDING or stale SETTLING). */
  pendingAfterReconcile: 'PendingSettlementsOpen',
  /** Exact calls answered before their settlement (deferred), and settled later by the worker. */
  deferredCalls: 'DeferredCalls',
  deferredSettled: 'DeferredSettled',
  /** USDC atomic units of deferred calls whose settlement failed (booked as deferred_loss). */
  deferredLossAtomic: 'DeferredLossUsdcAtomic',
  /** Ingestion runs that succeeded / failed, by source. */
  ingestOk: 'IngestRunsSucceeded',
  ingestFailed: 'IngestRunsFailed',
  /** Prices held back by the ingestion guards. */
  quarantined: 'PricesQuarantined',
  /** 1 when a source is stale by the rule of GET /health, else 0: one point per source per freshness check. */
  sourceStale: 'SourceStale',
} as const);

/** The `service` dimension of each emitter: the API functions (and the reconciler), and ingestion (runs and the freshness check). */
const METRIC_SERVICE = Object.freeze({ api: 'commodity-data', ingest: 'commodity-data-ingest' } as const);

/** What the code needs of a metrics sink. */
interface MetricsSink {
  count(name: string, value?: number, dimensions?: Readonly<Record<string, string>>): void;
  /** Flushes what was recorded (end of an invocation). */
  publish(): void;
}

const dropAll: MetricsSink = { count: () => undefined, publish: () => undefined };

/**
 * The sink of a process.
 * @param namespace METRICS_NAMESPACE; undefined: metrics are dropped
 */
const createMetrics = (namespace: string | undefined, service: string): MetricsSink => {
  if (!namespace) return dropAll;
  const emf = emfCounter(namespace, service);
  return {
    // A dimensioned point goes out on its own, so dimensions never leak between points.
    count: (name, value = 1, dimensions = {}) => (Object.keys(dimensions).length === 0 ? emf.add(name, value) : emf.single(name, value, dimensions)),
    // Returns nothing: a middy `after` that returns a value replaces the response with it.
    publish: () => emf.flush(),
  };
};

export { createMetrics, METRIC, METRIC_SERVICE };
export type { MetricsSink };
