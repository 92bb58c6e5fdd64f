/**
 * How US federal holidays move the publishers' weekly releases. One table, used for
 * `published_at`, `next_release_at`, /v1/calendar and the CDK ingestion schedules, so that they
 * cannot disagree. Rules (the publishers' stated practice; `estimated` where they decide case by case):
 *
 * - next-business-day: a release whose day is a holiday comes out the next business day at the
 *   same time (NASS crop progress Monday -> Tuesday; the Fed's weekly H.10 rates Monday -> Tuesday).
 * - usda-fas-esr: export sales (Thursday 08:30 ET) come out on Friday when a holiday falls on the
 *   Monday to Thursday of the week (estimated unless the holiday is the Thursday itself).
 * - eia-wpsr: the Weekly Petroleum Status Report (Wednesday 10:30 ET) comes out Thursday at
 *   11:00 ET when a holiday falls on the Monday, Tuesday or Wednesday of its week (a Monday holiday
 *   is EIA's standing practice; a Tuesday or Wednesday one is estimated).
 * - eia-wngsr: the Weekly Natural Gas Storage Report (Thursday 10:30 ET) comes out Wednesday at
 *   12:00 ET in Thanksgiving week; another holiday earlier in the week leaves it on Thursday
 *   (estimated: EIA has moved it in some such weeks).
 * - cftc-cot: the Commitments of Traders (Friday 15:30 ET, positions of Tuesday) comes out the next
 *   business day after Friday when a holiday falls between that Tuesday and Friday (Thanksgiving
 *   week: the following Monday); estimated except in Thanksgiving week.
 */
import { isBusinessDay, isFederalHoliday, isoWeekdayOf } from './holidays';

type HolidayRule = 'next-business-day' | 'usda-fas-esr' | 'eia-wpsr' | 'eia-wngsr' | 'cftc-cot';

interface ReleaseDay {
  /** YYYY-MM-DD in the publisher's time zone. */
  date: string;
  hour: number;
  minute: number;
  /** Moved by a holiday. */
  shifted: boolean;
  /** The publisher decides such weeks case by case: this is the rule's best estimate. */
  estimated: boolean;
}

const addDays = (date: string, n: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** The first business day after `date`. */
const nextBusinessDay = (date: string): string => {
  let d = addDays(date, 1);
  while (!isBusinessDay(d)) d = addDays(d, 1);
  return d;
};

/** Holidays among the `days` days starting at `from`. */
const holidaysBetween = (from: string, days: number): string[] => Array.from({ length: days }, (_, i) => addDays(from, i)).filter((d) => isFederalHoliday(d));

/**
 * The actual release of one scheduled for `date` at hour:minute (publisher's time zone).
 * @example releaseDay('cftc-cot', '2026-11-27', 15, 30) // { date: '2026-11-30', hour: 15, minute: 30, shifted: true, estimated: false }
 */
const releaseDay = (rule: HolidayRule | undefined, date: string, hour: number, minute: number): ReleaseDay => {
  const as = (d: string, h = hour, m = minute, estimated = false): ReleaseDay => ({
    date: d,
    hour: h,
    minute: m,
    shifted: d !== date || h !== hour || m !== minute,
    estimated,
  });
  switch (rule) {
    case undefined:
      return as(date);
    case 'next-business-day':
      return isBusinessDay(date) ? as(date) : as(nextBusinessDay(date));
    case 'usda-fas-esr': {
      // date is the Thursday.
      const inWeek = holidaysBetween(addDays(date, -3), 4);
      if (inWeek.length === 0) return as(date);
      return as(nextBusinessDay(date), hour, minute, !inWeek.includes(date));
    }
    case 'eia-wpsr': {
      // date is the Wednesday; its Monday is two days before.
      const early = holidaysBetween(addDays(date, -2), 3);
      if (early.length === 0) return as(date);
      return as(
        nextBusinessDay(date),
        11,
        0,
        early.some((d) => isoWeekdayOf(d) !== 1),
      );
    }
    case 'eia-wngsr': {
      // date is the Thursday.
      if (isFederalHoliday(date)) return as(addDays(date, -1), 12, 0);
      return as(date, hour, minute, holidaysBetween(addDays(date, -3), 3).length > 0);
    }
    case 'cftc-cot': {
      // date is the Friday; the positions are of the Tuesday before.
      const inWeek = holidaysBetween(addDays(date, -3), 4);
      if (inWeek.length === 0) return as(date);
      const thanksgiving = inWeek.some((d) => d.slice(5, 7) === '11' && isoWeekdayOf(d) === 4);
      return as(nextBusinessDay(date), hour, minute, !thanksgiving);
    }
  }
};

/**
 * The extra ingestion run of a rule, on the days a moved release can land (CDK schedules it beside
 * the regular run; a run without a new release rewrites the same items).
 * @param weekdays the schedule's regular release weekdays (ISO)
 */
const catchUpOf = (rule: HolidayRule, weekdays: readonly number[], hour: number, minute: number): { weekdays: number[]; hour: number; minute: number } => {
  const next = (w: number) => (w % 7) + 1;
  switch (rule) {
    case 'next-business-day':
    case 'usda-fas-esr':
      return { weekdays: weekdays.map(next), hour, minute };
    case 'eia-wpsr':
      return { weekdays: [4], hour: 11, minute: 0 };
    case 'eia-wngsr':
      return { weekdays: [3], hour: 12, minute: 0 };
    case 'cftc-cot':
      return { weekdays: [1, 2], hour, minute };
  }
};

export { releaseDay, catchUpOf, nextBusinessDay };
export type { HolidayRule, ReleaseDay };
