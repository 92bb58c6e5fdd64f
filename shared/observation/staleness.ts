/**
 * Pure: whether a figure is older than its publisher's cadence allows. A source whose ingestion
 * runs fine can still serve old data (a discontinued series, a sample that ends in 2024): the
 * newest as_of is what an agent acts on, so it is judged too.
 */
import type { FreshnessClass } from '../catalog/instruments';
import { addDays } from '../dates';

/**
 * Days an as_of may lag today before the figure is stale, by freshness class: daily prices are
 * published weekly at worst (EIA spot, Wednesdays) plus holiday shifts; weekly reports a week late
 * plus one; monthly series (World Bank, FRED monthly) about two months after the month they describe.
 * Classes without a regular cadence (decree, annual figures labelled monthly) are judged by their
 * source's runs only.
 */
const MAX_LAG_DAYS: Readonly<Partial<Record<FreshnessClass, number>>> = Object.freeze({
  intraday: 3,
  delayed: 3,
  eod: 10,
  weekly: 14,
  monthly: 62,
});

/**
 * @param asOf the figure's as_of (YYYY-MM-DD)
 * @param freshness its freshness class
 * @param today today's date (YYYY-MM-DD, UTC)
 * @param sourceStale whether its source's last successful run is too old (GET /health)
 */
const isStale = (asOf: string, freshness: FreshnessClass, today: string, sourceStale: boolean): boolean => {
  const lag = MAX_LAG_DAYS[freshness];
  return sourceStale || (lag !== undefined && addDays(asOf, lag) < today);
};

const STALE_RULE =
  'stale when the source is stale in GET /health, or the as_of lags today by more than its cadence allows (eod 10 days, weekly 14, monthly 62, intraday 3)';

/** The rule of views that judge the data only (their bundles leave the source registry out). */
const DATA_LAG_RULE =
  "stale when the as_of lags today by more than its cadence allows (eod 10 days, weekly 14, monthly 62, intraday 3); GET /health reports each source's runs";

export { isStale, MAX_LAG_DAYS, STALE_RULE, DATA_LAG_RULE };
