/**
 * The source registry: per source, its publisher, license, publication URL, release schedule
 * and staleness bound. CDK's ingestion schedules, /v1/calendar and /health all read this list;
 * the adapters (fetch and parse code) are mapped by id in adapters.ts.
 */
import type { SourceDef } from './types';

const US_GOV = 'public-domain (US government work)';
const ET = 'America/New_York';

const SOURCES: readonly SourceDef[] = Object.freeze([
  {
    id: 'eia-spot',
    name: 'U.S. Energy Information Administration',
    licenseTag: US_GOV,
    url: 'https://www.eia.gov/dnav/pet/pet_pri_spt_s1_d.htm',
    feeds: 'CL BZ HO RB NG daily spot prices',
    // EIA posts the daily spot series with a lag of a few days; a weekday evening run picks up each update.
    schedule: { minute: 0, hour: 17, weekdays: [1, 2, 3, 4, 5], timeZone: ET, description: 'weekdays 17:00 ET' },
    maxAgeHours: 24 * 8,
    requiresKey: 'EIA_API_KEY',
  },
  {
    id: 'fred',
    name: 'Federal Reserve Bank of St. Louis (FRED), H.10 release of the Federal Reserve Board',
    licenseTag: US_GOV,
    url: 'https://fred.stlouisfed.org/series/DTWEXBGS',
    feeds: 'DTWEXBGS EURUSD USDCNY daily FX',
    schedule: { minute: 30, hour: 16, weekdays: [1, 2, 3, 4, 5], timeZone: ET, description: 'weekdays 16:30 ET' },
    maxAgeHours: 24 * 8,
  },
  {
    id: 'eia-petroleum',
    name: 'U.S. Energy Information Administration, Weekly Petroleum Status Report',
    licenseTag: US_GOV,
    url: 'https://www.eia.gov/petroleum/supply/weekly/',
    feeds: 'crude_ex_spr cushing gasoline distillate refinery_util crude_runs weekly inventories',
    schedule: { minute: 30, hour: 10, weekdays: [3], timeZone: ET, description: 'Wednesdays 10:30 ET' },
    maxAgeHours: 24 * 8,
    requiresKey: 'EIA_API_KEY',
  },
  {
    id: 'eia-gas-storage',
    name: 'U.S. Energy Information Administration, Weekly Natural Gas Storage Report',
    licenseTag: US_GOV,
    url: 'https://ir.eia.gov/ngs/ngs.html',
    feeds: 'ng_storage weekly working gas in storage',
    schedule: { minute: 30, hour: 10, weekdays: [4], timeZone: ET, description: 'Thursdays 10:30 ET' },
    maxAgeHours: 24 * 8,
    requiresKey: 'EIA_API_KEY',
  },
  {
    id: 'worldbank',
    name: 'World Bank Commodity Price Data (The Pink Sheet)',
    licenseTag: 'CC BY 4.0',
    url: 'https://www.worldbank.org/en/research/commodity-markets',
    feeds: 'GC SI PL AL HG NI ZN IO ZC ZW ZS ZL ZM KC CC SB CT ZR monthly prices',
    schedule: { minute: 0, hour: 12, monthDays: [2, 3, 4, 5, 6], timeZone: ET, description: 'early each month (2nd-6th), 12:00 ET' },
    maxAgeHours: 24 * 40,
  },
  {
    id: 'cftc-cot',
    name: 'U.S. Commodity Futures Trading Commission, Commitments of Traders (disaggregated, futures only)',
    licenseTag: US_GOV,
    url: 'https://www.cftc.gov/MarketReports/CommitmentsofTraders/index.htm',
    feeds: 'managed-money positioning per contract market',
    schedule: { minute: 30, hour: 15, weekdays: [5], timeZone: ET, description: 'Fridays 15:30 ET' },
    maxAgeHours: 24 * 8,
  },
  {
    id: 'usda-wasde',
    name: 'USDA World Agricultural Outlook Board, WASDE',
    licenseTag: US_GOV,
    url: 'https://www.usda.gov/oce/commodity/wasde',
    feeds: 'US corn, soybeans, wheat balance sheets',
    // USDA publishes each year's dates in advance, but this project has verified them only through
    // January 2026 (usda-wasde.ts RELEASE_DATES, used for published_at). So the schedule keeps a day
    // window that holds every release seen (the 8th-14th; November 2025 moved to the 14th), plus one
    // day to catch a file posted after the noon run, and runs daily inside it: a run before the
    // release re-reads last month's report, idempotently.
    schedule: {
      minute: 0,
      hour: 12,
      monthDays: [8, 9, 10, 11, 12, 13, 14, 15],
      timeZone: ET,
      description: "monthly on USDA's published day (between the 8th and 14th), 12:00 ET",
    },
    maxAgeHours: 24 * 40,
  },
  {
    id: 'usda-nass-crop-progress',
    name: 'USDA National Agricultural Statistics Service, Crop Progress',
    licenseTag: US_GOV,
    url: 'https://www.nass.usda.gov/Publications/National_Crop_Progress/',
    feeds: 'corn, soybeans, wheat progress and condition',
    schedule: { minute: 0, hour: 16, weekdays: [1], months: [4, 5, 6, 7, 8, 9, 10, 11], timeZone: ET, description: 'Mondays 16:00 ET, April-November' },
    maxAgeHours: 24 * 8,
    requiresKey: 'NASS_API_KEY',
  },
  {
    id: 'usda-fas-esr',
    name: 'USDA Foreign Agricultural Service, Export Sales Reporting',
    licenseTag: US_GOV,
    url: 'https://apps.fas.usda.gov/export-sales/esrd1.html',
    feeds: 'weekly export sales for corn, soybeans, wheat',
    schedule: { minute: 30, hour: 8, weekdays: [4], timeZone: ET, description: 'Thursdays 08:30 ET' },
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
    },
    maxAgeHours: 24 * 400,
  },
] satisfies SourceDef[]);

const findSource = (id: string): SourceDef | undefined => SOURCES.find((s) => s.id === id);

export { SOURCES, findSource };
