/**
 * Pure spread arithmetic (DESIGN.md "Derived figures"): the 3-2-1 crack cash proxy, the soy
 * crush margin proxy, the WTI-Brent basis and the front-minus-second calendar spread, plus
 * the rules that turn leg observations into one honest spread observation (one date all legs
 * share within the cadence, else no value; weakest quality, slowest freshness, combined provenance).
 *
 * Nothing here reads a store or a clock: the spreads family and the decision packs feed it.
 */
import type { FreshnessClass } from '../catalog/instruments';
import { addDays } from '../dates';
import { combinedRetrieval } from '../observation/derive';
import type { Observation, Quality } from '../observation/schema';
import { pointInTimeOf } from '../observation/vintage';
import { MAX_LAG_DAYS, type Cadence } from '../observation/staleness';

/** Barrels to US gallons (products are quoted per gallon, crude per barrel). */
const GALLONS_PER_BARREL = 42;
/**
 * Board-crush yields of one 60 lb bushel of soybeans: about 44 lb of meal (0.022 short ton)
 * and 11 lb of oil (CME Group, "Soybean crush reference guide").
 */
const MEAL_SHORT_TONS_PER_BUSHEL = 0.022;
const OIL_POUNDS_PER_BUSHEL = 11;
/** Spreads are served to 4 decimals of their unit (1/100 cent): enough for USD/bbl and USD/bu, and no float noise. */
const SPREAD_DECIMALS = 4;

const round = (x: number, digits = SPREAD_DECIMALS): number => {
  const r = Number(x.toFixed(digits));
  return Object.is(r, -0) ? 0 : r;
};

/**
 * 3-2-1 crack cash proxy in USD/bbl: (2 x gasoline x 42 + 1 x ULSD x 42 - 3 x WTI) / 3.
 * @param rb gasoline, USD/gal
 * @param ho ULSD / heating oil, USD/gal
 * @param cl WTI, USD/bbl
 * @example crack321(2.162, 2.398, 72.53) // 21.578
 */
const crack321 = (rb: number, ho: number, cl: number): number => round((2 * rb * GALLONS_PER_BARREL + ho * GALLONS_PER_BARREL - 3 * cl) / 3);

/**
 * Soy crush margin proxy in USD/bu: meal x 0.022 + oil x 11 - soybeans.
 * @param meal soybean meal, USD/short ton
 * @param oil soybean oil, USD/lb
 * @param beans soybeans, USD/bu
 * @example soyCrush(300, 0.5, 10) // 2.1
 */
const soyCrush = (meal: number, oil: number, beans: number): number => round(meal * MEAL_SHORT_TONS_PER_BUSHEL + oil * OIL_POUNDS_PER_BUSHEL - beans);

/** WTI minus Brent in USD/bbl (negative when WTI is the cheaper crude). @example wtiBrentBasis(72.53, 75.05) // -2.52 */
const wtiBrentBasis = (wti: number, brent: number): number => round(wti - brent);

/** Front contract minus second contract, in the contracts' unit. @example calendarSpread(70.1, 69.6) // 0.5 */
const calendarSpread = (front: number, second: number): number => round(front - second);

/** Leg of a spread: which catalog instrument, in which role, with its coefficient in the formula. */
interface SpreadLegDef {
  readonly code: string;
  readonly role: string;
  /** Signed multiplier of the leg's value in the formula, after unit conversion, per unit of spread. */
  readonly coefficient: number;
}

type SpreadId = 'crack' | 'crush' | 'basis';

/** Leg values keyed by leg code. */
type LegValues = Readonly<Record<string, number>>;

/** A spread of catalog instruments: its legs, its formula, and how to state its method. */
interface SpreadDef {
  /** crack, crush, basis; or `calendar` for a front-minus-second spread built at request time. */
  readonly id: string;
  /** Instrument code of the spread observation. */
  readonly instrument: string;
  readonly name: string;
  readonly unit: string;
  readonly legs: readonly SpreadLegDef[];
  readonly formula: string;
  readonly description: string;
  /** Value from the leg values keyed by code (all present and finite). */
  readonly compute: (v: LegValues) => number;
}

const SPREADS: Readonly<Record<SpreadId, SpreadDef & { id: SpreadId }>> = Object.freeze({
  crack: Object.freeze({
    id: 'crack',
    instrument: 'CRACK_3_2_1',
    name: '3-2-1 crack spread, cash proxy',
    unit: 'USD/bbl',
    legs: [
      { code: 'RB', role: 'gasoline (Gulf Coast conventional, USD/gal)', coefficient: (2 * GALLONS_PER_BARREL) / 3 },
      { code: 'HO', role: 'ULSD (NY Harbor, USD/gal)', coefficient: GALLONS_PER_BARREL / 3 },
      { code: 'CL', role: 'crude (WTI Cushing, USD/bbl)', coefficient: -1 },
    ],
    formula: '(2 x RB x 42 + 1 x HO x 42 - 3 x CL) / 3',
    description:
      'Gross refining margin of turning 3 barrels of WTI into 2 barrels of gasoline and 1 barrel of ULSD, per barrel of crude, ' +
      'from EIA daily cash (spot) prices; product prices are USD/gal and are multiplied by 42 gal/bbl. A cash proxy, not the NYMEX futures crack.',
    compute: (v: LegValues) => crack321(v.RB!, v.HO!, v.CL!),
  }),
  crush: Object.freeze({
    id: 'crush',
    instrument: 'SOY_CRUSH',
    name: 'Soy crush margin proxy',
    unit: 'USD/bu',
    legs: [
      { code: 'ZM', role: 'soybean meal (USD/short ton)', coefficient: MEAL_SHORT_TONS_PER_BUSHEL },
      { code: 'ZL', role: 'soybean oil (USD/lb)', coefficient: OIL_POUNDS_PER_BUSHEL },
      { code: 'ZS', role: 'soybeans (USD/bu)', coefficient: -1 },
    ],
    formula: 'ZM x 0.022 + ZL x 11 - ZS',
    description:
      'Gross processing margin per bushel: one 60 lb bushel of soybeans yields about 44 lb (0.022 short ton) of meal and 11 lb of oil. ' +
      'The legs are World Bank monthly average prices converted to US units (quality derived), so this is a monthly-average margin proxy, not the board crush.',
    compute: (v: LegValues) => soyCrush(v.ZM!, v.ZL!, v.ZS!),
  }),
  basis: Object.freeze({
    id: 'basis',
    instrument: 'BASIS_WTI_BRENT',
    name: 'WTI-Brent basis',
    unit: 'USD/bbl',
    legs: [
      { code: 'CL', role: 'WTI Cushing (USD/bbl)', coefficient: 1 },
      { code: 'BZ', role: 'Brent (USD/bbl)', coefficient: -1 },
    ],
    formula: 'CL - BZ',
    description: 'WTI Cushing spot minus Brent spot, both EIA daily cash prices on the same date; negative when WTI is cheaper.',
    compute: (v: LegValues) => wtiBrentBasis(v.CL!, v.BZ!),
  }),
});

/**
 * Weakness order of quality (weakest last): a converted official figure is weaker than the
 * official one, a delayed market quote weaker still, an indicative quote weakest. Unknown
 * (null) counts as weaker than all of them, so the spread never claims more than it knows.
 */
const QUALITY_WEAKNESS: readonly (Quality | null)[] = Object.freeze(['official', 'derived', 'delayed', 'indicative', null]);

/** Slowness order of freshness classes (slowest last). */
const FRESHNESS_SLOWNESS: readonly FreshnessClass[] = Object.freeze(['intraday', 'delayed', 'eod', 'weekly', 'monthly', 'decree']);

/** The weakest quality of the legs (see QUALITY_WEAKNESS). @example weakestQuality(['official','derived']) // 'derived' */
const weakestQuality = (qualities: readonly (Quality | null)[]): Quality | null =>
  qualities.reduce<Quality | null>((w, q) => (QUALITY_WEAKNESS.indexOf(q) > QUALITY_WEAKNESS.indexOf(w) ? q : w), qualities.length ? 'official' : null);

/** The slowest freshness class of the legs. @example slowestFreshness(['eod','monthly']) // 'monthly' */
const slowestFreshness = (classes: readonly FreshnessClass[]): FreshnessClass =>
  classes.reduce((s, c) => (FRESHNESS_SLOWNESS.indexOf(c) > FRESHNESS_SLOWNESS.indexOf(s) ? c : s), classes[0] ?? 'eod');

interface Dated {
  as_of: string;
}

/**
 * Dates on which every leg has an observation, ascending.
 * @param legs per leg code, its observations in any order
 */
const commonDates = (legs: Readonly<Record<string, readonly Dated[]>>): string[] => {
  const sets = Object.values(legs).map((obs) => new Set(obs.map((o) => o.as_of)));
  if (sets.length === 0) return [];
  const [first, ...rest] = sets;
  return [...first!].filter((d) => rest.every((s) => s.has(d))).sort();
};

/** The legs of one multi-leg value, all on the same date. */
interface AlignedLegs<T extends Dated> {
  ok: true;
  /** The latest date up to today that every leg shares, within the cadence. */
  as_of: string;
  legs: Record<string, T>;
}

/** No date every leg shares lies within the cadence: the figure is stale and has no value. */
interface StaleLegs {
  ok: false;
  stale: true;
  /** The cadence judged by (the slowest leg's) and the days an as_of may lag today under it. */
  cadence: Cadence;
  max_lag_days: number;
  reason: string;
}

/**
 * The legs of a multi-leg figure on `today` (DESIGN.md "Derived figures"): the latest date up to
 * `today` that every leg shares, if it lags `today` by no more than the cadence allows; otherwise
 * the figure is stale and has no value. Never a mix of dates. Pure: judged at any instant.
 * @param legs per leg code, its observations in any order (dates after `today` are not used)
 * @param cadence the slowest cadence of the legs (eod 10 days, monthly 62 …)
 * @param today YYYY-MM-DD
 * @example alignLegs({ CL: [cl0616], BZ: [bz0616] }, 'eod', '2025-06-17') // { ok: true, as_of: '2025-06-16', … }
 */
const alignLegs = <T extends Dated>(legs: Readonly<Record<string, readonly T[]>>, cadence: Cadence, today: string): AlignedLegs<T> | StaleLegs => {
  const lag = MAX_LAG_DAYS[cadence] ?? 0;
  const from = addDays(today, -lag);
  const recent = Object.fromEntries(Object.entries(legs).map(([code, obs]) => [code, obs.filter((o) => o.as_of >= from && o.as_of <= today)]));
  const date = commonDates(recent).at(-1);
  if (date === undefined || Object.keys(legs).length === 0) {
    const newest = Object.entries(legs).map(([code, obs]) => {
      const known = obs.filter((o) => o.as_of <= today).reduce<string | null>((m, o) => (m === null || o.as_of > m ? o.as_of : m), null);
      return `${code} ${known ?? 'none'}`;
    });
    return {
      ok: false,
      stale: true,
      cadence,
      max_lag_days: lag,
      reason: `no date from ${from} to ${today} (${cadence}: ${lag} days) that every leg shares (newest: ${newest.join(', ')}): stale, no value`,
    };
  }
  return { ok: true, as_of: date, legs: Object.fromEntries(Object.entries(recent).map(([code, obs]) => [code, obs.find((o) => o.as_of === date)!])) };
};

interface SpreadPoint {
  as_of: string;
  value: number;
}

/**
 * The spread's history on the dates every leg shares, ascending.
 * @param legs per leg code, its points (any order)
 */
const spreadSeries = (def: SpreadDef, legs: Readonly<Record<string, readonly SpreadPoint[]>>): SpreadPoint[] => {
  const byLeg = Object.fromEntries(def.legs.map((l) => [l.code, new Map((legs[l.code] ?? []).map((p) => [p.as_of, p.value]))]));
  const dates = commonDates(Object.fromEntries(def.legs.map((l) => [l.code, legs[l.code] ?? []])));
  return dates.map((as_of) => ({
    as_of,
    value: def.compute(Object.fromEntries(def.legs.map((l) => [l.code, byLeg[l.code]!.get(as_of)!]))),
  }));
};

/** Where the methods of derived figures are stated (llms-full.txt, "Methods of derived figures"). */
const METHODS_URL = '/llms-full.txt#methods-of-derived-figures';

const uniq = <T>(xs: readonly T[]): T[] => [...new Set(xs)];

/** The latest of some instants (compared as times, not strings), or null when none is known. */
const latestInstant = (xs: readonly (string | null)[]): string | null =>
  xs.reduce<string | null>((best, x) => (x !== null && (best === null || Date.parse(x) > Date.parse(best)) ? x : best), null);
const nonNull = <T>(xs: readonly (T | null | undefined)[]): T[] => xs.filter((x): x is T => x !== null && x !== undefined);

/** How the spread's date, quality, freshness and provenance follow from its legs (stated in every answer). */
const LEG_RULES = /* @__PURE__ */ Object.freeze({
  as_of:
    "the latest date up to today that every leg shares; when that date lags today by more than the legs' cadence allows (eod 10 days, monthly 62), the spread is stale and has no value (a 404 or 503 NO_DATA saying why), never a mix of dates",
  quality:
    'always "derived" (computed by this service); the weakest quality of the legs (official > derived > delayed > indicative) is in attributes.legs_quality',
  observed_at: 'the latest observed_at of the legs (the moment the newest input describes); null when no leg has one',
  freshness_class: 'the slowest freshness class of the legs (a monthly leg makes the spread monthly)',
  provenance:
    'retrieved_at of the oldest-retrieved leg; cache_hit only if every leg was a cache hit; cache_ttl_s the shortest of the legs; retrieval replay when any leg was replayed',
  next_release_at: 'the earliest next release of any leg (the spread can change then)',
});

/**
 * The spread observation from its aligned leg observations (one date, {@link alignLegs}). Pure:
 * every field follows from the legs by LEG_RULES; the leg values are kept in `attributes`.
 * @param legs per leg code, the leg observation used (all legs of `def` present)
 */
const spreadObservation = (def: SpreadDef, legs: Readonly<Record<string, Observation>>): Observation => {
  const obs = def.legs.map((l) => legs[l.code]!);
  const value = def.compute(Object.fromEntries(def.legs.map((l) => [l.code, legs[l.code]!.value])));
  const provs = nonNull(obs.map((o) => o.provenance));
  const retrieved = nonNull(provs.map((p) => p.retrieved_at)).sort();
  const ttls = nonNull(provs.map((p) => p.cache_ttl_s));
  const attributes: Record<string, number | string | null> = {
    formula: def.formula,
    legs_quality: weakestQuality(obs.map((o) => o.quality)),
  };
  for (const l of def.legs) attributes[l.code] = legs[l.code]!.value;
  return {
    instrument: def.instrument,
    value,
    unit: def.unit,
    as_of: obs.map((o) => o.as_of).sort()[0]!,
    observed_at: latestInstant(obs.map((o) => o.observed_at)),
    freshness_class: slowestFreshness(obs.map((o) => o.freshness_class)),
    quality: 'derived',
    derived: true,
    source: {
      name: `computed by this service from ${uniq(nonNull(obs.map((o) => o.source?.name))).join('; ')}`,
      series_id: `${def.id}: ${def.formula}`,
      // The methods reference of this deployment (relative: the analytics do not know the host).
      url: METHODS_URL,
    },
    license_tag: uniq(obs.map((o) => o.license_tag)).join(' + '),
    provenance: {
      retrieved_at: retrieved[0] ?? null,
      cache_hit: provs.length === obs.length && provs.every((p) => p.cache_hit === true),
      cache_ttl_s: ttls.length ? Math.min(...ttls) : null,
      retrieval: combinedRetrieval(obs.map((o) => o.provenance)),
    },
    published_at:
      nonNull(obs.map((o) => o.published_at))
        .sort()
        .at(-1) ?? null,
    next_release_at: nonNull(obs.map((o) => o.next_release_at)).sort()[0] ?? null,
    attributes: { ...attributes, ...pointInTimeOf(obs) },
  };
};

export {
  SPREADS,
  LEG_RULES,
  crack321,
  soyCrush,
  wtiBrentBasis,
  calendarSpread,
  weakestQuality,
  slowestFreshness,
  commonDates,
  alignLegs,
  spreadSeries,
  spreadObservation,
  round,
};
export type { SpreadId, LegValues, SpreadDef, SpreadLegDef, SpreadPoint, AlignedLegs, StaleLegs };
