/**
 * Pure spread arithmetic (DESIGN.md "Derived figures"): the 3-2-1 crack cash proxy, the soy
 * crush margin proxy, the WTI-Brent basis and the front-minus-second calendar spread, plus
 * the rules that turn leg observations into one honest spread observation (as_of alignment,
 * weakest quality, slowest freshness, combined provenance).
 *
 * Nothing here reads a store or a clock: the spreads family and the decision packs feed it.
 */
import type { FreshnessClass } from '../catalog/instruments';
import type { Observation, Quality } from '../observation/schema';

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

/** The legs chosen for one spread value: aligned on one date, or each leg's latest when no date is shared. */
interface LegSelection<T extends Dated> {
  aligned: boolean;
  legs: Record<string, T>;
}

/**
 * Picks the legs of the latest spread value: the latest date every leg shares; when the legs
 * share no date, each leg's own latest (aligned false, and the method then says which as_of
 * each leg has). Returns null when a leg has no observation at all.
 */
const selectLegs = <T extends Dated>(legs: Readonly<Record<string, readonly T[]>>): LegSelection<T> | null => {
  const codes = Object.keys(legs);
  if (codes.length === 0 || codes.some((c) => legs[c]!.length === 0)) return null;
  const date = commonDates(legs).at(-1);
  const pick = (obs: readonly T[], want?: string): T => (want ? obs.find((o) => o.as_of === want)! : obs.reduce((a, b) => (b.as_of > a.as_of ? b : a)));
  return {
    aligned: date !== undefined,
    legs: Object.fromEntries(codes.map((c) => [c, pick(legs[c]!, date)])),
  };
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
const LEG_RULES = Object.freeze({
  as_of: 'the latest as_of that every leg shares; when the legs share none, the oldest leg as_of (aligned: false, each leg keeps its own as_of)',
  quality:
    'always "derived" (computed by this service); the weakest quality of the legs (official > derived > delayed > indicative) is in attributes.legs_quality',
  observed_at: 'the latest observed_at of the legs (the moment the newest input describes); null when no leg has one',
  freshness_class: 'the slowest freshness class of the legs (a monthly leg makes the spread monthly)',
  provenance: 'retrieved_at of the oldest-retrieved leg; cache_hit only if every leg was a cache hit; cache_ttl_s the shortest of the legs',
  next_release_at: 'the earliest next release of any leg (the spread can change then)',
});

/**
 * The spread observation from its (selected) leg observations. Pure: every field follows
 * from the legs by LEG_RULES; the leg values and dates are kept in `attributes`.
 * @param legs per leg code, the leg observation used (all legs of `def` present)
 * @param aligned whether the legs share one as_of
 */
const spreadObservation = (def: SpreadDef, legs: Readonly<Record<string, Observation>>, aligned: boolean): Observation => {
  const obs = def.legs.map((l) => legs[l.code]!);
  const value = def.compute(Object.fromEntries(def.legs.map((l) => [l.code, legs[l.code]!.value])));
  const provs = nonNull(obs.map((o) => o.provenance));
  const retrieved = nonNull(provs.map((p) => p.retrieved_at)).sort();
  const ttls = nonNull(provs.map((p) => p.cache_ttl_s));
  const attributes: Record<string, number | string | null> = {
    formula: def.formula,
    aligned: aligned ? 'yes' : 'no',
    legs_quality: weakestQuality(obs.map((o) => o.quality)),
  };
  for (const l of def.legs) {
    attributes[l.code] = legs[l.code]!.value;
    attributes[`${l.code}_as_of`] = legs[l.code]!.as_of;
  }
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
    },
    published_at:
      nonNull(obs.map((o) => o.published_at))
        .sort()
        .at(-1) ?? null,
    next_release_at: nonNull(obs.map((o) => o.next_release_at)).sort()[0] ?? null,
    attributes,
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
  selectLegs,
  spreadSeries,
  spreadObservation,
  round,
};
export type { SpreadId, LegValues, SpreadDef, SpreadLegDef, SpreadPoint, LegSelection };
