/**
 * Builds stored observations for tests that seed the store directly (spreads, curve,
 * snapshot, decision), so they do not depend on other sources' replay samples.
 */
import { findInstrument } from '../../shared/catalog/instruments';
import { seriesKey } from '../../shared/catalog/series-keys';
import type { StoredObservation } from '../../shared/observation/schema';
import type { ObservationStore, SeriesItem } from '../../shared/store/observation-store';

const RETRIEVED_AT = '2025-06-18T14:00:00.000Z';

/**
 * A complete stored price observation of a catalog instrument in its catalog unit.
 * Monthly (World Bank) instruments default to quality "derived", as their adapter converts units.
 */
const priceObs = (code: string, as_of: string, value: number, over: Partial<StoredObservation> = {}): SeriesItem => {
  const i = findInstrument(code);
  if (!i) throw new Error(`test seed: unknown code ${code}`);
  const quality = over.quality ?? (i.freshness === 'monthly' ? 'derived' : 'official');
  return {
    seriesKey: seriesKey.price(code),
    observation: {
      instrument: code,
      value,
      unit: i.unit,
      as_of,
      observed_at: null,
      freshness_class: i.freshness,
      quality,
      derived: quality === 'derived',
      source: { name: `test seed for ${code}`, series_id: `TEST.${code}`, url: null },
      license_tag: i.freshness === 'monthly' ? 'CC BY 4.0' : 'public-domain (US government work)',
      retrieved_at: RETRIEVED_AT,
      published_at: null,
      next_release_at: null,
      attributes: {},
      ...over,
    },
  };
};

/** A daily series on consecutive weekdays ending at `end` (inclusive), values in order. */
const weekdaySeries = (code: string, end: string, values: readonly number[]): SeriesItem[] => {
  const dates: string[] = [];
  const d = new Date(`${end}T00:00:00Z`);
  while (dates.length < values.length) {
    const dow = d.getUTCDay();
    if (dow !== 0 && dow !== 6) dates.unshift(d.toISOString().slice(0, 10));
    d.setUTCDate(d.getUTCDate() - 1);
  }
  return values.map((v, i) => priceObs(code, dates[i]!, v));
};

/** A monthly series (first day of each month) ending at `endMonth` (YYYY-MM), values in order. */
const monthlySeries = (code: string, endMonth: string, values: readonly number[]): SeriesItem[] => {
  const [y, m] = endMonth.split('-').map(Number) as [number, number];
  return values.map((v, i) => {
    const d = new Date(Date.UTC(y, m - 1 - (values.length - 1 - i), 1));
    return priceObs(code, d.toISOString().slice(0, 10), v);
  });
};

/** Dates every 7 days from `start` through `end` (inclusive), ascending. */
const weekly = (start: string, end: string): string[] => {
  const out: string[] = [];
  for (let t = Date.parse(`${start}T00:00:00Z`); t <= Date.parse(`${end}T00:00:00Z`); t += 7 * 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
};

/** A weekly inventory level as the EIA inventory adapter stores it (INV#<key>). */
const inventoryObs = (key: string, as_of: string, value: number, unit = 'Mbbl'): SeriesItem => ({
  seriesKey: seriesKey.inventory(key),
  observation: {
    instrument: key,
    value,
    unit,
    as_of,
    observed_at: null,
    freshness_class: 'weekly',
    quality: 'official',
    derived: false,
    source: { name: `test seed for ${key}`, series_id: `TEST.${key}`, url: null },
    license_tag: 'public-domain (US government work)',
    retrieved_at: RETRIEVED_AT,
    published_at: null,
    next_release_at: null,
    attributes: {},
  },
});

/** A weekly COT report as the CFTC adapter stores it (COT#<code>, value = managed-money net). */
const cotObs = (code: string, as_of: string, long: number, short: number): SeriesItem => ({
  seriesKey: seriesKey.cot(code),
  observation: {
    instrument: code,
    value: long - short,
    unit: 'contracts',
    as_of,
    observed_at: null,
    freshness_class: 'weekly',
    quality: 'derived',
    derived: true,
    source: { name: `test seed for COT ${code}`, series_id: 'TEST', url: null },
    license_tag: 'public-domain (US government work)',
    retrieved_at: RETRIEVED_AT,
    published_at: null,
    next_release_at: null,
    attributes: { cftc_code: 'TEST', market: `test market ${code}`, mm_long: long, mm_short: short, mm_spreading: 1000, open_interest: 500_000 },
  },
});

const seed = async (store: ObservationStore, items: SeriesItem[]): Promise<void> => {
  await store.upsertMany(items);
};

export { priceObs, weekdaySeries, monthlySeries, weekly, inventoryObs, cotObs, seed };
