/**
 * What the read path needs of each source: its publisher, what it feeds, its release schedule and
 * staleness bound. /health, snapshots and every answer's next_release_at read this table; the
 * registry (registry.ts) adds what ingestion, /v1/calendar and the documents need (the release in
 * words, license, URL, observed_at rules), so the data functions do not bundle those.
 */
import { CROP_PROGRESS_MONTHS } from '../calendar';
import { calendarSchedule } from './schedule';
import type { SourceRelease } from './types';

const ET = 'America/New_York';

/** One source's row, its id kept as a literal type (the registry is keyed by these ids). */
const release = <const Id extends string>(r: SourceRelease & { readonly id: Id }) => r;

const SOURCE_RELEASES = Object.freeze([
  release({
    id: 'eia-spot',
    name: 'U.S. Energy Information Administration',
    feeds: 'CL BZ HO RB NG daily spot prices',
    // Daily prices, published once a week in the WPSR's spot-price table (shared/calendar).
    schedule: calendarSchedule('eia-spot'),
    cadence: 'eod',
    maxAgeHours: 24 * 8,
  }),
  release({
    id: 'fred',
    name: 'Federal Reserve Bank of St. Louis (FRED), H.10 release of the Federal Reserve Board',
    feeds: 'DTWEXBGS EURUSD USDCNY daily FX',
    // The H.10 is weekly (Mondays 16:15 ET); FRED follows within the half hour.
    schedule: calendarSchedule('fed-h10', {
      ingestLagMinutes: 30,
    }),
    cadence: 'eod',
    maxAgeHours: 24 * 8,
  }),
  release({
    id: 'eia-petroleum',
    name: 'U.S. Energy Information Administration, Weekly Petroleum Status Report',
    feeds: 'crude_ex_spr cushing gasoline distillate refinery_util crude_runs weekly inventories',
    schedule: calendarSchedule('eia-wpsr'),
    cadence: 'weekly',
    maxAgeHours: 24 * 8,
  }),
  release({
    id: 'eia-gas-storage',
    name: 'U.S. Energy Information Administration, Weekly Natural Gas Storage Report',
    feeds: 'ng_storage weekly working gas in storage',
    schedule: calendarSchedule('eia-wngsr'),
    cadence: 'weekly',
    maxAgeHours: 24 * 8,
  }),
  release({
    id: 'worldbank',
    name: 'World Bank Commodity Price Data (The Pink Sheet)',
    feeds: 'GC SI PL AL HG NI ZN IO ZC ZW ZS ZL ZM KC CC SB CT ZR monthly prices',
    // Released the second business day of each month (shared/calendar); the runs cover the days it can fall on.
    schedule: {
      minute: 0,
      hour: 12,
      monthDays: [2, 3, 4, 5, 6],
      timeZone: ET,
      calendar: 'worldbank',
    },
    cadence: 'monthly',
    maxAgeHours: 24 * 40,
  }),
  release({
    id: 'cftc-cot',
    name: 'U.S. Commodity Futures Trading Commission, Commitments of Traders (disaggregated, futures only)',
    feeds: 'managed-money positioning per contract market',
    schedule: calendarSchedule('cftc-cot'),
    cadence: 'weekly',
    maxAgeHours: 24 * 8,
  }),
  release({
    id: 'usda-wasde',
    name: 'USDA World Agricultural Outlook Board, WASDE',
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
      calendar: 'usda-wasde',
    },
    cadence: 'monthly',
    maxAgeHours: 24 * 40,
  }),
  release({
    id: 'usda-nass-crop-progress',
    name: 'USDA National Agricultural Statistics Service, Crop Progress',
    // What is served: stages always; condition only where a live run stored it (the samples hold soybean stages).
    feeds: 'corn, soybeans, wheat progress by stage; condition from live runs only',
    schedule: calendarSchedule('usda-nass-crop-progress', {
      months: CROP_PROGRESS_MONTHS,
    }),
    cadence: 'weekly',
    maxAgeHours: 24 * 8,
  }),
  release({
    id: 'usda-fas-esr',
    name: 'USDA Foreign Agricultural Service, Export Sales Reporting',
    feeds: 'weekly export sales for corn, soybeans, wheat',
    schedule: calendarSchedule('usda-fas-esr'),
    cadence: 'weekly',
    maxAgeHours: 24 * 8,
  }),
  release({
    id: 'usgs-mcs',
    name: 'U.S. Geological Survey, Mineral Commodity Summaries',
    feeds: 'annual production, reserves, prices and import reliance of the metals',
    // One edition a year, usually late January (MCS 2026 was first posted on 6 February): a daily run
    // through January and February picks it up; re-reading the same edition is idempotent.
    schedule: {
      minute: 0,
      hour: 12,
      months: [1, 2],
      timeZone: ET,
      calendar: 'usgs-mcs',
    },
    cadence: 'annual',
    maxAgeHours: 24 * 400,
  }),
]);

type SourceId = (typeof SOURCE_RELEASES)[number]['id'];

const findRelease = (id: string): SourceRelease | undefined => SOURCE_RELEASES.find((s) => s.id === id);

export { SOURCE_RELEASES, findRelease };
export type { SourceId };
