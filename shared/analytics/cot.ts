/**
 * Pure managed-money positioning arithmetic on CFTC COT reports: net, net as a percent of open
 * interest, the week-over-week change of net, and where the latest net stands in its 3-year
 * history (percentile rank and position in the min-max range).
 */
import { round4, sameDateYearsBefore } from './inventory';
import { addDays } from '../dates';

/** One weekly report of one market. */
interface CotPoint {
  /** Report date (Tuesday positions), YYYY-MM-DD. */
  as_of: string;
  long: number;
  short: number;
  spreading: number;
  openInterest: number;
}

interface CotRange {
  /** First date of the window: the same calendar date 3 years before the latest report. */
  start: string;
  end: string;
  /** Reports stored in [start, end], the latest included. */
  reports: number;
  /** Reports a complete window would hold (one a week). */
  expected: number;
  /** True when the stored reports cover the window (see COT_METHOD.coverage). */
  covered: boolean;
  /** Percentile rank of the latest net among the window's nets, 0..100; null unless covered. */
  percentile: number | null;
  /** (net - min) / (max - min) x 100; null unless covered or when max = min. */
  index: number | null;
  min: { as_of: string; net: number } | null;
  max: { as_of: string; net: number } | null;
}

interface CotAnalysis {
  latest: CotPoint;
  net: number;
  /** net / open interest x 100; null when open interest is 0. */
  netPctOi: number | null;
  /** The report before the latest (at most 10 days older), or null when there is none. */
  previous: CotPoint | null;
  netChange: number | null;
  range: CotRange;
}

const RANGE_YEARS = 3;
const COVERAGE_SHARE = 0.9;
const DAY_MS = 86_400_000;

const netOf = (p: CotPoint) => p.long - p.short;
const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;

/**
 * Percentile rank with mid-rank ties: 100 x (count below + half the count equal) / n. `x` is
 * normally one of `values` (the latest week is part of its own window).
 * @example percentRank([1, 2, 3, 4], 3) // 62.5 = 100 x (2 + 0.5) / 4
 */
/** Days a previous report may lie before the latest one and still be "last week's" (holiday shifts). */
const MAX_PREVIOUS_GAP_DAYS = 10;

const percentRank = (values: readonly number[], x: number): number | null => {
  if (values.length === 0) return null;
  const below = values.filter((v) => v < x).length;
  const equal = values.filter((v) => v === x).length;
  return round4((100 * (below + 0.5 * equal)) / values.length);
};

/** Position of `x` in [min, max] as 0..100; null when the range is empty or flat. */
const rangePosition = (min: number, max: number, x: number): number | null => (max > min ? round4((100 * (x - min)) / (max - min)) : null);

/**
 * Analyses the reports of one market at its latest report.
 * @param points stored reports, any order
 * @returns null when there are none
 */
const analyzeCot = (points: readonly CotPoint[]): CotAnalysis | null => {
  if (points.length === 0) return null;
  const latest = points.reduce((a, b) => (b.as_of > a.as_of ? b : a));
  const net = netOf(latest);
  // The report before it, not "as_of minus 7 days": a holiday can move a report date by a day or two.
  // One more than 10 days older means a missing week, and no week-over-week change.
  const before = points.filter((p) => p.as_of < latest.as_of).reduce<CotPoint | null>((a, b) => (a === null || b.as_of > a.as_of ? b : a), null);
  const previous = before && before.as_of >= addDays(latest.as_of, -MAX_PREVIOUS_GAP_DAYS) ? before : null;

  const start = sameDateYearsBefore(latest.as_of, RANGE_YEARS);
  const window = points.filter((p) => p.as_of >= start && p.as_of <= latest.as_of);
  const expected = Math.floor((dayNumber(latest.as_of) - dayNumber(start)) / 7) + 1;
  const earliest = window.reduce((a, b) => (b.as_of < a.as_of ? b : a));
  // Covered: the stored reports reach back to the window's first week and miss at most 10 % of it.
  const covered = dayNumber(earliest.as_of) - dayNumber(start) < 7 && window.length >= Math.ceil(COVERAGE_SHARE * expected);
  const nets = window.map(netOf);
  let min: CotRange['min'] = null;
  let max: CotRange['max'] = null;
  if (covered) {
    const lo = window.reduce((a, b) => (netOf(b) < netOf(a) ? b : a));
    const hi = window.reduce((a, b) => (netOf(b) > netOf(a) ? b : a));
    min = { as_of: lo.as_of, net: netOf(lo) };
    max = { as_of: hi.as_of, net: netOf(hi) };
  }
  return {
    latest,
    net,
    netPctOi: latest.openInterest > 0 ? round4((100 * net) / latest.openInterest) : null,
    previous,
    netChange: previous ? net - netOf(previous) : null,
    range: {
      start,
      end: latest.as_of,
      reports: window.length,
      expected,
      covered,
      percentile: covered ? percentRank(nets, net) : null,
      index: covered && min && max ? rangePosition(min.net, max.net, net) : null,
      min,
      max,
    },
  };
};

/** The method of every derived COT figure, served in the response body. */
const COT_METHOD = Object.freeze({
  net: 'managed-money long minus managed-money short, in contracts (CFTC disaggregated futures-only report, all months)',
  net_pct_oi: 'net as a percent of total open interest',
  net_change_wow:
    'net minus the net of the previous stored report (7 days earlier, or 6-8 when a holiday moved a report date); null when that report is more than 10 days older (a missing week)',
  window: `reports dated from the same calendar date ${RANGE_YEARS} years before the latest report through the latest report, the latest included`,
  coverage: `the ${RANGE_YEARS}-year figures need stored reports reaching back to the window's first week and at least ${COVERAGE_SHARE * 100} % of its weekly reports; otherwise they are null`,
  percentile: "percentile rank of the latest net among the window's nets: 100 x (count below + half the count equal) / count",
  index: "position of the latest net between the window's minimum and maximum net: 100 x (net - min) / (max - min)",
  rounding: 'derived figures are rounded to 4 decimals',
});

export { analyzeCot, percentRank, rangePosition, COT_METHOD, RANGE_YEARS as COT_RANGE_YEARS };
export type { CotPoint, CotAnalysis, CotRange };
