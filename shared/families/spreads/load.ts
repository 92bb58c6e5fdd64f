/**
 * Reads of the spreads family, reused by snapshots and decision packs: the latest value of a
 * spread with its legs, and a spread's history. Leg reads go through the read cache so the
 * legs' provenance (and hence the spread's) tells the truth.
 */
import { findInstrument } from '../../catalog/instruments';
import { seriesKey } from '../../catalog/series-keys';
import { LEG_RULES, SPREADS, selectLegs, spreadObservation, spreadSeries, type SpreadDef, type SpreadId, type SpreadPoint } from '../../analytics/spreads';
import type { Services } from '../../services';
import { ServiceUnavailableError } from '../../errors/errors';
import type { Observation } from '../../observation/schema';
import { withFreshness } from '../../observation/serve';
import { loadWindow } from '../price/load';

/**
 * Recent observations read per leg to find a date all legs share: two weeks of daily data,
 * ten months of monthly data. A leg that stopped publishing longer ago than that still
 * answers, unaligned, with each leg's as_of stated.
 */
const ALIGN_LOOKBACK = 10;

/** The n most recent observations of an instrument, newest first, as served. */
const loadRecent = async (services: Services, code: string, n: number): Promise<Observation[]> => {
  const instrument = findInstrument(code)!;
  const key = seriesKey.price(code);
  return services.reader.recent(key, n, instrument.freshness);
};

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
  aligned: boolean;
  spread: Observation;
  legs: SpreadLeg[];
}

interface SpreadUnavailable {
  ok: false;
  def: SpreadDef;
  missing: MissingInput[];
}

/**
 * The latest value of a spread with its legs, or which legs are missing. Never throws for
 * missing data: callers decide between a partial answer (snapshots) and a 503 (the route).
 */
const loadSpread = async (services: Services, id: SpreadId): Promise<SpreadAnswer | SpreadUnavailable> => {
  const def = SPREADS[id];
  const recent = Object.fromEntries(await Promise.all(def.legs.map(async (l) => [l.code, await loadRecent(services, l.code, ALIGN_LOOKBACK)] as const)));
  const missing = def.legs
    .filter((l) => recent[l.code]!.length === 0)
    .map((l) => ({ instrument: l.code, reason: `no observation of ${l.code} (${l.role}) is stored yet` }));
  const selection = selectLegs(recent);
  if (missing.length || !selection) return { ok: false, def, missing };
  const spread = spreadObservation(def, selection.legs, selection.aligned);
  if (!Number.isFinite(spread.value)) {
    return { ok: false, def, missing: [{ instrument: def.instrument, reason: 'the legs do not give a finite value' }] };
  }
  return {
    ok: true,
    def,
    aligned: selection.aligned,
    spread,
    legs: def.legs.map((l) => ({ code: l.code, role: l.role, coefficient: l.coefficient, observation: selection.legs[l.code]! })),
  };
};

/** Like loadSpread, but missing legs are a 503 NO_DATA that names them (never a 500 or NaN). */
const requireSpread = async (services: Services, id: SpreadId): Promise<SpreadAnswer> => {
  const r = await loadSpread(services, id);
  if (!r.ok) {
    throw new ServiceUnavailableError('NO_DATA', `the ${r.def.name} cannot be computed: ${r.missing.map((m) => m.instrument).join(', ')} missing`, {
      spread: r.def.id,
      missing: r.missing,
      hint: 'GET /health shows when each source last succeeded',
    });
  }
  return r;
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

/**
 * The body of a spread route: the spread (its staleness judged on `today`, YYYY-MM-DD), each
 * leg as its own observation, and the method.
 */
const spreadBody = (a: SpreadAnswer, today: string) => ({
  spread: a.def.id,
  name: a.def.name,
  instrument: a.def.instrument,
  unit: a.def.unit,
  as_of: a.spread.as_of,
  aligned: a.aligned,
  method: {
    formula: a.def.formula,
    description: a.def.description,
    legs: a.legs.map((l) => ({ instrument: l.code, role: l.role, coefficient: l.coefficient, as_of: l.observation.as_of })),
    coefficients: 'spread = sum over the legs of coefficient x leg value (unit conversions folded in, e.g. RB x 2 x 42 / 3 = RB x 28)',
    rules: LEG_RULES,
  },
  observation: withFreshness(a.spread, today),
  legs: a.legs.map((l) => ({ instrument: l.code, role: l.role, observation: l.observation })),
});

export { loadSpread, requireSpread, loadSpreadHistory, spreadBody };
export type { SpreadAnswer, SpreadUnavailable, SpreadLeg, MissingInput };
