/**
 * Pure: the checks that keep bad source data from reaching an agent.
 *
 * - A run with an observation dated after tomorrow (UTC) is refused whole: no publisher dates a
 *   figure ahead, so the payload is broken (a 2099 row would become "latest" for ever).
 * - A price outside its unit's plausible band is held in quarantine (a unit or decimal error:
 *   7,253,000 USD/bbl) until an operator releases it.
 * - A price that flips the sign of its series' recent range, or lies more than 5x outside that
 *   range (the last 10 accepted points), is held until confirmed: the next point of the series
 *   confirms it when it makes the same move (same sign, nearer to it than to the range it left: the
 *   market really moved), or an operator releases it. A one-day spike that reverts stays held: WTI's real -37.63 of
 *   2020-04-20 (next day 8.91) enters by release, and 9.0 or -99 after 86.48 never becomes the
 *   latest price on its own, while Henry Hub's real 13.20 of 2024-01-12 (4x its range in a cold
 *   snap) passes.
 * - A figure equal to the stored one for its date was accepted before (checked, confirmed or
 *   released) and is not judged again.
 *
 * Held points are not written; they stay listed (with the full observation, so a confirmation or a
 * release can write it) in the source's run status and in /health until then.
 */
import { findInstrument } from '../catalog/instruments';
import { seriesKey as keys } from '../catalog/series-keys';
import { addDays } from '../dates';
import type { StoredObservation } from '../observation/schema';
import type { HeldPoint, SeriesItem } from '../store/observation-store';

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

/** Accepted points that make a series' recent range: two weeks of daily prices, ten months of monthly ones. */
const RECENT_POINTS = 10;
/** How far outside the recent range (as a ratio) a move is held until confirmed. */
const MOVE_FACTOR = 5;

/** A held price as /health lists it. */
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

/** The plausible band and unit of a price series, or null for series the guards do not judge. */
const bandOf = (seriesKey: string): { band: readonly [number, number]; unit: string } | null => {
  const code = priceCode(seriesKey);
  const unit = code ? findInstrument(code)?.unit : undefined;
  const band = unit ? PRICE_BANDS[unit] : undefined;
  return band && unit ? { band, unit } : null;
};

/**
 * Items dated after tomorrow (UTC).
 * @param today YYYY-MM-DD
 */
const futureDated = (items: readonly SeriesItem[], today: string): SeriesItem[] => {
  const limit = addDays(today, 1);
  return items.filter((i) => i.observation.as_of > limit);
};

const fmt = (x: number) => String(Number(x.toPrecision(6)));

/**
 * Why `value` breaks its series' recent range, or null when it does not.
 * @param recent the values of the last accepted points (any order); [] = nothing to judge by
 * @example moveOutsideRange(9, [70, 86.48]) // '9 is more than 5x below the recent range 70..86.48'
 */
const moveOutsideRange = (value: number, recent: readonly number[]): string | null => {
  if (recent.length === 0) return null;
  const lo = Math.min(...recent);
  const hi = Math.max(...recent);
  const range = `${fmt(lo)}..${fmt(hi)}`;
  if (lo > 0 && value <= 0) return `${fmt(value)} flips the sign of the recent range ${range}`;
  if (hi < 0 && value >= 0) return `${fmt(value)} flips the sign of the recent range ${range}`;
  if (lo > 0 && value > hi * MOVE_FACTOR) return `${fmt(value)} is more than ${MOVE_FACTOR}x above the recent range ${range}`;
  if (lo > 0 && value < lo / MOVE_FACTOR) return `${fmt(value)} is more than ${MOVE_FACTOR}x below the recent range ${range}`;
  return null;
};

/**
 * Whether `later`, the point after a held `value`, makes the same move: the same sign, and nearer
 * to the held value than to the recent range it left (ratios, so 60 after 70 confirms a move off
 * 10..12, while 13 after 70 is a return and confirms nothing).
 * @param recent the values of the recent range the held point was judged against
 */
const confirms = (later: number, value: number, recent: readonly number[]): boolean => {
  if (Math.sign(later) !== Math.sign(value)) return false;
  const lo = Math.min(...recent);
  const hi = Math.max(...recent);
  // A second point past a sign flip, or a series whose range already spans zero: the sign is the move.
  if (value <= 0 || lo <= 0) return true;
  const fromRange = later > hi ? Math.log(later / hi) : later < lo ? Math.log(lo / later) : 0;
  return Math.abs(Math.log(later / value)) < fromRange;
};

/** What the guards know of a series from the store before the run. */
interface StoredContext {
  /** The newest stored points before the run's first date of the series, ascending (at most RECENT_POINTS). */
  before: readonly StoredObservation[];
  /** Stored value per as_of over the run's dates of the series. */
  at: ReadonlyMap<string, number>;
}

interface GuardResult {
  keep: SeriesItem[];
  /** Every point held after this run: still-held points of earlier runs plus this run's. */
  held: HeldPoint[];
  /** This run's newly held points. */
  newlyHeld: Quarantined[];
  /** Held points that this run confirmed (written with it). */
  confirmed: Quarantined[];
}

/**
 * Splits a run's items into those to write and those to hold (see the module comment).
 * @param stored what the store holds of each price series in `items`
 * @param previouslyHeld points held by earlier runs; one the run delivers again is judged again, the others stay held
 * @param now the run's instant (held_since of new holds)
 */
const quarantine = (
  items: readonly SeriesItem[],
  stored: (seriesKey: string) => StoredContext,
  previouslyHeld: readonly HeldPoint[],
  now: string,
): GuardResult => {
  const keep: SeriesItem[] = [];
  const held: HeldPoint[] = [];
  const newlyHeld: Quarantined[] = [];
  const confirmed: Quarantined[] = [];
  const delivered = new Set(items.map((i) => `${i.seriesKey}|${i.observation.as_of}`));
  const earlier = new Map(previouslyHeld.map((h) => [`${h.series}|${h.as_of}`, h]));
  const hold = (item: SeriesItem, reason: string, release: HeldPoint['release']) => {
    const o = item.observation;
    const before = earlier.get(`${item.seriesKey}|${o.as_of}`);
    const entry = { series: item.seriesKey, as_of: o.as_of, value: o.value, reason };
    held.push({ ...entry, held_since: before && before.value === o.value ? before.held_since : now, release, observation: o });
    if (!before || before.value !== o.value) newlyHeld.push(entry);
  };

  const bySeries = new Map<string, SeriesItem[]>();
  for (const item of items) {
    if (!bandOf(item.seriesKey)) keep.push(item);
    else bySeries.set(item.seriesKey, [...(bySeries.get(item.seriesKey) ?? []), item]);
  }
  for (const [series, list] of [...bySeries].sort(([a], [b]) => a.localeCompare(b))) {
    const { band, unit } = bandOf(series)!;
    const ctx = stored(series);
    const accepted: number[] = ctx.before.map((o) => o.value);
    // A suspect point waiting for the next point of the series to confirm it.
    let pending: { item: SeriesItem; reason: string } | null = null;
    for (const item of [...list].sort((a, b) => a.observation.as_of.localeCompare(b.observation.as_of))) {
      const { value, as_of } = item.observation;
      // Equal to the stored figure: accepted before (checked, confirmed or released).
      const known = ctx.at.get(as_of) === value;
      if (!known && (value < band[0] || value > band[1])) {
        hold(item, `outside the plausible band ${band[0]}..${band[1]} ${unit}`, 'operator');
        continue;
      }
      const recent = accepted.slice(-RECENT_POINTS);
      let confirming = false;
      if (pending && confirms(value, pending.item.observation.value, recent)) {
        const p = pending.item.observation;
        keep.push(pending.item);
        accepted.push(p.value);
        confirmed.push({ series, as_of: p.as_of, value: p.value, reason: `confirmed by ${fmt(value)} on ${as_of}` });
        confirming = true;
      } else if (pending) {
        // Not confirmed: the suspect was a spike, not a move; it waits for an operator.
        hold(pending.item, pending.reason, 'confirmation or operator');
      }
      pending = null;
      const reason = known || confirming ? null : moveOutsideRange(value, recent);
      if (reason) pending = { item, reason: `${reason}; held until the next point confirms the move or an operator releases it` };
      else {
        keep.push(item);
        accepted.push(value);
      }
    }
    if (pending) hold(pending.item, pending.reason, 'confirmation or operator');
  }
  // Points held earlier that this run did not deliver again stay held as they were.
  for (const h of previouslyHeld) if (!delivered.has(`${h.series}|${h.as_of}`)) held.push(h);
  held.sort((a, b) => a.series.localeCompare(b.series) || a.as_of.localeCompare(b.as_of));
  return { keep, held, newlyHeld, confirmed };
};

export { futureDated, quarantine, moveOutsideRange, bandOf, PRICE_BANDS, RECENT_POINTS };
export type { HeldPoint, StoredContext };
