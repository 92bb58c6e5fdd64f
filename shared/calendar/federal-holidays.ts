/**
 * The observed US federal holidays of a year, from the maintained `@18f/us-federal-holidays`
 * (its inauguration-day option off: see holidays.ts). A Lambda bundle carries this module as a
 * table the library wrote at build time (infra/bundle/federal-holidays.ts) instead of the library
 * and its date engine; the bundle test holds the table to the library for every year it covers.
 */
import { allForYear } from '@18f/us-federal-holidays';

/**
 * @example observedHolidays(2026).find((h) => h.date === '2026-11-26') // { date: '2026-11-26', name: 'Thanksgiving Day' }
 */
const observedHolidays = (year: number): Array<{ date: string; name: string }> => allForYear(year).map((h) => ({ date: h.dateString, name: h.name }));

export { observedHolidays };
