/**
 * The source registry: per source, its release row (releases.ts: publisher, feeds, schedule,
 * staleness bound) with its release in words, license, publication URL, observed_at rules and
 * API key. CDK's ingestion schedules, ingestion, /v1/calendar and the method documents read this
 * list; the adapters (fetch and parse code) are mapped by id in adapters.ts.
 */
import { SOURCE_RELEASES, type SourceId } from './releases';
import type { ObservedAtRule, SourceDef, SourceRelease } from './types';

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

/** What a source's observations carry besides its release row. */
type Publication = Omit<SourceDef, keyof SourceRelease>;

const PUBLICATIONS: Readonly<Record<SourceId, Publication>> = {
  'eia-spot': {
    releaseText:
      'weekly with the Weekly Petroleum Status Report: Wednesdays (Thursday in a holiday week), time not stated; Henry Hub through the Tuesday, the petroleum prices through the Monday',
    licenseTag: US_GOV,
    url: 'https://www.eia.gov/dnav/pet/pet_pri_spt_s1_d.htm',
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
    requiresKey: 'EIA_API_KEY',
  },
  fred: {
    releaseText: "weekly, Mondays 16:15 ET with the previous week's daily rates (Tuesday after a Monday holiday)",
    licenseTag: US_GOV,
    url: 'https://fred.stlouisfed.org/series/DTWEXBGS',
    // The Board states its bilateral rates are "noon buying rates in New York" (H.10 About page).
    observedAt: {
      kind: 'stated-time',
      hour: 12,
      minute: 0,
      timeZone: ET,
      basis: 'noon buying rate in New York, 12:00 America/New_York (Federal Reserve H.10)',
    },
    observedAtByInstrument: byInstrument({ DTWEXBGS: endOfTradingDay(ET, 'the H.10 for its dollar index') }),
  },
  'eia-petroleum': {
    releaseText: 'Wednesdays 10:30 ET (Thursday 12:00 ET after a Monday-Wednesday federal holiday)',
    licenseTag: US_GOV,
    url: 'https://www.eia.gov/petroleum/supply/weekly/',
    // EIA: "company submissions for the week ending 7:00 a.m. the preceding Friday" (WPSR notes).
    observedAt: { kind: 'stated-time', hour: 7, minute: 0, timeZone: ET, basis: 'end of the reference week: Friday 07:00 America/New_York (EIA WPSR)' },
    requiresKey: 'EIA_API_KEY',
  },
  'eia-gas-storage': {
    releaseText: 'Thursdays 10:30 ET (Wednesday 12:00 ET when Thursday is a holiday, Friday after a Tuesday-Wednesday one)',
    licenseTag: US_GOV,
    url: 'https://ir.eia.gov/ngs/ngs.html',
    observedAt: endOfWeek('Friday'),
    requiresKey: 'EIA_API_KEY',
  },
  worldbank: {
    releaseText: 'the second business day of each month, time not stated (checked on the 2nd-6th)',
    licenseTag: 'CC BY 4.0',
    url: 'https://www.worldbank.org/en/research/commodity-markets',
    observedAt: { kind: 'end-of-month', basis: 'end of the month the average covers (UTC)' },
  },
  'cftc-cot': {
    releaseText: 'Fridays 15:30 ET (the next business day after a Wednesday-Friday federal holiday)',
    licenseTag: US_GOV,
    url: 'https://www.cftc.gov/MarketReports/CommitmentsofTraders/index.htm',
    observedAt: { kind: 'end-of-day', timeZone: ET, basis: 'close of business on the report date: end of the day, America/New_York (the CFTC states no time)' },
  },
  'usda-wasde': {
    releaseText: "monthly on USDA's published day (between the 8th and 14th), 12:00 ET",
    licenseTag: US_GOV,
    url: 'https://www.usda.gov/oce/commodity/wasde',
    observedAt: {
      kind: 'none',
      basis: 'none: a WASDE figure is a projection of a marketing year made in the report, not a measurement at a moment (the report time is published_at)',
    },
  },
  'usda-nass-crop-progress': {
    releaseText: 'Mondays 16:00 ET, April-November (Tuesday after a Monday holiday)',
    licenseTag: US_GOV,
    url: 'https://www.nass.usda.gov/Publications/National_Crop_Progress/',
    observedAt: endOfWeek('Sunday'),
    requiresKey: 'NASS_API_KEY',
  },
  'usda-fas-esr': {
    releaseText: 'Thursdays 08:30 ET (Friday in a week with a federal holiday)',
    licenseTag: US_GOV,
    url: 'https://apps.fas.usda.gov/export-sales/esrd1.html',
    observedAt: endOfWeek('Thursday'),
    requiresKey: 'FAS_API_KEY',
  },
  'usgs-mcs': {
    releaseText: 'annually, late January or early February (checked daily in January and February), time not stated',
    licenseTag: US_GOV,
    url: 'https://www.usgs.gov/centers/national-minerals-information-center/mineral-commodity-summaries',
    observedAt: { kind: 'end-of-year', basis: 'end of the year the figure covers (UTC)' },
  },
};

const SOURCES: readonly SourceDef[] = Object.freeze(SOURCE_RELEASES.map((r): SourceDef => ({ ...r, ...PUBLICATIONS[r.id] })));

const findSource = (id: string): SourceDef | undefined => SOURCES.find((s) => s.id === id);

export { SOURCES, findSource };
