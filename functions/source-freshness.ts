/** Scheduled Lambda: emits SourceStale per source (the stale-source alarms read it), every 15 minutes. */
import { checkSourceFreshness } from '../shared/monitoring/source-freshness';
import { createMetrics, METRIC_SERVICE, type MetricsSink } from '../shared/observability/metrics';
import { servicesFromEnvironment } from '../shared/services';

let metrics: MetricsSink | undefined;

export const handler = async () => {
  const services = servicesFromEnvironment();
  metrics ??= createMetrics(services.config.METRICS_NAMESPACE, METRIC_SERVICE.ingest);
  return checkSourceFreshness(services, metrics);
};
