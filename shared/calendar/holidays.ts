/**
 * US federal holidays as observed (OPM's rules: a Saturday holiday on the Friday before, a Sunday
 * one on the Monday after), from @18f/us-federal-holidays. Every publisher this service reads is a
 * US federal agency (or releases on their calendar), so this one list moves their releases.
 * Inauguration Day (DC area only) is not a holiday here, as for the publishers.
 */
import { allForYear } from '@18f/us-federal-holidays';

const BY_YEAR = new Map<number, ReadonlySet<string>>();

/** The observed holidays that fall in `year` (New Year's Day of year + 1 may be observed on 31 December). */
const holidaysIn = (year: number): ReadonlySet<string> => {
  let set = BY_YEAR.get(year);
  if (!set) {
    const observed = [...allForYear(year), ...allForYear(year + 1)].map((h) => (h as { dateString: string }).dateString);
    set = new Set(observed.filter((d) => d.startsWith(`${year}-`)));
    BY_YEAR.set(year, set);
  }
  return set;
};

/** ISO weekday of a YYYY-MM-DD date: 1 = Monday … 7 = Sunday. */
const isoWeekdayOf = (date: string): number => ((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;

/** @example isFederalHoliday('2026-11-26') // true (Thanksgiving) */
const isFederalHoliday = (date: string): boolean => holidaysIn(Number(date.slice(0, 4))).has(date);

/** A weekday that is not a federal holiday. */
const isBusinessDay = (date: string): boolean => isoWeekdayOf(date) <= 5 && !isFederalHoliday(date);

export { isFederalHoliday, isBusinessDay, isoWeekdayOf };
