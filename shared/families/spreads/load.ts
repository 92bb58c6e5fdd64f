/**
 * Reads of the spreads family, reused by snapshots and decision packs: the latest value of a
 * spread with its legs, and a spread's history. Leg reads go through the read cache so the
 * legs' provenance (and hence the spread's) tells the truth.
 *
 * A spread is computed on the latest date up to today that every leg shares; when no such date
 * lies within the legs' cadence, it is stale and has no value (analytics/spreads.ts alignLegs).
 */
import { findInstrument } from '../../catalog/instruments';
import {
  LEG_RULES,
  SPREADS,
  alignLegs,
  slowestFreshness,
  spreadObservation,
  spreadSeries,
  type SpreadDef,
  type SpreadId,
  type SpreadPoint,
} from '../../analytics/spreads';
import { addDays, isoDate } from '../../dates';
import type { Services } from '../../services';
import { NotFoundError, ServiceUnavailableError } from '../../errors/errors';
import type { Observation } from '../../observation/schema';
import { withFreshness } from '../../observation/serve';
import { MAX_LAG_DAYS } from '../../observation/staleness';
import { loadLatest, loadWindow } from '../price/load';

interface SpreadLeg {
  code: string;
  role: string;
  coefficient: number;
  observation: Observation;
}

/** A leg that kept the spread from being computed. */
interface MissingInput {
  instrument: string;
  reason: string;
}

interface SpreadAnswer {
  ok: true;
  def: SpreadDef;
  spread: Observation;
  legs: SpreadLeg[];
}

interface SpreadUnavailable {
  ok: false;
  stale: false;
  def: SpreadDef;
  missing: MissingInput[];
}

/** Every leg has data, but no date they all share lies within the cadence: stale, no value. */
interface SpreadStale {
  ok: false;
  stale: true;
  def: SpreadDef;
  reason: string;
  /** Each leg's newest stored observation. */
  legs: SpreadLeg[];
}

/**
 * The latest value of a spread on `today` with its legs, or why there is none (a leg never stored,
 * or no shared date within the cadence). Never throws for missing data: callers decide between a
 * partial answer (snapshots, packs) and an error (the route).
 * @param today YYYY-MM-DD, the day the alignment is judged on
 */
const loadSpread = async (services: Services, id: SpreadId, today: string): Promise<SpreadAnswer | SpreadUnavailable | SpreadStale> => {
  const def = SPREADS[id];
  const cadence = slowestFreshness(def.legs.map((l) => findInstrument(l.code)!.freshness));
  const from = addDays(today, -(MAX_LAG_DAYS[cadence] ?? 0));
  const read = await Promise.all(
    def.legs.map(async (l) => {
      const [latest, window] = await Promise.all([loadLatest(services, l.code), loadWindow(services, l.code, from, today)]);
      return { leg: l, latest, window: window.observations };
    }),
  );
  const missing = read
    .filter((r) => !r.latest)
    .map((r) => ({ instrument: r.leg.code, reason: `no observation of ${r.leg.code} (${r.leg.role}) is stored yet` }));
  if (missing.length) return { ok: false, stale: false, def, missing };
  const legOf = (r: (typeof read)[number], observation: Observation): SpreadLeg => ({
    code: r.leg.code,
    role: r.leg.role,
    coefficient: r.leg.coefficient,
    observation,
  });
  // The window holds the dates that can align; the latest says how far each leg reaches when none does.
  const aligned = alignLegs(Object.fromEntries(read.map((r) => [r.leg.code, [...r.window, r.latest!]])), cadence, today);
  if (!aligned.ok) return { ok: false, stale: true, def, reason: `the ${def.name}: ${aligned.reason}`, legs: read.map((r) => legOf(r, r.latest!)) };
  const spread = spreadObservation(def, aligned.legs);
  if (!Number.isFinite(spread.value)) {
    return { ok: false, stale: false, def, missing: [{ instrument: def.instrument, reason: 'the legs do not give a finite value' }] };
  }
  return { ok: true, def, spread, legs: read.map((r) => legOf(r, aligned.legs[r.leg.code]!)) };
};

/**
 * Like loadSpread, but no value is an error: a leg never stored is 503 NO_DATA naming it; a stale
 * spread is NO_DATA saying why, 404 (not retryable) when its legs come from the bundled samples,
 * which no release changes, else 503 (a release will fill it).
 */
const requireSpread = async (services: Services, id: SpreadId): Promise<SpreadAnswer> => {
  const r = await loadSpread(services, id, isoDate(services.now()));
  if (r.ok) return r;
  if (!r.stale) {
    throw new ServiceUnavailableError('NO_DATA', `the ${r.def.name} cannot be computed: ${r.missing.map((m) => m.instrument).join(', ')} missing`, {
      spread: r.def.id,
      missing: r.missing,
      hint: 'GET /health shows when each source last succeeded',
    });
  }
  const details = {
    spread: r.def.id,
    stale: true,
    legs: r.legs.map((l) => ({ instrument: l.code, newest_as_of: l.observation.as_of })),
    hint: `GET /v1/history/{code} has each leg's history; the spread on past dates is in the decision packs' spread history`,
  };
  const sources = [...new Set(r.def.legs.map((l) => findInstrument(l.code)!.sourceId!))];
  const replayed = await Promise.all(sources.map(async (s) => (await services.reader.runStatus(s))?.last_mode === 'replay'));
  if (replayed.every(Boolean)) throw new NotFoundError('NO_DATA', `${r.reason}; the bundled samples will not change that`, details);
  throw new ServiceUnavailableError('NO_DATA', r.reason, details);
};

/**
 * A spread's history in [start, end] on the dates every leg shares, ascending, plus the leg
 * windows it came from (the decision packs cite them as inputs).
 */
const loadSpreadHistory = async (
  services: Services,
  id: SpreadId,
  start: string,
  end: string,
): Promise<{ points: SpreadPoint[]; legs: Record<string, Observation[]> }> => {
  const def = SPREADS[id];
  const legs = Object.fromEntries(
    await Promise.all(def.legs.map(async (l) => [l.code, (await loadWindow(services, l.code, start, end)).observations] as const)),
  );
  return { points: spreadSeries(def, legs), legs };
};

const methodOf = (def: SpreadDef, legs: readonly SpreadLeg[]) => ({
  formula: def.formula,
  description: def.description,
  legs: legs.map((l) => ({ instrument: l.code, role: l.role, coefficient: l.coefficient, as_of: l.observation.as_of })),
  coefficients: 'spread = sum over the legs of coefficient x leg value (unit conversions folded in, e.g. RB x 2 x 42 / 3 = RB x 28)',
  rules: LEG_RULES,
});

/**
 * The body of a spread route: the spread (its staleness judged on `today`, YYYY-MM-DD), each
 * leg as its own observation on the spread's date, and the method.
 */
const spreadBody = (a: SpreadAnswer, today: string) => ({
  spread: a.def.id,
  name: a.def.name,
  instrument: a.def.instrument,
  unit: a.def.unit,
  as_of: a.spread.as_of,
  method: methodOf(a.def, a.legs),
  observation: withFreshness(a.spread, today),
  legs: a.legs.map((l) => ({ instrument: l.code, role: l.role, observation: l.observation })),
});

/** A stale spread as the snapshots list it: no value, why, and each leg's newest observation. */
const staleSpreadBody = (s: SpreadStale) => ({
  spread: s.def.id,
  name: s.def.name,
  instrument: s.def.instrument,
  unit: s.def.unit,
  as_of: null,
  value: null,
  stale: true as const,
  reason: s.reason,
  method: methodOf(s.def, s.legs),
  legs: s.legs.map((l) => ({ instrument: l.code, role: l.role, observation: l.observation })),
});

export { loadSpread, requireSpread, loadSpreadHistory, spreadBody, staleSpreadBody };
export type { SpreadAnswer, SpreadUnavailable, SpreadStale, SpreadLeg, MissingInput };
