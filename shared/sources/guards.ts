/**
 * Pure: the checks that keep bad source data from reaching an agent.
 *
 * - A run with an observation dated after tomorrow (UTC) is refused whole: no publisher dates a
 *   figure ahead, so the payload is broken (a 2099 row would become "latest" for ever).
 * - A price outside its unit's plausible band is held in quarantine (a unit or decimal error:
 *   7,253,000 USD/bbl) until an operator releases it.
 * - Every other new price is judged against the series' accepted history before this run (what the
 *   store held when the run began: points this run accepts never widen the range they are judged by).
 *   A price that flips the sign of its recent range (the last 10 accepted points before its date), or
 *   lies more than 5x outside it, is held until confirmed: a point of the series from a later
 *   publication (dated after everything earlier runs delivered) that makes the same move (same sign,
 *   nearer to it than to the range it left) confirms it, or an operator releases it. The payload that
 *   carries a suspect point never confirms it: two agreeing bad rows of one run stay held.
 * - A creep (every step of the run since the last accepted point going the same way, three steps or
 *   more, the whole move beyond CREEP_SIGMAS standard deviations of the series' daily log moves over
 *   its accepted history, scaled by the square root of the steps) is held until an operator releases
 *   it: no single step trips the range rule, the sum does.
 *   Real extremes: WTI's -37.63 of 2020-04-20 (next day 8.91) enters by release; Henry Hub's 13.20 of
 *   2024-01-12 (4x its range in a cold snap, one step) passes at once.
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
/** Accepted points the creep test reads the series' volatility from (about three months of daily prices). */
const HISTORY_POINTS = 60;
/** Fewest log moves that make a volatility to judge a creep by. */
const MIN_VOLATILITY_MOVES = 20;
/** Steps in one direction before a move counts as a creep (fewer: a jump, the range rule's). */
const CREEP_STEPS = 3;
/**
 * Standard deviations (of the series' step moves, times the square root of the steps) a creep may
 * cover. Set above every weekly run of the recorded EIA spot histories 2023-2026 (WTI's March 2026
 * rally reached 6.5 over two steps) and below Henry Hub falling 20% a day from 2.82.
 */
const CREEP_SIGMAS = 8;

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
  /** The newest stored points before the run's first date of the series, ascending (at most HISTORY_POINTS). */
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

/** The standard deviation of the step log moves of positive `values` (ascending), or null with too few. */
const volatilityOf = (values: readonly number[]): number | null => {
  const moves: number[] = [];
  for (let i = 1; i < values.length; i++) if (values[i - 1]! > 0 && values[i]! > 0) moves.push(Math.log(values[i]! / values[i - 1]!));
  if (moves.length < MIN_VOLATILITY_MOVES) return null;
  const mean = moves.reduce((a, b) => a + b, 0) / moves.length;
  return Math.sqrt(moves.reduce((a, b) => a + (b - mean) ** 2, 0) / (moves.length - 1));
};

/**
 * Why the end of `path` (the series' values in date order: its accepted history, then the run's
 * points up to the one judged) is a creep, or null: its trailing run of steps that all go one way
 * (a flat step breaks nothing) has CREEP_STEPS steps or more and moves beyond CREEP_SIGMAS x `sigma`
 * x sqrt(steps), and had moved beyond half that before its last step (else it is one jump after quiet
 * days: the range rule's). Accepted points count, so a creep spread over several releases is seen whole.
 * @example creepOf([2.7, 2.82, 2.256, 1.805, 1.444], 0.04) // '1.444 is a creep of 3 steps from 2.82 …'
 */
const creepOf = (path: readonly number[], sigma: number | null): string | null => {
  if (sigma === null || path.length <= CREEP_STEPS || path.some((v) => v <= 0)) return null;
  let start = path.length - 1;
  let direction = 0;
  while (start > 0) {
    const step = Math.sign(path[start]! - path[start - 1]!);
    if (direction === 0) direction = step;
    else if (step === -direction) break;
    start--;
  }
  const steps = path.length - 1 - start;
  const from = path[start]!;
  const to = path.at(-1)!;
  const move = Math.abs(Math.log(to / from));
  const limit = CREEP_SIGMAS * sigma * Math.sqrt(steps);
  if (steps < CREEP_STEPS || move <= limit) return null;
  // A drift, not a jump after a few quiet days (the range rule's): the streak had already moved half
  // as far beyond its volatility before its last step.
  const before = Math.abs(Math.log(path.at(-2)! / from));
  if (before <= (CREEP_SIGMAS / 2) * sigma * Math.sqrt(steps - 1)) return null;
  return `${fmt(to)} is a creep of ${steps} steps from ${fmt(from)} (a log move of ${fmt(move)}, beyond ${CREEP_SIGMAS} standard deviations of the series' moves over that span, ${fmt(limit)}); held until an operator releases it`;
};

/** A point of the series judged in this run: delivered by it, or held by an earlier run and not delivered again. */
interface Judged {
  item: SeriesItem;
  /** Whether an earlier publication carried it (held before); a confirmation must come from a later one. */
  earlier: boolean;
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
  const settled = new Set<string>();
  const hold = (item: SeriesItem, reason: string, release: HeldPoint['release']) => {
    const o = item.observation;
    const before = earlier.get(`${item.seriesKey}|${o.as_of}`);
    const entry = { series: item.seriesKey, as_of: o.as_of, value: o.value, reason };
    held.push({ ...entry, held_since: before && before.value === o.value ? before.held_since : now, release, observation: o });
    if (!before || before.value !== o.value) newlyHeld.push(entry);
  };

  const bySeries = new Map<string, Judged[]>();
  for (const item of items) {
    if (!bandOf(item.seriesKey)) keep.push(item);
    else bySeries.set(item.seriesKey, [...(bySeries.get(item.seriesKey) ?? []), { item, earlier: false }]);
  }
  // Points held for a confirmation that this run does not deliver again can still be confirmed by it,
  // when they precede its last date of the series (the stored history read for the run covers them).
  const lastDate = new Map<string, string>();
  for (const [series, list] of bySeries)
    lastDate.set(
      series,
      list
        .map((j) => j.item.observation.as_of)
        .sort()
        .at(-1)!,
    );
  for (const h of previouslyHeld) {
    const last = lastDate.get(h.series);
    if (h.release !== 'confirmation or operator' || delivered.has(`${h.series}|${h.as_of}`) || !last || h.as_of > last) continue;
    bySeries.get(h.series)!.push({ item: { seriesKey: h.series, observation: h.observation }, earlier: true });
    settled.add(`${h.series}|${h.as_of}`);
  }
  for (const [series, list] of [...bySeries].sort(([a], [b]) => a.localeCompare(b))) {
    const { band, unit } = bandOf(series)!;
    const ctx = stored(series);
    // The accepted history before this run, ascending: what every point of the run is judged by.
    const history = [...ctx.before.map((o) => [o.as_of, o.value] as const), ...[...ctx.at].sort(([a], [b]) => a.localeCompare(b))];
    const sigma = volatilityOf(ctx.before.map((o) => o.value));
    // A point dated after everything earlier runs delivered (stored or held) comes from a later publication.
    const seen = [...history.map(([d]) => d), ...previouslyHeld.filter((h) => h.series === series).map((h) => h.as_of)].sort().at(-1) ?? '';
    const sequence = [...list].sort((a, b) => a.item.observation.as_of.localeCompare(b.item.observation.as_of));
    // Suspect points with the range they left; those an earlier run held can be confirmed by a later publication.
    const pending: Array<{ item: SeriesItem; reason: string; range: number[]; heldBefore: boolean }> = [];
    const firstLoad: Array<readonly [string, number]> = [];
    const accept = (item: SeriesItem) => {
      keep.push(item);
      firstLoad.push([item.observation.as_of, item.observation.value]);
    };
    for (let i = 0; i < sequence.length; i++) {
      const { item, earlier: carriedBefore } = sequence[i]!;
      const { value, as_of } = item.observation;
      // Equal to the stored figure: accepted before (checked, confirmed or released).
      if (ctx.at.get(as_of) === value) {
        accept(item);
        continue;
      }
      if (value < band[0] || value > band[1]) {
        hold(item, `outside the plausible band ${band[0]}..${band[1]} ${unit}`, 'operator');
        continue;
      }
      // A first load (nothing stored before this point) has only the points this run accepted before it.
      const storedBefore = history.filter(([d]) => d < as_of);
      const prior = storedBefore.length > 0 ? storedBefore : firstLoad;
      const range = prior.slice(-RECENT_POINTS).map(([, v]) => v);
      if (!carriedBefore && as_of > seen) {
        for (const p of [...pending]) {
          if (!p.heldBefore || !confirms(value, p.item.observation.value, p.range)) continue;
          keep.push(p.item);
          pending.splice(pending.indexOf(p), 1);
          confirmed.push({ series, as_of: p.item.observation.as_of, value: p.item.observation.value, reason: `confirmed by ${fmt(value)} on ${as_of}` });
        }
      }
      // The accepted history before this point, then this run's new points up to it. A creep is held
      // for an operator even where a later publication would confirm a jump: it keeps "confirming" itself.
      const since = prior.at(-1)?.[0] ?? '';
      const path = () => [
        ...prior.map(([, v]) => v),
        ...sequence
          .slice(0, i + 1)
          .filter((j) => j.item.observation.as_of > since)
          .map((j) => j.item.observation.value),
      ];
      const creep = sigma === null ? null : creepOf(path(), sigma);
      if (creep) {
        hold(item, creep, 'operator');
        continue;
      }
      const outside = moveOutsideRange(value, range);
      if (outside) {
        const heldBefore = earlier.get(`${series}|${as_of}`)?.value === value;
        pending.push({ item, reason: `${outside}; held until a later publication confirms the move or an operator releases it`, range, heldBefore });
      } else accept(item);
    }
    for (const p of pending) hold(p.item, p.reason, 'confirmation or operator');
  }
  // Points held earlier that this run did not judge stay held as they were.
  for (const h of previouslyHeld) if (!delivered.has(`${h.series}|${h.as_of}`) && !settled.has(`${h.series}|${h.as_of}`)) held.push(h);
  held.sort((a, b) => a.series.localeCompare(b.series) || a.as_of.localeCompare(b.as_of));
  return { keep, held, newlyHeld, confirmed };
};

export { futureDated, quarantine, moveOutsideRange, creepOf, bandOf, HISTORY_POINTS };
export type { HeldPoint, StoredContext };
