/**
 * Pure: the checks that keep bad source data from reaching an agent.
 *
 * - A run with an observation dated after tomorrow (UTC) is refused whole: no publisher dates a
 *   figure ahead, so the payload is broken (a 2099 row would become "latest" for ever).
 * - A price outside its unit's plausible band, or more than ten times (or a tenth of) the point
 *   before it, is quarantined: not written, reported on the run and in /health. The band catches
 *   unit and decimal errors (7,253,000 USD/bbl); the ×10 jump guard catches a misplaced decimal
 *   while letting real extremes through (Henry Hub went from 3.23 to 23.86 USD/MMBtu in February 2021).
 */
import { findInstrument } from '../catalog/instruments';
import { seriesKey as keys } from '../catalog/series-keys';
import { addDays } from '../dates';
import type { StoredObservation } from '../observation/schema';
import type { SeriesItem } from '../store/observation-store';

/** Plausible price bands by catalog unit, generous (roughly 10x historic extremes; WTI went to -37.63 in April 2020). */
const PRICE_BANDS: Readonly<Record<string, readonly [number, number]>> = Object.freeze({
  'USD/bbl': [-100, 1_000],
  'USD/MMBtu': [-10, 200],
  'USD/gal': [0, 30],
  'USD/oz': [0, 50_000],
  'USD/metric ton': [0, 500_000],
  'USD/dmtu': [0, 2_000],
  'USD/bu': [0, 200],
  'USD/lb': [0, 100],
  'USD/short ton': [0, 10_000],
  'USD/cwt': [0, 1_000],
  index: [0, 2_000],
  'USD/EUR': [0, 10],
  'CNY/USD': [0, 100],
});

/** Ratio to the previous point beyond which a price is held back. */
const JUMP_FACTOR = 10;

interface Quarantined {
  series: string;
  as_of: string;
  value: number;
  reason: string;
}

/** The catalog code of a price series key, or null for other series. */
const priceCode = (seriesKey: string): string | null => {
  const prefix = keys.price('');
  return seriesKey.startsWith(prefix) ? seriesKey.slice(prefix.length) : null;
};

/**
 * Items dated after tomorrow (UTC).
 * @param today YYYY-MM-DD
 */
const futureDated = (items: readonly SeriesItem[], today: string): SeriesItem[] => {
  const limit = addDays(today, 1);
  return items.filter((i) => i.observation.as_of > limit);
};

/**
 * Splits items into those to write and those to hold back.
 * @param previousOf the newest stored observation of a series before this run (for the first item's jump check)
 */
const quarantine = (items: readonly SeriesItem[], previousOf: (seriesKey: string) => StoredObservation | null): { keep: SeriesItem[]; held: Quarantined[] } => {
  const keep: SeriesItem[] = [];
  const held: Quarantined[] = [];
  // Each series in date order, so that every point is compared with the accepted one before it.
  const sorted = [...items].sort((a, b) => a.seriesKey.localeCompare(b.seriesKey) || a.observation.as_of.localeCompare(b.observation.as_of));
  const lastAccepted = new Map<string, StoredObservation | null>();
  for (const item of sorted) {
    const code = priceCode(item.seriesKey);
    const band = code ? PRICE_BANDS[findInstrument(code)?.unit ?? ''] : undefined;
    const value = item.observation.value;
    if (!band) {
      keep.push(item);
      continue;
    }
    if (!lastAccepted.has(item.seriesKey)) lastAccepted.set(item.seriesKey, previousOf(item.seriesKey));
    const prev = lastAccepted.get(item.seriesKey);
    const before = prev && prev.as_of < item.observation.as_of && prev.value > 0 && value > 0 ? prev.value : null;
    const reason =
      value < band[0] || value > band[1]
        ? `outside the plausible band ${band[0]}..${band[1]} ${findInstrument(code!)!.unit}`
        : before !== null && (value > before * JUMP_FACTOR || value < before / JUMP_FACTOR)
          ? `more than ${JUMP_FACTOR}x away from the previous point (${before} on ${prev!.as_of})`
          : null;
    if (reason) held.push({ series: item.seriesKey, as_of: item.observation.as_of, value, reason });
    else {
      keep.push(item);
      lastAccepted.set(item.seriesKey, item.observation);
    }
  }
  return { keep, held };
};

export { futureDated, quarantine, PRICE_BANDS, JUMP_FACTOR };
export type { Quarantined };
