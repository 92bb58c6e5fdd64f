/**
 * Pure weekly-inventory arithmetic (DESIGN.md "Derived figures"): week-over-week change, the
 * level against the 5-year average / min / max for the same week of year, and the surprise
 * (actual change minus the 5-year average change for that week).
 *
 * "Same week of year", precisely: for N = 1..5, the stored week whose as_of lies within ±3 days
 * of the same calendar date N years earlier (29 February maps to 28 February). Weekly series are
 * 7 days apart, so exactly one week-ending date falls in that 7-day window; the calendar drift of
 * week-ending dates (1 day a year, 2 in leap years) is what the tolerance absorbs.
 */

/** One weekly level. */
interface WeeklyPoint {
  as_of: string;
  value: number;
}

/** A prior year's comparison week. */
interface PriorYearWeek {
  /** 1..5: how many years before the latest week. */
  yearsBack: number;
  /** The calendar date searched around (±3 days). */
  target: string;
  /** The stored week found, or null. */
  level: WeeklyPoint | null;
  /** The week exactly 7 days before `level`, for that year's change. */
  weekBefore: WeeklyPoint | null;
  /** level - weekBefore, or null when either is missing. */
  change: number | null;
}

interface InventoryAnalysis {
  latest: WeeklyPoint;
  /** The week exactly 7 days before the latest, or null when it is not stored. */
  previous: WeeklyPoint | null;
  change: number | null;
  priorYears: PriorYearWeek[];
  /** Prior years (of 5) with a stored comparison week. */
  levelYears: number;
  /** Prior years (of 5) with a stored comparison week and the week before it. */
  changeYears: number;
  /** Statistics of the 5 prior-year levels; null unless all 5 are stored. */
  fiveYear: { average: number; min: WeeklyPoint; max: WeeklyPoint } | null;
  /** latest - 5-year average, and that as % of the average. */
  deviation: number | null;
  deviationPct: number | null;
  /** Average of the 5 prior-year changes for the same week; null unless all 5 exist. */
  averageChange: number | null;
  /** change - averageChange. */
  surprise: number | null;
}

const YEARS = 5;
const SAME_WEEK_TOLERANCE_DAYS = 3;
const DAY_MS = 86_400_000;

/** Derived figures are rounded to 4 decimals so float noise (93.42000000000002) never shows. */
const round4 = (x: number): number => Math.round(x * 1e4) / 1e4 + 0;

const dayNumber = (date: string): number => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
const fromDayNumber = (n: number): string => new Date(n * DAY_MS).toISOString().slice(0, 10);

/**
 * The same calendar date `years` earlier; 29 February becomes 28 February in a common year.
 * @example sameDateYearsBefore('2024-02-29', 1) // '2023-02-28'
 */
const sameDateYearsBefore = (date: string, years: number): string => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const year = y - years;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const day = m === 2 && d === 29 && !leap ? 28 : d;
  return `${year}-${String(m).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
};

/** Points by as_of; the analysis indexes a series once instead of scanning it per lookup. */
type WeekIndex = ReadonlyMap<string, WeeklyPoint>;
const indexWeeks = (points: readonly WeeklyPoint[] | WeekIndex): WeekIndex =>
  points instanceof Map ? points : new Map((points as readonly WeeklyPoint[]).map((p) => [p.as_of, p]));

/** The point nearest to `target` within ±`tolerance` days (ties: the earlier), or null. */
const nearestWithin = (points: readonly WeeklyPoint[] | WeekIndex, target: string, tolerance = SAME_WEEK_TOLERANCE_DAYS): WeeklyPoint | null => {
  const byDate = indexWeeks(points);
  const t = dayNumber(target);
  for (let gap = 0; gap <= tolerance; gap++) {
    const found = byDate.get(fromDayNumber(t - gap)) ?? byDate.get(fromDayNumber(t + gap));
    if (found) return found;
  }
  return null;
};

/** The point dated exactly 7 days before `date`, or null: a gap never passes for a weekly change. */
const weekBefore = (points: readonly WeeklyPoint[] | WeekIndex, date: string): WeeklyPoint | null =>
  indexWeeks(points).get(fromDayNumber(dayNumber(date) - 7)) ?? null;

/**
 * Analyses a weekly series at its latest week.
 * @param points the stored weeks (any order; at least 5 years and 2 weeks back for full figures)
 * @returns null when there is no point at all; otherwise every figure, null where inputs are missing
 * @example analyzeInventory([{as_of: '2026-02-06', value: 428829}, {as_of: '2026-01-30', value: 420299}]).change // 8530
 */
const analyzeInventory = (points: readonly WeeklyPoint[]): InventoryAnalysis | null => {
  const usable = points.filter((p) => Number.isFinite(p.value));
  if (usable.length === 0) return null;
  const latest = usable.reduce((a, b) => (b.as_of > a.as_of ? b : a));
  const byDate = indexWeeks(usable);
  const previous = weekBefore(byDate, latest.as_of);
  const change = previous ? round4(latest.value - previous.value) : null;

  const priorYears: PriorYearWeek[] = Array.from({ length: YEARS }, (_, i) => {
    const yearsBack = i + 1;
    const target = sameDateYearsBefore(latest.as_of, yearsBack);
    const level = nearestWithin(byDate, target);
    const before = level ? weekBefore(byDate, level.as_of) : null;
    return { yearsBack, target, level, weekBefore: before, change: level && before ? round4(level.value - before.value) : null };
  });
  const levels = priorYears.flatMap((y) => (y.level ? [y.level] : []));
  const changes = priorYears.flatMap((y) => (y.change !== null ? [y.change] : []));

  let fiveYear: InventoryAnalysis['fiveYear'] = null;
  let deviation: number | null = null;
  let deviationPct: number | null = null;
  if (levels.length === YEARS) {
    const average = round4(levels.reduce((s, p) => s + p.value, 0) / YEARS);
    // Ties keep the more recent year, the one a reader remembers.
    const min = levels.reduce((a, b) => (b.value < a.value ? b : a));
    const max = levels.reduce((a, b) => (b.value > a.value ? b : a));
    fiveYear = { average, min, max };
    deviation = round4(latest.value - average);
    deviationPct = average !== 0 ? round4(((latest.value - average) / average) * 100) : null;
  }
  const averageChange = changes.length === YEARS ? round4(changes.reduce((s, c) => s + c, 0) / YEARS) : null;
  const surprise = change !== null && averageChange !== null ? round4(change - averageChange) : null;

  return {
    latest,
    previous,
    change,
    priorYears,
    levelYears: levels.length,
    changeYears: changes.length,
    fiveYear,
    deviation,
    deviationPct,
    averageChange,
    surprise,
  };
};

/** The method of every derived inventory figure, served in the response body. */
const INVENTORY_METHOD = Object.freeze({
  week_over_week_change: 'latest level minus the level of the week ending exactly 7 days earlier; null when that week is not stored',
  same_week_of_year:
    'for each of the 5 prior years, the stored week whose week-ending date lies within ±3 days of the same calendar date that many years earlier (29 Feb -> 28 Feb); with weekly data exactly one week qualifies',
  five_year_average_min_max: 'average, minimum and maximum of the 5 prior-year same-week levels; null unless all 5 years are stored',
  deviation: 'latest level minus the 5-year average, in the series unit; deviation_pct is that difference as a percent of the 5-year average',
  surprise:
    "actual week-over-week change minus the average of the 5 prior years' week-over-week changes for the same week (a seasonal-norm surprise, not a survey consensus); null unless all 5 prior-year changes are stored",
  rounding: 'derived figures are rounded to 4 decimals',
});

export { analyzeInventory, sameDateYearsBefore, nearestWithin, weekBefore, round4, INVENTORY_METHOD, YEARS as INVENTORY_YEARS };
export type { WeeklyPoint, PriorYearWeek, InventoryAnalysis };
