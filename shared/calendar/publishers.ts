/**
 * Publisher release calendars: per publisher, the release of a reference period (week ending,
 * report date, trading day, report month) under its own holiday rule, the announced exceptions
 * (announced.ts), and whether the date is verified or estimated. Pure: no clock, no I/O.
 * `published_at` (sources/common.ts), `/v1/calendar`, `/health` and the CDK ingestion schedules
 * all read these functions.
 *
 * A date is `estimated` when it lies outside the window in which it was checked against the
 * publisher's own dated schedule: it still follows the publisher's stated rule and the observed
 * federal holidays, but a one-off change (a closure, a shutdown) would not be in it.
 */
import { addDays } from '../dates';
import { CFTC_COT_ANNOUNCED, EIA_WNGSR_ANNOUNCED, EIA_WPSR_ANNOUNCED, WASDE_RELEASE_DATES, type AnnouncedRelease } from './announced';
import { businessDayOnOrAfter, federalHoliday, holidaysBetween, isBusinessDay, isoWeekday, nextBusinessDay, previousBusinessDay } from './holidays';
import { EIA_SPOT_RECORDED, PINK_SHEET_RECORDED } from './recorded';
import { atLocal, endOfDay } from './zoned';

const ET = 'America/New_York';

/** A weekly release slot: ISO weekdays (1 = Monday) and a local time. */
interface Slot {
  readonly weekdays: readonly number[];
  readonly hour: number;
  readonly minute: number;
}

/** One scheduled release. */
interface Release {
  /** The release day in the publisher's time zone (YYYY-MM-DD). */
  date: string;
  /** The release instant (ISO, UTC). */
  at: string;
  /** True outside the window checked against the publisher's dated schedule. */
  estimated: boolean;
  /** Why it is not in the regular slot (a holiday, an announcement); null when it is. */
  shifted_by: string | null;
}

type PublisherId =
  | 'eia-wpsr'
  | 'eia-spot'
  | 'eia-wngsr'
  | 'cftc-cot'
  | 'usda-fas-esr'
  | 'usda-nass-crop-progress'
  | 'fed-h10'
  | 'usda-wasde'
  | 'worldbank'
  | 'usgs-mcs';

interface PublisherCalendar {
  readonly id: PublisherId;
  readonly timeZone: string;
  /** The regular weekly slot and the slots a holiday can move a release to (CDK runs in each). */
  readonly slots?: { readonly regular: Slot; readonly shifted: readonly Slot[] };
  /** The release of one reference period, or null when it has none. */
  releaseOf(period: string): Release | null;
  /** Reference periods whose release can fall between `from` and `to` (inclusive dates), in order. */
  periodsAround(from: string, to: string): string[];
}

/** Date ranges [from, to] (inclusive) in which release dates were checked against the publisher's own dated schedule. */
type Verified = readonly (readonly [string, string])[];

const release = (date: string, hour: number, minute: number, verified: Verified, shiftedBy: string | null): Release => ({
  date,
  at: atLocal(date, hour, minute, ET),
  estimated: !verified.some(([from, to]) => date >= from && date <= to),
  shifted_by: shiftedBy,
});

const announced = (a: AnnouncedRelease, verified: Verified): Release => {
  const r = release(a.date, a.hour, a.minute, verified, a.note);
  return a.estimated ? { ...r, estimated: true } : r;
};

/**
 * A release whose day is known and whose time is not stated: the end of that day (23:59:59 ET), the
 * earliest instant by which it surely happened (never 00:00, which would date it a day early).
 */
const releaseByEndOfDay = (date: string, verified: Verified, shiftedBy: string | null): Release => ({
  date,
  at: endOfDay(date, ET),
  estimated: !verified.some(([from, to]) => date >= from && date <= to),
  shifted_by: shiftedBy,
});

/** Every date with ISO weekday `weekday` from shortly before `from` through `to`. */
const weekdaysAround = (weekday: number, from: string, to: string, leadDays = 14): string[] => {
  let d = addDays(from, -leadDays);
  while (isoWeekday(d) !== weekday) d = addDays(d, 1);
  const out: string[] = [];
  for (; d <= to; d = addDays(d, 7)) out.push(d);
  return out;
};

/** The names of the holidays observed from `from` to `to`, or null when there are none. */
const holidayIn = (from: string, to: string): string | null => {
  const hs = holidaysBetween(from, to);
  return hs.length ? hs.map((h) => h.name).join(', ') : null;
};

// ---- EIA Weekly Petroleum Status Report --------------------------------------------------------

/** WPSR release days checked against EIA's holiday schedule (2025-2026 rows). */
const WPSR_VERIFIED: Verified = [['2025-01-01', '2026-12-31']];

/**
 * EIA WPSR, week ending Friday F: Wednesday F+5 at 10:30 ET; when a federal holiday falls on
 * the Monday, Tuesday or Wednesday of the release week, the next business day (Thursday) at
 * 12:00 ET (11:00 ET until January 2025, as EIA's older schedules list it). A Thursday or Friday
 * holiday (Thanksgiving, Juneteenth 2025, Christmas 2026) leaves the Wednesday release alone.
 * Source: https://www.eia.gov/petroleum/supply/weekly/schedule.php ("released ... after 10:30 a.m.
 * eastern time on Wednesday", plus its holiday table).
 */
const wpsrRelease = (weekEnding: string): Release => {
  const ann = EIA_WPSR_ANNOUNCED[weekEnding];
  if (ann) return announced(ann, WPSR_VERIFIED);
  const wednesday = addDays(weekEnding, 5);
  const holiday = holidayIn(addDays(weekEnding, 3), wednesday);
  if (!holiday) return release(wednesday, 10, 30, WPSR_VERIFIED, null);
  const day = nextBusinessDay(wednesday);
  return day < '2025-01-20' ? release(day, 11, 0, WPSR_VERIFIED, holiday) : release(day, 12, 0, WPSR_VERIFIED, holiday);
};

const WPSR_SLOTS = { regular: { weekdays: [3], hour: 10, minute: 30 }, shifted: [{ weekdays: [4], hour: 12, minute: 0 }] } as const;

const eiaWpsr: PublisherCalendar = {
  id: 'eia-wpsr',
  timeZone: ET,
  slots: WPSR_SLOTS,
  releaseOf: wpsrRelease,
  periodsAround: (from, to) => weekdaysAround(5, from, to),
};

// ---- EIA daily spot prices -------------------------------------------------------------------

/** The ISO date of the Wednesday on or after `date`. */
const wednesdayOnOrAfter = (date: string): string => addDays(date, (3 - isoWeekday(date) + 7) % 7);

/** Days from `a` to `b` (YYYY-MM-DD). */
const daysBetween = (a: string, b: string): number => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);

/**
 * How many days before its week's Wednesday a spot series' release ends, read from its recorded
 * releases (recorded.ts): 2 for crude, gasoline and ULSD (Wednesday 2025-06-18 ends Monday 6/16), 1
 * for Henry Hub (Wednesday releases end on the Tuesday). The largest seen; 2 for a series without one.
 */
const spotLagDays = (seriesId: string): number => {
  const seen = (EIA_SPOT_RECORDED[seriesId] ?? []).map((r) => daysBetween(r.latest, wednesdayOnOrAfter(r.date)));
  return seen.length ? Math.max(...seen) : Math.max(...Object.keys(EIA_SPOT_RECORDED).map(spotLagDays));
};

/** The smallest lag of any spot series: the release that carries a day first, for one series or another. */
const SPOT_MIN_LAG = Math.min(...Object.keys(EIA_SPOT_RECORDED).map(spotLagDays));

/**
 * EIA daily spot prices (RWTC, RBRTE, RNGWHHD, the NY Harbor and Gulf Coast products) are daily
 * observations published once a week, with the WPSR's week (holiday shifts and announced delays
 * included): the release of the week whose Wednesday is `lagDays` or more after the day carries it.
 * The workbooks state a release date but no regular time (the recorded ones were stamped 10:40 and
 * 12:16 ET), so a release is dated by the end of its day unless its workbook was recorded with a
 * stamp; every release not recorded is estimated.
 * @example spotReleaseOf('PET.RWTC.D', '2025-06-17').at // '2025-06-26T03:59:59.000Z' (Tuesday's WTI is in the next week's release)
 */
const spotReleaseOf = (seriesId: string, day: string, lagDays = spotLagDays(seriesId)): Release => {
  const wpsr = wpsrRelease(addDays(wednesdayOnOrAfter(addDays(day, lagDays)), -5));
  const recorded = (EIA_SPOT_RECORDED[seriesId] ?? []).find((r) => r.date === wpsr.date);
  if (recorded?.stamp) {
    const [hour, minute, second] = recorded.stamp;
    return { date: recorded.date, at: atLocal(recorded.date, hour, minute, ET, second), estimated: false, shifted_by: wpsr.shifted_by };
  }
  return releaseByEndOfDay(wpsr.date, recorded ? [[recorded.date, recorded.date]] : [], wpsr.shifted_by);
};

const eiaSpot: PublisherCalendar = {
  id: 'eia-spot',
  timeZone: ET,
  slots: WPSR_SLOTS,
  // The release that first carries a day for the series with the shortest lag (Henry Hub).
  releaseOf: (day) => spotReleaseOf('', day, SPOT_MIN_LAG),
  // The releases are the WPSR's: enumerate its weeks and map each to a day it carries.
  periodsAround: (from, to) => eiaWpsr.periodsAround(from, to).map((f) => addDays(f, 3)),
};

// ---- EIA Weekly Natural Gas Storage Report ---------------------------------------------------

/** WNGSR release days checked against EIA's schedule page (its rows from September 2025 on). */
const WNGSR_VERIFIED: Verified = [['2025-09-01', '2026-12-31']];

/**
 * EIA WNGSR, week ending Friday F: Thursday F+6 at 10:30 ET. A holiday on that Thursday
 * (Thanksgiving, Christmas or New Year's Day on a Thursday) moves it to the business day before
 * at 12:00 ET; a holiday on the Tuesday or Wednesday (Veterans Day 2025 and 2026) moves it to
 * Friday 10:30 ET; a Monday holiday moves nothing. Source: https://ir.eia.gov/ngs/schedule.html
 * ("10:30 a.m. (Eastern time) on Thursdays with the following exceptions").
 */
const wngsrRelease = (weekEnding: string): Release => {
  const ann = EIA_WNGSR_ANNOUNCED[weekEnding];
  if (ann) return announced(ann, WNGSR_VERIFIED);
  const thursday = addDays(weekEnding, 6);
  const onThursday = federalHoliday(thursday);
  if (onThursday) return release(previousBusinessDay(thursday), 12, 0, WNGSR_VERIFIED, onThursday);
  const midweek = holidayIn(addDays(weekEnding, 4), addDays(weekEnding, 5));
  if (midweek) return release(nextBusinessDay(thursday), 10, 30, WNGSR_VERIFIED, midweek);
  return release(thursday, 10, 30, WNGSR_VERIFIED, null);
};

const eiaWngsr: PublisherCalendar = {
  id: 'eia-wngsr',
  timeZone: ET,
  slots: {
    regular: { weekdays: [4], hour: 10, minute: 30 },
    shifted: [
      { weekdays: [3], hour: 12, minute: 0 },
      { weekdays: [5], hour: 10, minute: 30 },
    ],
  },
  releaseOf: wngsrRelease,
  periodsAround: (from, to) => weekdaysAround(5, from, to),
};

// ---- CFTC Commitments of Traders -------------------------------------------------------------

/**
 * COT release days checked against the CFTC's schedule: its 2024 release table ("*Delayed
 * release date due to a Federal holiday": Mon 24 June, Mon 8 July, Mon 2 December, Mon 30
 * December) and the original publish dates of October 2025 - January 2026 in its catch-up table.
 */
const COT_VERIFIED: Verified = [
  ['2024-01-01', '2024-12-31'],
  ['2025-10-01', '2026-01-23'],
];

/**
 * CFTC COT, report date R (the Tuesday; the Monday when Tuesday is a holiday): the Friday of
 * that week at 15:30 ET; a federal holiday on the Wednesday, Thursday or Friday delays it to the
 * next business day (the Monday after, so Thanksgiving-week reports come out on Monday). A
 * Monday or Tuesday holiday delays nothing. Source:
 * https://www.cftc.gov/MarketReports/CommitmentsofTraders/ReleaseSchedule/index.htm
 */
const cotRelease = (reportDate: string): Release => {
  const ann = CFTC_COT_ANNOUNCED[reportDate];
  if (ann) return announced(ann, COT_VERIFIED);
  const friday = addDays(reportDate, 5 - isoWeekday(reportDate));
  const holiday = holidayIn(addDays(friday, -2), friday);
  if (!holiday) return release(friday, 15, 30, COT_VERIFIED, null);
  return release(nextBusinessDay(friday), 15, 30, COT_VERIFIED, holiday);
};

const cftcCot: PublisherCalendar = {
  id: 'cftc-cot',
  timeZone: ET,
  slots: { regular: { weekdays: [5], hour: 15, minute: 30 }, shifted: [{ weekdays: [1], hour: 15, minute: 30 }] },
  releaseOf: cotRelease,
  // A Tuesday holiday makes Monday the report date.
  periodsAround: (from, to) => weekdaysAround(2, from, to).map((t) => (isBusinessDay(t) ? t : addDays(t, -1))),
};

// ---- USDA FAS Export Sales -------------------------------------------------------------------

/**
 * FAS weekly export sales, week ending Thursday E (reports due Monday E+4): Thursday E+7 at 08:30
 * ET; when a federal holiday falls from that Monday through the release Thursday (the deadline
 * moves to Tuesday, or the release day is closed), Friday E+8 08:30 ET (the next business day if
 * that Friday is a holiday too). A holiday on the Friday before the deadline (E+1) moves nothing:
 * in 2020, the calendar of 2026, the weeks ending Thursday 24 and 31 December (Christmas and New
 * Year on the Fridays after them) were published Thursday 31 December 2020 and Thursday 7 January
 * 2021 (KMAland, 31 Dec 2020: "the final US Export Sales Report of 2020 ... the next ... Thursday,
 * January 7th"; for the week to Dec. 31, USDA data "showed Jan. 7", daily.energybulletin.org, January 2021).
 * Sources: https://fas.usda.gov/programs/export-sales-reporting-program ("reporting period runs
 * Friday through Thursday ... report no later than 11:59 p.m. ET the following Monday ... If the
 * preceding Friday or Monday is a national holiday, the reporting deadline moves to Tuesday and
 * the weekly summary is published Friday") and https://apps.fas.usda.gov/export-sales/backgrnd.htm
 * ("8:30 a.m. on Friday during weeks that include a holiday"). No dated FAS schedule was checked,
 * so every date is estimated.
 */
const esrRelease = (weekEnding: string): Release => {
  const thursday = addDays(weekEnding, 7);
  const holiday = holidayIn(addDays(weekEnding, 4), thursday);
  if (!holiday) return release(thursday, 8, 30, [], null);
  return release(businessDayOnOrAfter(addDays(thursday, 1)), 8, 30, [], holiday);
};

const usdaFasEsr: PublisherCalendar = {
  id: 'usda-fas-esr',
  timeZone: ET,
  slots: { regular: { weekdays: [4], hour: 8, minute: 30 }, shifted: [{ weekdays: [5], hour: 8, minute: 30 }] },
  releaseOf: esrRelease,
  periodsAround: (from, to) => weekdaysAround(4, from, to),
};

// ---- USDA NASS Crop Progress -----------------------------------------------------------------

/** Months in which NASS publishes the national Crop Progress report (early April - late November). */
const CROP_PROGRESS_MONTHS = [4, 5, 6, 7, 8, 9, 10, 11] as const;

/**
 * NASS Crop Progress, week ending Sunday S: Monday S+1 at 16:00 ET, Tuesday 16:00 ET when the
 * Monday is a federal holiday (Memorial Day, Labor Day, Columbus Day). Source: NASS's Crop
 * Progress page (https://www.nass.usda.gov/Publications/National_Crop_Progress/: "released
 * weekly ... Mondays at 4:00 p.m. ET"), the day after a Monday holiday as reported at each
 * Memorial Day (e.g. Reuters, 31 May 2016 and 28 May 2019). Estimated: NASS's dated calendar was
 * not checked.
 */
const cropProgressRelease = (weekEnding: string): Release => {
  const monday = addDays(weekEnding, 1);
  const holiday = federalHoliday(monday);
  return holiday ? release(nextBusinessDay(monday), 16, 0, [], holiday) : release(monday, 16, 0, [], null);
};

const usdaNassCropProgress: PublisherCalendar = {
  id: 'usda-nass-crop-progress',
  timeZone: ET,
  slots: { regular: { weekdays: [1], hour: 16, minute: 0 }, shifted: [{ weekdays: [2], hour: 16, minute: 0 }] },
  releaseOf: cropProgressRelease,
  periodsAround: (from, to) =>
    weekdaysAround(7, from, to).filter((s) => (CROP_PROGRESS_MONTHS as readonly number[]).includes(Number(addDays(s, 1).slice(5, 7)))),
};

// ---- Federal Reserve H.10 (FRED's daily FX and dollar index) --------------------------------

/**
 * H.10 foreign exchange rates: daily rates published once a week, "updated weekly on Mondays at
 * 4:15 p.m." with the previous week's days (https://www.federalreserve.gov/releases/H10/About.htm);
 * after a Monday holiday, on Tuesday (e.g. the release of 16 January 2024, after Martin Luther King
 * Jr. Day). FRED republishes the series the same afternoon; published_at is the Board's release.
 * Estimated: the Board's dated release list was not checked year by year.
 */
const h10Release = (day: string): Release => {
  const nextMonday = addDays(day, 8 - isoWeekday(day));
  const holiday = federalHoliday(nextMonday);
  return holiday ? release(nextBusinessDay(nextMonday), 16, 15, [], holiday) : release(nextMonday, 16, 15, [], null);
};

const fedH10: PublisherCalendar = {
  id: 'fed-h10',
  timeZone: ET,
  slots: { regular: { weekdays: [1], hour: 16, minute: 15 }, shifted: [{ weekdays: [2], hour: 16, minute: 15 }] },
  releaseOf: h10Release,
  // One period per release: the Friday of each week.
  periodsAround: (from, to) => weekdaysAround(5, from, to),
};

// ---- USDA WASDE ------------------------------------------------------------------------------

/**
 * WASDE, report month M (as_of YYYY-MM-01): the day USDA published for it, at 12:00 ET
 * (announced.ts); a month not verified there is estimated as the first business day on or after
 * the 10th (WASDE days run from the 8th to the 14th).
 */
const wasdeRelease = (reportMonth: string): Release | null => {
  const day = WASDE_RELEASE_DATES[reportMonth.slice(0, 7)];
  if (day === null) return null;
  if (day) return release(day, 12, 0, [[day, day]], null);
  return release(businessDayOnOrAfter(`${reportMonth.slice(0, 7)}-10`), 12, 0, [], null);
};

const usdaWasde: PublisherCalendar = {
  id: 'usda-wasde',
  timeZone: ET,
  releaseOf: wasdeRelease,
  periodsAround: (from, to) => {
    const out: string[] = [];
    for (let m = `${addDays(from, -31).slice(0, 7)}-01`; m <= to; m = `${addDays(m, 32).slice(0, 7)}-01`) out.push(m);
    return out;
  },
};

// ---- World Bank Commodity Price Data (Pink Sheet) ---------------------------------------------

/** Pink Sheet releases whose workbook is recorded here (recorded.ts): their day is the workbook's own. */
const PINK_SHEET_VERIFIED: Verified = PINK_SHEET_RECORDED.map((d) => [d, d] as const);

/** The n-th business day (1 = the first) of the month of `monthStart` (YYYY-MM-01). */
const nthBusinessDay = (monthStart: string, n: number): string => {
  let d = businessDayOnOrAfter(monthStart);
  for (let i = 1; i < n; i++) d = nextBusinessDay(d);
  return d;
};

/** The first day of the month after the one `date` falls in. */
const nextMonthStart = (date: string): string => `${addDays(`${date.slice(0, 7)}-28`, 4).slice(0, 7)}-01`;

/**
 * World Bank Pink Sheet, reference month M (as_of YYYY-MM-01): the monthly averages of M come out
 * on the second business day of the next month (every "Updated on" date seen, 2021-2026, is one).
 * The World Bank states no time: the end of that day. Estimated unless the workbook of that release
 * is recorded.
 */
const pinkSheetRelease = (referenceMonth: string): Release => releaseByEndOfDay(nthBusinessDay(nextMonthStart(referenceMonth), 2), PINK_SHEET_VERIFIED, null);

const worldBank: PublisherCalendar = {
  id: 'worldbank',
  timeZone: ET,
  releaseOf: pinkSheetRelease,
  periodsAround: (from, to) => {
    const out: string[] = [];
    for (let m = `${addDays(from, -62).slice(0, 7)}-01`; m <= to; m = nextMonthStart(m)) out.push(m);
    return out;
  },
};

// ---- USGS Mineral Commodity Summaries ----------------------------------------------------------

/** MCS editions whose publication day is known: the data release's own publication date. */
const MCS_PUBLISHED: Readonly<Record<number, string>> = Object.freeze({
  // Mineral Commodity Summaries 2026 Data Release, metadata pubdate 20260206 (doi:10.5066/P1WKQ63T).
  2026: '2026-02-06',
});

/** The last business day on or before `date`. */
const businessDayOnOrBefore = (date: string): string => (isBusinessDay(date) ? date : previousBusinessDay(date));

/**
 * USGS MCS, figures of year Y (as_of Y-12-31): the edition of Y+1, released at the end of January
 * (the last business day on or before 31 January) unless its day is known (2026: 6 February).
 * USGS publishes no dated calendar and no time: the end of the day; editions whose day is not known
 * are estimated.
 */
const mcsRelease = (yearEnd: string): Release => {
  const edition = Number(yearEnd.slice(0, 4)) + 1;
  const known = MCS_PUBLISHED[edition];
  if (known) return releaseByEndOfDay(known, [[known, known]], null);
  return releaseByEndOfDay(businessDayOnOrBefore(`${edition}-01-31`), [], null);
};

const usgsMcs: PublisherCalendar = {
  id: 'usgs-mcs',
  timeZone: ET,
  releaseOf: mcsRelease,
  periodsAround: (from, to) => {
    const out: string[] = [];
    for (let y = Number(from.slice(0, 4)) - 2; y <= Number(to.slice(0, 4)); y++) out.push(`${y}-12-31`);
    return out;
  },
};

const PUBLISHER_CALENDARS: Readonly<Record<PublisherId, PublisherCalendar>> = Object.freeze({
  'eia-wpsr': eiaWpsr,
  'eia-spot': eiaSpot,
  'eia-wngsr': eiaWngsr,
  'cftc-cot': cftcCot,
  'usda-fas-esr': usdaFasEsr,
  'usda-nass-crop-progress': usdaNassCropProgress,
  'fed-h10': fedH10,
  'usda-wasde': usdaWasde,
  worldbank: worldBank,
  'usgs-mcs': usgsMcs,
});

/**
 * The first release of a publisher strictly after `after` (within 400 days), or null.
 * @example nextReleaseOf(PUBLISHER_CALENDARS['eia-wngsr'], new Date('2026-11-20T00:00:00Z'))?.at // '2026-11-25T17:00:00.000Z' (Thanksgiving week)
 */
const nextReleaseOf = (cal: PublisherCalendar, after: Date): Release | null => {
  const iso = after.toISOString();
  const day = iso.slice(0, 10);
  let best: Release | null = null;
  for (const p of cal.periodsAround(addDays(day, -1), addDays(day, 400))) {
    const r = cal.releaseOf(p);
    if (!r || r.at <= iso) continue;
    if (!best || r.at < best.at) best = r;
    // Releases follow their periods in order; a few more periods cover a holiday reordering.
    else if (p > addDays(best.date, 14)) break;
  }
  return best;
};

export { PUBLISHER_CALENDARS, nextReleaseOf, spotReleaseOf, spotLagDays, CROP_PROGRESS_MONTHS };
export type { PublisherId, PublisherCalendar, Release, Slot };
