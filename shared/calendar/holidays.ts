/**
 * US federal holidays as observed (OPM's rule: a Saturday holiday is observed on the Friday
 * before, a Sunday one on the Monday after), from the maintained `@18f/us-federal-holidays`
 * table. Its opt-in inauguration-day option stays off: Inauguration Day is a holiday only for
 * federal staff in the Washington area, and none of our publishers moves a release for it.
 * One-off closures by executive order (24 and 26 December 2025) are not holidays here: the
 * releases they moved are in announced.ts.
 */
import { addDays } from '../dates';
import { observedHolidays } from './federal-holidays';

const cache = new Map<number, ReadonlyMap<string, string>>();

/** Observed holidays dated in `year` (New Year's Day of the next year can be observed on 31 December). */
const holidaysOf = (year: number): ReadonlyMap<string, string> => {
  let map = cache.get(year);
  if (!map) {
    const all = [...observedHolidays(year), ...observedHolidays(year + 1)].map((h) => [h.date, h.name] as const);
    map = new Map(all.filter(([d]) => d.startsWith(`${year}-`)));
    cache.set(year, map);
  }
  return map;
};

/**
 * The name of the federal holiday observed on `date` (YYYY-MM-DD), or null.
 * @example federalHoliday('2026-11-26') // 'Thanksgiving Day'
 * @example federalHoliday('2027-07-05') // 'Independence Day' (4 July 2027 is a Sunday)
 */
const federalHoliday = (date: string): string | null => holidaysOf(Number(date.slice(0, 4))).get(date) ?? null;

/** ISO weekday of a date: 1 = Monday … 7 = Sunday. */
const isoWeekday = (date: string): number => ((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;

/** A weekday that is not an observed federal holiday. */
const isBusinessDay = (date: string): boolean => isoWeekday(date) <= 5 && federalHoliday(date) === null;

/** The first business day strictly after `date`. @example nextBusinessDay('2026-11-25') // '2026-11-27' */
const nextBusinessDay = (date: string): string => {
  let d = addDays(date, 1);
  while (!isBusinessDay(d)) d = addDays(d, 1);
  return d;
};

/** The first business day on or after `date`. */
const businessDayOnOrAfter = (date: string): string => (isBusinessDay(date) ? date : nextBusinessDay(date));

/** The last business day strictly before `date`. */
const previousBusinessDay = (date: string): string => {
  let d = addDays(date, -1);
  while (!isBusinessDay(d)) d = addDays(d, -1);
  return d;
};

/** The observed holidays from `from` to `to` inclusive (at most a few weeks in practice), in date order. */
const holidaysBetween = (from: string, to: string): { date: string; name: string }[] => {
  const out: { date: string; name: string }[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) {
    const name = federalHoliday(d);
    if (name) out.push({ date: d, name });
  }
  return out;
};

export { federalHoliday, isoWeekday, isBusinessDay, nextBusinessDay, businessDayOnOrAfter, previousBusinessDay, holidaysBetween };
