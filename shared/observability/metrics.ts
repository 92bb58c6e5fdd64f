/**
 * Business metrics (Powertools Metrics, CloudWatch embedded metric format). Emitted only where
 * METRICS_NAMESPACE is set (CDK sets it on every Lambda): the local runtime and the tests get a
 * sink that drops them, so nothing is printed there. The alarms and the dashboard of the API stack
 * read these names (infra/stacks/observability.ts).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** The metric names, one place for the code that emits and the stack that alarms. */
const METRIC = Object.freeze({
  /** Paid calls answered 200, by lane. */
  paidCalls: 'PaidCalls',
  /** 402 challenges and refusals issued. */
  paymentRequired: 'PaymentRequired',
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
  /** Ingestion runs that succeeded / failed, by source. */
  ingestOk: 'IngestRunsSucceeded',
  ingestFailed: 'IngestRunsFailed',
  /** Prices held back by the ingestion guards. */
  quarantined: 'PricesQuarantined',
} as const);

const NAMESPACE_DEFAULT = 'CommodityData';

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
  const metrics = new Metrics({ namespace, serviceName: service });
  return {
    count: (name, value = 1, dimensions = {}) => {
      if (Object.keys(dimensions).length === 0) {
        metrics.addMetric(name, MetricUnit.Count, value);
        return;
      }
      // A dimensioned point goes out on its own, so dimensions never leak between points.
      const single = metrics.singleMetric();
      for (const [k, v] of Object.entries(dimensions)) single.addDimension(k, v);
      single.addMetric(name, MetricUnit.Count, value);
    },
    publish: () => metrics.publishStoredMetrics(),
  };
};

export { createMetrics, METRIC, NAMESPACE_DEFAULT };
export type { MetricsSink };
