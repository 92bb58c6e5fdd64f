/**
 * Whether a window of dated points covers its span well enough to be judged: a "1-year low" read
 * from 49 daily points of ten weeks is a ten-week low (issue 34). The rule COT's 3-year figures
 * already follow (shared/analytics/cot.ts): the points reach back to the window's first period and
 * number at least 90 % of what the cadence publishes over the span. Pure.
 */
import type { Cadence } from '../observation/staleness';
import { addDays, daysBetween } from '../dates';

/** Share of a window's expected points that must be stored (COT's COVERAGE_SHARE). */
const MIN_COVERAGE_PCT = 90;

/**
 * Days the first stored point may lie after the window's start and still be its first period: less
 * than a week for daily series (a weekend and a holiday) and weekly ones, less than the shortest
 * month for monthly ones (their points fall on one day of the month, the window starts on it).
 */
const LEAD_DAYS: Readonly<Partial<Record<Cadence, number>>> = Object.freeze({ intraday: 7, delayed: 7, eod: 7, weekly: 7, monthly: 28, annual: 365 });

const weekdaysBetween = (start: string, end: string): number => {
  let n = 0;
  for (let d = start; d <= end; d = addDays(d, 1)) {
    const dow = new Date(`${d}T00:00:00Z`).getUTCDay();
    if (dow !== 0 && dow !== 6) n++;
  }
  return n;
};

/** Whole periods of `months` from start through end, both counted: 2024-11-01..2025-11-01 monthly is 13. */
const periodsOfMonths = (start: string, end: string, months: number): number => {
  const [sy, sm, sd] = start.split('-').map(Number) as [number, number, number];
  const [ey, em, ed] = end.split('-').map(Number) as [number, number, number];
  const whole = (ey - sy) * 12 + (em - sm) - (ed < sd ? 1 : 0);
  return Math.floor(whole / months) + 1;
};

/**
 * How many points the cadence publishes from start through end (both included); null when the
 * cadence has no regular period (then no window is covered).
 * @example expectedPoints('2024-11-01', '2025-11-01', 'monthly') // 13
 */
const expectedPoints = (start: string, end: string, cadence: Cadence): number | null => {
  switch (cadence) {
    case 'intraday':
    case 'delayed':
    case 'eod':
      return weekdaysBetween(start, end);
    case 'weekly':
      return Math.floor(daysBetween(start, end) / 7) + 1;
    case 'monthly':
      return periodsOfMonths(start, end, 1);
    case 'annual':
      return periodsOfMonths(start, end, 12);
    default:
      return null;
  }
};

interface WindowCoverage {
  /** Points stored in the window. */
  points: number;
  /** Points the cadence publishes over the window; null without a regular cadence. */
  expected: number | null;
  /** points / expected x 100, rounded to 0.1; null without an expectation. */
  coverage_pct: number | null;
  /** Enough to judge: reaching back to the first period and at least MIN_COVERAGE_PCT of the points. */
  covered: boolean;
  /** Why not, in words (null when covered). */
  shortfall: string | null;
}

/**
 * The coverage of a window [start, end] by the dates of its stored points.
 * @param dates the as_of of each point in the window, ascending
 * @example windowCoverage(['2024-01-02', …49 dates…, '2024-03-12'], '2023-03-12', '2024-03-12', 'eod').covered // false
 */
const windowCoverage = (dates: readonly string[], start: string, end: string, cadence: Cadence): WindowCoverage => {
  const expected = expectedPoints(start, end, cadence);
  const points = dates.length;
  const coverage_pct = expected ? Math.round((1000 * points) / expected) / 10 : null;
  const lead = LEAD_DAYS[cadence];
  const first = dates[0];
  const late = first !== undefined && lead !== undefined && daysBetween(start, first) >= lead;
  const shortfall =
    expected === null || lead === undefined
      ? `${cadence} figures have no regular period to count a window by`
      : points === 0
        ? 'no points in the window'
        : late
          ? `the stored points start ${first}, not in the window's first period from ${start}`
          : coverage_pct! < MIN_COVERAGE_PCT
            ? `${points} of the ${expected} ${cadence} points of the window (${coverage_pct} %, needs ${MIN_COVERAGE_PCT} %)`
            : null;
  return { points, expected, coverage_pct, covered: shortfall === null, shortfall };
};

export { MIN_COVERAGE_PCT, expectedPoints, windowCoverage };
export type { WindowCoverage };
