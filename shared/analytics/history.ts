/**
 * Pure history arithmetic: resampling a daily/weekly series to weekly or monthly points and
 * summarising a window. The aggregation is stated in every response (see AGGREGATION).
 */
type Frequency = 'native' | 'weekly' | 'monthly';

interface Point {
  as_of: string;
  value: number;
}

/** How each resampled point is made, as the response states it. */
const AGGREGATION: Readonly<Record<Frequency, string>> = Object.freeze({
  native: 'none: every published observation',
  weekly: "last published observation of each ISO week (Monday-Sunday); as_of is that observation's date",
  monthly: "last published observation of each calendar month; as_of is that observation's date",
});

/** ISO week id (e.g. 2025-W24) of a YYYY-MM-DD date. */
const isoWeekId = (date: string): string => {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7) + 3); // the Thursday of its week decides the ISO year
  const year = d.getUTCFullYear();
  const week = 1 + Math.floor((d.getTime() - Date.UTC(year, 0, 1)) / (7 * 86400_000));
  return `${year}-W${String(week).padStart(2, '0')}`;
};

/**
 * Keeps the last point of each period. Input must be sorted ascending by as_of.
 * @example resample([{as_of:'2025-06-02',value:1},{as_of:'2025-06-06',value:2}], 'weekly') // [{as_of:'2025-06-06',value:2}]
 */
const resample = <T extends Point>(points: readonly T[], frequency: Frequency): T[] => {
  if (frequency === 'native') return [...points];
  const bucket = frequency === 'weekly' ? isoWeekId : (d: string) => d.slice(0, 7);
  const out: T[] = [];
  for (const p of points) {
    const last = out.at(-1);
    if (last && bucket(last.as_of) === bucket(p.as_of)) out[out.length - 1] = p;
    else out.push(p);
  }
  return out;
};

interface WindowSummary {
  first: Point;
  last: Point;
  min: Point;
  max: Point;
  /** last - first, rounded to 10 decimals to keep float noise out of answers. */
  change: number;
  /** change / first in percent, null when first is 0. */
  change_pct: number | null;
}

const round = (x: number, digits = 10) => Number(x.toFixed(digits));

/** Summary of a non-empty ascending window; null for an empty one. Ties keep the earliest date. */
const summarize = (points: readonly Point[]): WindowSummary | null => {
  if (points.length === 0) return null;
  const pick = ({ as_of, value }: Point): Point => ({ as_of, value });
  let min = points[0]!;
  let max = points[0]!;
  for (const p of points) {
    if (p.value < min.value) min = p;
    if (p.value > max.value) max = p;
  }
  const first = points[0]!;
  const last = points.at(-1)!;
  const change = round(last.value - first.value);
  return {
    first: pick(first),
    last: pick(last),
    min: pick(min),
    max: pick(max),
    change,
    change_pct: first.value === 0 ? null : round((change / first.value) * 100, 4),
  };
};

export { AGGREGATION, isoWeekId, resample, summarize };
export type { Frequency, Point, WindowSummary };
