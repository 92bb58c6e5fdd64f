/**
 * The source registry: per source, its publisher, license, publication URL, release schedule
 * and staleness bound. CDK's ingestion schedules, /v1/calendar and /health all read this list;
 * the adapters (fetch and parse code) are mapped by id in adapters.ts.
 */
import { CROP_PROGRESS_MONTHS } from '../calendar';
import { calendarSchedule } from './schedule';
import type { ObservedAtRule, SourceDef } from './types';

const US_GOV = 'public-domain (US government work)';
const ET = 'America/New_York';

/** A daily price whose publisher states no assessment time: the end of its day where it trades. */
const endOfTradingDay = (timeZone: string, publisher: string): ObservedAtRule => ({
  kind: 'end-of-day',
  timeZone,
  basis: `end of the as_of day, ${timeZone} (convention: ${publisher} states no assessment time)`,
});

/** Per-instrument rules, typed for the registry's `satisfies`. */
const byInstrument = (rules: Record<string, ObservedAtRule>): Readonly<Record<string, ObservedAtRule>> => rules;

/** The last day of a reference week (or report date), to the end of that day. */
const endOfWeek = (day: string, timeZone = ET): ObservedAtRule => ({ kind: 'end-of-day', timeZone, basis: `end of the reference week (${day}), ${timeZone}` });

const SOURCES: readonly SourceDef[] = Object.freeze([
  {
    id: 'eia-spot',
    name: 'U.S. Energy Information Administration',
    licenseTag: US_GOV,
    url: 'https://www.eia.gov/dnav/pet/pet_pri_spt_s1_d.htm',
    feeds: 'CL BZ HO RB NG daily spot prices',
    // Daily prices, published once a week in the WPSR's spot-price table (shared/calendar).
    schedule: calendarSchedule('eia-spot', 'weekly with the Weekly Petroleum Status Report: Wednesdays 10:30 ET (Thursday 12:00 ET in a holiday week)'),
    // Each spot market's own time zone: WTI at Cushing, Henry Hub and the Gulf Coast trade on
    // Central time, NY Harbor on Eastern, Brent in London.
    observedAt: endOfTradingDay(ET, 'EIA'),
    observedAtByInstrument: byInstrument({
      CL: endOfTradingDay('America/Chicago', 'EIA'),
      BZ: endOfTradingDay('Europe/London', 'EIA'),
      NG: endOfTradingDay('America/Chicago', 'EIA'),
      HO: endOfTradingDay(ET, 'EIA'),
      RB: endOfTradingDay('America/Chicago', 'EIA'),
    }),
    cadence: 'eod',
    maxAgeHours: 24 * 8,
    requiresKey: 'EIA_API_KEY',
  },
  {
    id: 'fred',
    name: 'Federal Reserve Bank of St. Louis (FRED), H.10 release of the Federal Reserve Board',
    licenseTag: US_GOV,
    url: 'https://fred.stlouisfed.org/series/DTWEXBGS',
    feeds: 'DTWEXBGS EURUSD USDCNY daily FX',
    // The H.10 is weekly (Mondays 16:15 ET); FRED follows within the half hour.
    schedule: calendarSchedule('fed-h10', "weekly, Mondays 16:15 ET with the previous week's daily rates (Tuesday after a Monday holiday)", {
      ingestLagMinutes: 30,
    }),
    // The Board states its bilateral rates are "noon buying rates in New York" (H.10 About page).
    observedAt: {
      kind: 'stated-time',
      hour: 12,
      minute: 0,
      timeZone: ET,
      basis: 'noon buying rate in New York, 12:00 America/New_York (Federal Reserve H.10)',
    },
    observedAtByInstrument: byInstrument({ DTWEXBGS: endOfTradingDay(ET, 'the H.10 for its dollar index') }),
    cadence: 'eod',
    maxAgeHours: 24 * 8,
  },
  {
    id: 'eia-petroleum',
    name: 'U.S. Energy Information Administration, Weekly Petroleum Status Report',
    licenseTag: US_GOV,
    url: 'https://www.eia.gov/petroleum/supply/weekly/',
    feeds: 'crude_ex_spr cushing gasoline distillate refinery_util crude_runs weekly inventories',
    schedule: calendarSchedule('eia-wpsr', 'Wednesdays 10:30 ET (Thursday 12:00 ET after a Monday-Wednesday federal holiday)'),
    // EIA: "company submissions for the week ending 7:00 a.m. the preceding Friday" (WPSR notes).
    observedAt: { kind: 'stated-time', hour: 7, minute: 0, timeZone: ET, basis: 'end of the reference week: Friday 07:00 America/New_York (EIA WPSR)' },
    cadence: 'weekly',
    maxAgeHours: 24 * 8,
    requiresKey: 'EIA_API_KEY',
  },
  {
    id: 'eia-gas-storage',
    name: 'U.S. Energy Information Administration, Weekly Natural Gas Storage Report',
    licenseTag: US_GOV,
    url: 'https://ir.eia.gov/ngs/ngs.html',
    feeds: 'ng_storage weekly working gas in storage',
    schedule: calendarSchedule('eia-wngsr', 'Thursdays 10:30 ET (Wednesday 12:00 ET when Thursday is a holiday, Friday after a Tuesday-Wednesday one)'),
    observedAt: endOfWeek('Friday'),
    cadence: 'weekly',
    maxAgeHours: 24 * 8,
    requiresKey: 'EIA_API_KEY',
  },
  {
    id: 'worldbank',
    name: 'World Bank Commodity Price Data (The Pink Sheet)',
    licenseTag: 'CC BY 4.0',
    url: 'https://www.worldbank.org/en/research/commodity-markets',
    feeds: 'GC SI PL AL HG NI ZN IO ZC ZW ZS ZL ZM KC CC SB CT ZR monthly prices',
    // Released the second business day of each month (shared/calendar); the runs cover the days it can fall on.
    schedule: {
      minute: 0,
      hour: 12,
      monthDays: [2, 3, 4, 5, 6],
      timeZone: ET,
      description: 'the second business day of each month, 12:00 ET (checked on the 2nd-6th)',
      calendar: 'worldbank',
    },
    observedAt: { kind: 'end-of-month', basis: 'end of the month the average covers (UTC)' },
    cadence: 'monthly',
    maxAgeHours: 24 * 40,
  },
  {
    id: 'cftc-cot',
    name: 'U.S. Commodity Futures Trading Commission, Commitments of Traders (disaggregated, futures only)',
    licenseTag: US_GOV,
    url: 'https://www.cftc.gov/MarketReports/CommitmentsofTraders/index.htm',
    feeds: 'managed-money positioning per contract market',
    schedule: calendarSchedule('cftc-cot', 'Fridays 15:30 ET (the next business day after a Wednesday-Friday federal holiday)'),
    observedAt: { kind: 'end-of-day', timeZone: ET, basis: 'close of business on the report date: end of the day, America/New_York (the CFTC states no time)' },
    cadence: 'weekly',
    maxAgeHours: 24 * 8,
  },
  {
    id: 'usda-wasde',
    name: 'USDA World Agricultural Outlook Board, WASDE',
    licenseTag: US_GOV,
    url: 'https://www.usda.gov/oce/commodity/wasde',
    feeds: 'US corn, soybeans, wheat balance sheets',
    // USDA publishes each year's dates in advance; shared/calendar holds the ones verified here
    // (published_at, /v1/calendar) and estimates the rest. The runs cover a day window that holds
    // every release seen (the 8th-14th; November 2025 moved to the 14th), plus one day to catch a
    // file posted after the noon run: a run before the release re-reads last month's report,
    // idempotently.
    schedule: {
      minute: 0,
      hour: 12,
      monthDays: [8, 9, 10, 11, 12, 13, 14, 15],
      timeZone: ET,
      description: "monthly on USDA's published day (between the 8th and 14th), 12:00 ET",
      calendar: 'usda-wasde',
    },
    observedAt: {
      kind: 'none',
      basis: 'none: a WASDE figure is a projection of a marketing year made in the report, not a measurement at a moment (the report time is published_at)',
    },
    cadence: 'monthly',
    maxAgeHours: 24 * 40,
  },
  {
    id: 'usda-nass-crop-progress',
    name: 'USDA National Agricultural Statistics Service, Crop Progress',
    licenseTag: US_GOV,
    url: 'https://www.nass.usda.gov/Publications/National_Crop_Progress/',
    feeds: 'corn, soybeans, wheat progress and condition',
    schedule: calendarSchedule('usda-nass-crop-progress', 'Mondays 16:00 ET, April-November (Tuesday after a Monday holiday)', {
      months: CROP_PROGRESS_MONTHS,
    }),
    observedAt: endOfWeek('Sunday'),
    cadence: 'weekly',
    maxAgeHours: 24 * 8,
    requiresKey: 'NASS_API_KEY',
  },
  {
    id: 'usda-fas-esr',
    name: 'USDA Foreign Agricultural Service, Export Sales Reporting',
    licenseTag: US_GOV,
    url: 'https://apps.fas.usda.gov/export-sales/esrd1.html',
    feeds: 'weekly export sales for corn, soybeans, wheat',
    schedule: calendarSchedule('usda-fas-esr', 'Thursdays 08:30 ET (Friday in a week with a federal holiday)'),
    observedAt: endOfWeek('Thursday'),
    cadence: 'weekly',
    maxAgeHours: 24 * 8,
    requiresKey: 'FAS_API_KEY',
  },
  {
    id: 'usgs-mcs',
    name: 'U.S. Geological Survey, Mineral Commodity Summaries',
    licenseTag: US_GOV,
    url: 'https://www.usgs.gov/centers/national-minerals-information-center/mineral-commodity-summaries',
    feeds: 'annual production, reserves, prices and import reliance of the metals',
    // One edition a year, usually late January (MCS 2026 was first posted on 6 February): a daily run
    // through January and February picks it up; re-reading the same edition is idempotent.
    schedule: {
      minute: 0,
      hour: 12,
      months: [1, 2],
      timeZone: ET,
      description: 'annually, late January or early February (checked daily in January and February), 12:00 ET',
      calendar: 'usgs-mcs',
    },
    observedAt: { kind: 'end-of-year', basis: 'end of the year the figure covers (UTC)' },
    cadence: 'annual',
    maxAgeHours: 24 * 400,
  },
] satisfies SourceDef[]);

const findSource = (id: string): SourceDef | undefined => SOURCES.find((s) => s.id === id);

export { SOURCES, findSource };
