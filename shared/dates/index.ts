/**
 * Calendar-date arithmetic on `YYYY-MM-DD` strings, in UTC. One module for every family and
 * source, so that "a year before" means the same thing everywhere.
 */

const DAY_MS = 86_400_000;

/** The date `n` days after (negative: before) `date`. @example addDays('2025-03-01', -1) // '2025-02-28' */
const addDays = (date: string, n: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/**
 * The same calendar date `years` earlier (negative: later); 29 February falls back to the
 * 28th in a common year instead of rolling into March.
 * @example addYears('2024-02-29', -1) // '2023-02-28'
 */
const addYears = (date: string, years: number): string => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const year = y + years;
  const lastDay = new Date(Date.UTC(year, m, 0)).getUTCDate();
  return `${String(year).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(Math.min(d, lastDay)).padStart(2, '0')}`;
};

/**
 * The same instant `months` later (negative: earlier), the day clamped to the month's last day.
 * @example addMonthsToInstant('2026-01-31T12:00:00.000Z', 1) // '2026-02-28T12:00:00.000Z'
 */
const addMonthsToInstant = (iso: string, months: number): string => {
  const d = new Date(iso);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return target.toISOString();
};

/** The same calendar date `months` later, clamped to the month's end. @example addMonths('2026-01-31', 1) // '2026-02-28' */
const addMonths = (date: string, months: number): string => addMonthsToInstant(`${date}T00:00:00.000Z`, months).slice(0, 10);

/** The next Monday-to-Friday date after `date` (publisher holidays are not known here). */
const nextWeekday = (date: string): string => {
  let next = addDays(date, 1);
  while ([0, 6].includes(new Date(`${next}T00:00:00Z`).getUTCDay())) next = addDays(next, 1);
  return next;
};

/** The UTC calendar date of an instant. @example isoDate(new Date('2025-01-02T23:00:00Z')) // '2025-01-02' */
const isoDate = (t: Date): string => t.toISOString().slice(0, 10);

/** Whole days from `a` to `b` (positive when b is later). */
const daysBetween = (a: string, b: string): number => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);

export { addDays, addMonths, addMonthsToInstant, addYears, nextWeekday, isoDate, daysBetween };
