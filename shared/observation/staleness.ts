/**
 * Pure: whether a figure is older than its publisher's cadence allows. A source whose ingestion
 * runs fine can still serve old data (a discontinued series, a sample that ends in 2024): the
 * newest as_of is what an agent acts on, so it is judged too.
 */
import type { FreshnessClass } from '../catalog/instruments';
import { addDays, addMonths, nextWeekday } from '../dates';

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

/**
 * The as_of the publisher's next figure should carry: the next weekday for daily classes, a week
 * on for weekly, a month on for monthly; null for classes without a regular cadence (decree).
 */
const expectedNextAsOf = (asOf: string, freshness: FreshnessClass): string | null => {
  switch (freshness) {
    case 'intraday':
    case 'delayed':
    case 'eod':
      return nextWeekday(asOf);
    case 'weekly':
      return addDays(asOf, 7);
    case 'monthly':
      return addMonths(asOf, 1);
    default:
      return null;
  }
};

/** How current one latest figure is, judged on its data alone (DATA_LAG_RULE); added to its provenance. */
interface FigureFreshness {
  /** Older than its cadence allows; null when its class has no regular cadence. */
  stale: boolean | null;
  /** The as_of the next release should carry (publisher holidays not counted); null without a cadence. */
  expected_next_as_of: string | null;
}

/** Pure: the freshness of a latest figure of class `freshness` dated `asOf`, on `today` (YYYY-MM-DD, UTC). */
const judgeFigure = (asOf: string, freshness: FreshnessClass, today: string): FigureFreshness => ({
  stale: MAX_LAG_DAYS[freshness] === undefined ? null : isStale(asOf, freshness, today, false),
  expected_next_as_of: expectedNextAsOf(asOf, freshness),
});

/** The rule of views that judge the data only (their bundles leave the source registry out). */
const DATA_LAG_RULE =
  "stale when the as_of lags today by more than its cadence allows (eod 10 days, weekly 14, monthly 62, intraday 3); GET /health reports each source's runs";

export { isStale, judgeFigure, expectedNextAsOf, MAX_LAG_DAYS, STALE_RULE, DATA_LAG_RULE };
export type { FigureFreshness };
