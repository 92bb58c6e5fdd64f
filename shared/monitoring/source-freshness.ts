/**
 * The scheduled freshness check (entry: functions/source-freshness.ts). Every source is judged by
 * the rule GET /health applies (shared/families/freshness.ts: its runs and its newest figure against
 * its cadence) and one SourceStale point (1 stale, 0 fresh) is emitted per source per check.
 *
 * Why a check and not the runs themselves: a stale-source alarm must fire within the source's own
 * window, and those windows (8 days to 400 days) are longer than anything CloudWatch evaluates (an
 * alarm looks back at most 7 days; "no successful run for 40 days" cannot be written as an alarm on
 * run counts). The check turns "how old" into a value that exists every few minutes, so the alarm
 * only asks "is it 1 now" and a missing point means the check itself stopped (alarmed too).
 */
import { loadFreshness } from '../families/freshness';
import { logger } from '../observability/logger';
import { METRIC, type MetricsSink } from '../observability/metrics';
import type { Services } from '../services';

interface FreshnessCheckResult {
  checked: number;
  /** Ids of the sources that are stale now. */
  stale: string[];
}

/**
 * One check: reads every source's run status, emits SourceStale per source and publishes.
 * @example await checkSourceFreshness(services, createMetrics(config.METRICS_NAMESPACE, METRIC_SERVICE.ingest));
 */
const checkSourceFreshness = async (services: Services, metrics: MetricsSink): Promise<FreshnessCheckResult> => {
  const sources = await loadFreshness(services);
  for (const s of sources) metrics.count(METRIC.sourceStale, s.stale ? 1 : 0, { source: s.id });
  metrics.publish();
  const stale = sources.filter((s) => s.stale);
  if (stale.length) logger.warn('stale sources', { stale: stale.map((s) => ({ source: s.id, reason: s.stale_reason, last_error: s.last_error })) });
  return { checked: sources.length, stale: stale.map((s) => s.id) };
};

export { checkSourceFreshness };
export type { FreshnessCheckResult };
