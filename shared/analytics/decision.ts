/**
 * Deterministic decision packs (DESIGN.md "Derived figures"): a small, documented rule set that
 * turns stored observations into per-instrument signals (bullish / bearish / neutral), a sector
 * summary, the rules version and a SHA-256 digest of the inputs.
 *
 * Pure: no clock, no randomness, no store. Every date comes from the data; the same inputs give
 * a byte-identical pack apart from provenance (observations are re-keyed in one fixed order, so
 * not even the store's attribute order shows through).
 */
import type { Sector } from '../catalog/instruments';
import type { Observation } from '../observation/schema';
import { cadenceOf, isStale, MAX_LAG_DAYS } from '../observation/staleness';
import { percentRank } from './cot';
import { sameDateYearsBefore } from './inventory';
import { MIN_COVERAGE_PCT, windowCoverage } from './window-coverage';
import { canonicalJson, sha256Hex, withoutProvenance } from './digest';
import { POINT_IN_TIME_ATTRIBUTES } from '../observation/vintage';
import { round, type SpreadPoint } from './spreads';

/** Bump on any change of a rule, threshold or combination: the pack names it. */
const RULES_VERSION = 'decision-rules/1.2.0';

type Signal = 'bullish' | 'bearish' | 'neutral';
type RuleId = 'price_range_1y' | 'inventory_surprise' | 'managed_money_percentile' | 'spread_vs_history';

/** Thresholds of every rule, in one place (served with the pack). */
const THRESHOLDS = Object.freeze({
  /** min_coverage_pct: share of the window's expected points that must be stored (./window-coverage.ts). */
  price_range_1y: { bullish_at_or_above_pct: 80, bearish_at_or_below_pct: 20, min_coverage_pct: MIN_COVERAGE_PCT },
  spread_vs_history: { wide_at_or_above_pctile: 80, narrow_at_or_below_pctile: 20, min_coverage_pct: MIN_COVERAGE_PCT },
  /**
   * A net under 5 % of open interest is a balanced book whatever its rank in 3 years (palladium's
   * 451 contracts, 2.6 % of open interest, ranked 99.7): no positioning word is read from it.
   */
  managed_money_percentile: { crowded_long_at_or_above: 90, crowded_short_at_or_below: 10, min_net_pct_of_open_interest: 5 },
  /** Surprise size (series unit) that counts: about the size of a weekly miss the market notices. */
  inventory_surprise: Object.freeze({ crude_ex_spr: 2000, cushing: 500, gasoline: 1500, distillate: 1500, ng_storage: 10 }) as Readonly<Record<string, number>>,
});

/** Which instrument each inventory series speaks for (refinery_util and crude_runs feed no rule). */
const INVENTORY_INSTRUMENTS: Readonly<Record<string, string>> = Object.freeze({
  crude_ex_spr: 'CL',
  cushing: 'CL',
  gasoline: 'RB',
  distillate: 'HO',
  ng_storage: 'NG',
});

/** The rule set as served in every pack. */
const RULES = Object.freeze([
  {
    id: 'price_range_1y',
    applies_to: 'every live instrument of the sector',
    inputs: 'stored observations from the same date one year before the latest observation through the latest',
    method: 'position = (latest - 1y min) / (1y max - 1y min) x 100',
    fires: `bullish when position >= ${THRESHOLDS.price_range_1y.bullish_at_or_above_pct} (trading near its 1-year high), bearish when <= ${THRESHOLDS.price_range_1y.bearish_at_or_below_pct} (near its 1-year low); neutral otherwise or on a flat range; insufficient history (neutral, no word) unless the stored points reach back to the window's first period and number at least ${MIN_COVERAGE_PCT} % of what the series' cadence publishes over the year (weekdays for daily series)`,
  },
  {
    id: 'inventory_surprise',
    applies_to: 'energy: crude_ex_spr and cushing -> CL, gasoline -> RB, distillate -> HO, ng_storage -> NG',
    inputs: 'the weekly inventory surprise (actual week-over-week change minus the 5-year average change for the same week) of GET /v1/inventory/eia',
    method: `threshold per series (series unit): ${Object.entries(THRESHOLDS.inventory_surprise)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    fires:
      'bullish when surprise <= -threshold (a larger draw or smaller build than normal), bearish when surprise >= +threshold; neutral otherwise or when the surprise is not available',
  },
  {
    id: 'managed_money_percentile',
    applies_to: 'instruments with a CFTC COT market',
    inputs: 'percentile rank of the latest managed-money net position in its 3-year window (GET /v1/cot/{code})',
    method: 'contrarian positioning read: positioning near its 3-year high is bearish, near its 3-year low bullish',
    fires: `bearish when percentile >= ${THRESHOLDS.managed_money_percentile.crowded_long_at_or_above} (crowded long when the net is long; the least short in 3 years when it is short), bullish when <= ${THRESHOLDS.managed_money_percentile.crowded_short_at_or_below} (crowded short when the net is short; the least long in 3 years when it is long); neutral otherwise, when the 3-year window is not covered, or when the net is under ${THRESHOLDS.managed_money_percentile.min_net_pct_of_open_interest} % of open interest (a balanced book; also when open interest is not reported)`,
  },
  {
    id: 'spread_vs_history',
    applies_to: 'energy: CRACK_3_2_1 and BASIS_WTI_BRENT; ags: SOY_CRUSH (signals are on the spread itself)',
    inputs: 'the spread on every date its legs share, from one year before its latest value through the latest',
    method:
      'percentile = 100 x (count below + half the count equal) / count, the latest value included; size_percentile the same on the absolute values (how wide the spread is, whatever its sign)',
    fires: `bullish for what the spread speaks for (high vs its 1-year history) when percentile >= ${THRESHOLDS.spread_vs_history.wide_at_or_above_pctile}, bearish (low) when <= ${THRESHOLDS.spread_vs_history.narrow_at_or_below_pctile}; neutral otherwise; insufficient history (neutral, no word) unless its values reach back to the window's first period and number at least ${MIN_COVERAGE_PCT} % of what its cadence publishes over the year. Wide or narrow describe its size: a negative basis low in its history is a wide WTI discount`,
  },
]);

const COMBINATION =
  'each fired rule scores +1 (bullish) or -1 (bearish); an instrument is bullish when its score is > 0, bearish when < 0, neutral otherwise. ' +
  'Every input a signal reads (the latest price, the inventory surprise, the COT report, the spread) must be within its cadence on the day of the pack (eod 10 days, weekly 14, monthly 62): ' +
  'one that is older makes the instrument emit no signal (stale, neutral, score 0, with the reason); a spread whose legs share no date within their cadence has no value and is stale the same way. ' +
  "Each signal says what it speaks for (a spread's reading is about a margin, not a price; an instrument without a price read by the pack speaks for its positioning, not a price). " +
  'The sector bias compares the count of bullish and bearish instruments the same way; the pack as_of is the oldest as_of of the signals it emits.';

const OBSERVATION_KEYS = [
  'instrument',
  'value',
  'unit',
  'as_of',
  'observed_at',
  'freshness_class',
  'quality',
  'derived',
  'source',
  'license_tag',
  'provenance',
  'published_at',
  'next_release_at',
  'attributes',
] as const;

/**
 * The observation with its fields in the contract's order and its attributes sorted, so that
 * serialising it never depends on the order a store returned attributes in.
 */
const canonicalObservation = (o: Observation): Observation => {
  const out: Record<string, unknown> = {};
  for (const k of OBSERVATION_KEYS) out[k] = o[k] ?? null;
  out.source = o.source ? { name: o.source.name ?? null, series_id: o.source.series_id ?? null, url: o.source.url ?? null } : null;
  out.provenance = o.provenance
    ? {
        retrieved_at: o.provenance.retrieved_at ?? null,
        cache_hit: o.provenance.cache_hit ?? null,
        cache_ttl_s: o.provenance.cache_ttl_s ?? null,
        retrieval: o.provenance.retrieval ?? null,
      }
    : null;
  out.attributes = Object.fromEntries(
    Object.keys(o.attributes ?? {})
      .sort()
      .map((k) => [k, o.attributes[k]!]),
  );
  return out as Observation;
};

/** One rule applied to one instrument. */
interface RuleEvaluation {
  rule: RuleId;
  signal: Signal;
  fired: boolean;
  reason: string;
  /** The numbers the rule compared (position, percentile, threshold …). */
  values: Record<string, number | string | null>;
  /**
   * The observations the rule read that matter to a reader (latest, min, max …). The first is the
   * reading the rule judges now (the latest price, the surprise or level, the COT net, the spread):
   * the staleness gate checks it.
   */
  inputs: Observation[];
}

const evaluation = (rule: RuleId, signal: Signal, reason: string, values: RuleEvaluation['values'], inputs: Observation[]): RuleEvaluation => ({
  rule,
  signal,
  fired: signal !== 'neutral',
  reason,
  values,
  inputs: inputs.map(canonicalObservation),
});

/**
 * Rule price_range_1y on one instrument.
 * @param window its observations over the year ending at its latest, ascending, the latest included
 * @example priceRangeRule([...]) // position 90 -> bullish
 */
const priceRangeRule = (window: readonly Observation[]): RuleEvaluation | null => {
  if (window.length === 0) return null;
  const t = THRESHOLDS.price_range_1y;
  const latest = window.at(-1)!;
  let min = window[0]!;
  let max = window[0]!;
  for (const o of window) {
    if (o.value < min.value) min = o;
    if (o.value > max.value) max = o;
  }
  const base = { points: window.length, window_start: window[0]!.as_of, window_end: latest.as_of, latest: latest.value, min: min.value, max: max.value };
  const coverage = windowCoverage(
    window.map((o) => o.as_of),
    sameDateYearsBefore(latest.as_of, 1),
    latest.as_of,
    cadenceOf(latest),
  );
  if (!coverage.covered) {
    return evaluation(
      'price_range_1y',
      'neutral',
      `insufficient history for a 1-year range: ${coverage.shortfall}`,
      { ...base, coverage_pct: coverage.coverage_pct, position_pct: null },
      [latest],
    );
  }
  if (max.value === min.value) {
    return evaluation('price_range_1y', 'neutral', 'flat 1-year range', { ...base, coverage_pct: coverage.coverage_pct, position_pct: null }, [
      latest,
      min,
      max,
    ]);
  }
  const position = round(((latest.value - min.value) / (max.value - min.value)) * 100, 2);
  const signal: Signal = position >= t.bullish_at_or_above_pct ? 'bullish' : position <= t.bearish_at_or_below_pct ? 'bearish' : 'neutral';
  const reason =
    signal === 'bullish'
      ? `at ${position} % of its 1-year range (>= ${t.bullish_at_or_above_pct}): near the 1-year high`
      : signal === 'bearish'
        ? `at ${position} % of its 1-year range (<= ${t.bearish_at_or_below_pct}): near the 1-year low`
        : `at ${position} % of its 1-year range: mid-range`;
  return evaluation('price_range_1y', signal, reason, { ...base, coverage_pct: coverage.coverage_pct, position_pct: position }, [latest, min, max]);
};

/**
 * Rule inventory_surprise for one series.
 * @param surprise the surprise observation (null when it cannot be computed)
 * @param latest the series' latest level (cited as input when there is no surprise)
 */
const inventorySurpriseRule = (key: string, surprise: Observation | null, latest: Observation | null): RuleEvaluation | null => {
  const threshold = THRESHOLDS.inventory_surprise[key];
  if (threshold === undefined || (!surprise && !latest)) return null;
  if (!surprise) {
    return evaluation(
      'inventory_surprise',
      'neutral',
      `${key}: no surprise figure (the 5 prior years of the same week are not all stored)`,
      { series: key, surprise: null, threshold },
      [latest!],
    );
  }
  const s = surprise.value;
  const signal: Signal = s <= -threshold ? 'bullish' : s >= threshold ? 'bearish' : 'neutral';
  const reason =
    signal === 'bullish'
      ? `${key}: surprise ${s} ${surprise.unit} <= -${threshold}: tighter than the seasonal norm`
      : signal === 'bearish'
        ? `${key}: surprise ${s} ${surprise.unit} >= ${threshold}: looser than the seasonal norm`
        : `${key}: surprise ${s} ${surprise.unit} within ±${threshold}`;
  return evaluation('inventory_surprise', signal, reason, { series: key, surprise: s, threshold }, [surprise]);
};

/** Managed-money positioning of one instrument, as the COT family computed it. */
interface CotInput {
  /** Percentile rank of the latest net in its 3-year window; null when the window is not covered. */
  percentile: number | null;
  /** The observations that carry it (net, percentile …). */
  inputs: Observation[];
}

/** A count with thousands separators, sign dropped: 16154 -> "16,154". */
const contracts = (n: number): string => Math.abs(n).toLocaleString('en-US');

/** The net as a percent of open interest, from the stored report's legs; null when open interest is not reported. */
const netShareOfOpenInterest = (report: Observation): number | null => {
  const oi = report.attributes?.open_interest;
  return typeof oi === 'number' && oi > 0 ? round((100 * report.value) / oi, 2) : null;
};

/**
 * Rule managed_money_percentile (contrarian). Its words follow the sign of the net position: a
 * net short at the top of its range is the least short in 3 years, not a crowded long; and its
 * size: a net that is a small share of open interest is a balanced book, not crowded either way.
 */
const managedMoneyRule = (cot: CotInput | null): RuleEvaluation | null => {
  if (!cot || cot.inputs.length === 0) return null;
  const t = THRESHOLDS.managed_money_percentile;
  const p = cot.percentile;
  // inputs[0] is the stored report: value = managed-money long minus short.
  const net = cot.inputs[0]!.value;
  const position = net > 0 ? `net long ${contracts(net)} contracts` : net < 0 ? `net short ${contracts(net)} contracts` : 'flat (net 0 contracts)';
  const share = netShareOfOpenInterest(cot.inputs[0]!);
  if (p === null) {
    return evaluation(
      'managed_money_percentile',
      'neutral',
      `managed money ${position}; the 3-year COT window is not covered by stored reports`,
      { net, net_pct_oi: share, percentile: null },
      cot.inputs,
    );
  }
  if (share === null || Math.abs(share) < t.min_net_pct_of_open_interest) {
    const size = share === null ? 'open interest not reported' : `${Math.abs(share)} % of open interest, under ${t.min_net_pct_of_open_interest} %`;
    return evaluation(
      'managed_money_percentile',
      'neutral',
      `managed money ${position} (${size}): a balanced book, no positioning reading; percentile ${p} of its 3-year window`,
      { net, net_pct_oi: share, percentile: p },
      cot.inputs,
    );
  }
  const signal: Signal = p >= t.crowded_long_at_or_above ? 'bearish' : p <= t.crowded_short_at_or_below ? 'bullish' : 'neutral';
  const where = `managed money ${position} (${Math.abs(share)} % of open interest), at percentile ${p} of its 3-year window`;
  const reason =
    signal === 'bearish'
      ? net > 0
        ? `${where} (>= ${t.crowded_long_at_or_above}): crowded long`
        : `${where} (>= ${t.crowded_long_at_or_above}): positioning near its 3-year high: the least short in 3 years`
      : signal === 'bullish'
        ? net < 0
          ? `${where} (<= ${t.crowded_short_at_or_below}): crowded short`
          : `${where} (<= ${t.crowded_short_at_or_below}): positioning near its 3-year low: the least long in 3 years`
        : where;
  return evaluation('managed_money_percentile', signal, reason, { net, net_pct_oi: share, percentile: p }, cot.inputs);
};

/** How each spread's sign reads (a negative basis is a WTI discount; a negative crack a loss). */
const SPREAD_SIGN: Readonly<Record<string, (v: number, unit: string) => string>> = Object.freeze({
  BASIS_WTI_BRENT: (v: number, unit: string) =>
    v < 0 ? `WTI ${-v} ${unit} below Brent (a discount)` : v > 0 ? `WTI ${v} ${unit} above Brent (a premium)` : 'WTI level with Brent',
});
const signWords = (instrument: string, v: number, unit: string): string =>
  SPREAD_SIGN[instrument]?.(v, unit) ?? (v < 0 ? `a negative spread of ${-v} ${unit}` : v > 0 ? `a positive spread of ${v} ${unit}` : 'a spread of 0');

/**
 * Rule spread_vs_history on one spread. The signal follows where the value sits in its history
 * (high, low); the words say its sign and size: wide or narrow is about |value| against the
 * sizes of the year, so a negative basis at a low percentile is a wide discount, not "narrow".
 * @param latest the spread observation
 * @param history the spread on its legs' shared dates over the year ending at latest, ascending
 */
const spreadRule = (latest: Observation, history: readonly SpreadPoint[]): RuleEvaluation => {
  const t = THRESHOLDS.spread_vs_history;
  const values = history.map((p) => p.value);
  const base = {
    points: history.length,
    window_start: history[0]?.as_of ?? null,
    window_end: history.at(-1)?.as_of ?? null,
    latest: latest.value,
    min: values.length ? Math.min(...values) : null,
    max: values.length ? Math.max(...values) : null,
  };
  const coverage = windowCoverage(
    history.map((p) => p.as_of),
    sameDateYearsBefore(latest.as_of, 1),
    latest.as_of,
    cadenceOf(latest),
  );
  if (!coverage.covered) {
    return evaluation(
      'spread_vs_history',
      'neutral',
      `insufficient history for a 1-year comparison: ${coverage.shortfall}`,
      { ...base, coverage_pct: coverage.coverage_pct, percentile: null, size_percentile: null },
      [latest],
    );
  }
  const p = percentRank(values, latest.value)!;
  const size = percentRank(
    values.map((v) => Math.abs(v)),
    Math.abs(latest.value),
  )!;
  const signal: Signal = p >= t.wide_at_or_above_pctile ? 'bullish' : p <= t.narrow_at_or_below_pctile ? 'bearish' : 'neutral';
  const level =
    signal === 'bullish'
      ? `at percentile ${p} of its 1-year history (>= ${t.wide_at_or_above_pctile}): high`
      : signal === 'bearish'
        ? `at percentile ${p} of its 1-year history (<= ${t.narrow_at_or_below_pctile}): low`
        : `at percentile ${p} of its 1-year history: mid-range`;
  const width = size >= t.wide_at_or_above_pctile ? ', wide' : size <= t.narrow_at_or_below_pctile ? ', narrow' : '';
  const reason = `${level}; ${signWords(latest.instrument, latest.value, latest.unit)}, size percentile ${size}${width}`;
  return evaluation('spread_vs_history', signal, reason, { ...base, coverage_pct: coverage.coverage_pct, percentile: p, size_percentile: size }, [latest]);
};

interface InstrumentSignal {
  instrument: string;
  /** What a bullish or bearish reading is about (a spread speaks for a margin, not for a price). */
  signal_for: string;
  /** The newest as_of among the inputs of its rules. */
  as_of: string | null;
  signal: Signal;
  score: number;
  /** Its inputs are older than their cadence allows: no signal is emitted (neutral, score 0). */
  stale: boolean;
  stale_reason: string | null;
  fired_rules: RuleId[];
  evaluations: RuleEvaluation[];
}

/** What each spread's reading speaks for; an instrument's speaks for its own price. */
const SIGNAL_FOR: Readonly<Record<string, string>> = Object.freeze({
  CRACK_3_2_1: "refiners' margins (a wide crack is bullish for refining margins, not a call on crude)",
  BASIS_WTI_BRENT: 'WTI relative to Brent (the WTI-Brent spread), not the level of either',
  SOY_CRUSH: "soybean processors' margins (the crush spread), not the level of soybeans",
});

/**
 * What an instrument's signal speaks for: its price only when the pack read one (a price_range_1y
 * evaluation); palladium, which no source prices, speaks for its positioning and names no price.
 */
const signalForInstrument = (instrument: string, evaluations: readonly RuleEvaluation[]): string =>
  evaluations.some((e) => e.rule === 'price_range_1y')
    ? `the ${instrument} price`
    : `${instrument} positioning and fundamentals only: the pack reads no ${instrument} price (none is served)`;

/** Why a reading is too old on `today`, or null when it is within its cadence. */
const staleReading = (e: RuleEvaluation, today: string): string | null => {
  const reading = e.inputs[0];
  if (!reading) return null;
  const cadence = cadenceOf(reading);
  if (!isStale(reading.as_of, cadence, today, false)) return null;
  return `${e.rule} reads ${reading.instrument} of ${reading.as_of} (${cadence}, ${MAX_LAG_DAYS[cadence]} days)`;
};

/**
 * Combines an instrument's rule evaluations (see COMBINATION). Pure: judged on `today`, so a pack
 * can be judged at a past instant too.
 * @param today YYYY-MM-DD: an input older than its cadence allows on this day stops the signal
 * @param staleInput why an input without a value is stale (a spread whose legs share no date), if so
 */
const combine = (instrument: string, evaluations: readonly RuleEvaluation[], today: string, staleInput: string | null = null): InstrumentSignal => {
  const inputs = evaluations.flatMap((e) => e.inputs);
  const newest = inputs.reduce<Observation | null>((m, o) => (m === null || o.as_of > m.as_of ? o : m), null);
  const tooOld = [...(staleInput ? [staleInput] : []), ...evaluations.flatMap((e) => staleReading(e, today) ?? [])];
  const stale = tooOld.length > 0;
  const score = stale ? 0 : evaluations.reduce((s, e) => s + (e.signal === 'bullish' ? 1 : e.signal === 'bearish' ? -1 : 0), 0);
  return {
    instrument,
    signal_for: SIGNAL_FOR[instrument] ?? signalForInstrument(instrument, evaluations),
    as_of: newest?.as_of ?? null,
    signal: score > 0 ? 'bullish' : score < 0 ? 'bearish' : 'neutral',
    score,
    stale,
    stale_reason: stale ? `inputs older than their cadence allows on ${today}: ${tooOld.join('; ')}` : null,
    fired_rules: stale ? [] : evaluations.filter((e) => e.fired).map((e) => e.rule),
    evaluations: [...evaluations],
  };
};

interface SectorSummary {
  instruments: number;
  bullish: number;
  bearish: number;
  neutral: number;
  net_score: number;
  /** Instruments whose inputs were too old to emit a signal (counted as neutral). */
  stale: number;
  bias: Signal;
  /** e.g. "energy: 2 bullish, 1 bearish, 4 neutral -> bullish" */
  text: string;
}

const summarize = (label: string, signals: readonly InstrumentSignal[]): SectorSummary => {
  const count = (s: Signal) => signals.filter((x) => x.signal === s).length;
  const bullish = count('bullish');
  const bearish = count('bearish');
  const bias: Signal = bullish > bearish ? 'bullish' : bearish > bullish ? 'bearish' : 'neutral';
  return {
    instruments: signals.length,
    bullish,
    bearish,
    neutral: count('neutral'),
    net_score: signals.reduce((s, x) => s + x.score, 0),
    stale: signals.filter((x) => x.stale).length,
    bias,
    text: `${label}: ${bullish} bullish, ${bearish} bearish, ${count('neutral')} neutral${
      signals.some((x) => x.stale) ? ` (${signals.filter((x) => x.stale).length} stale)` : ''
    } -> ${bias}`,
  };
};

/** An input the pack could not use, and why. */
interface MissingInput {
  input: string;
  reason: string;
}

/** Everything one sector's pack is computed from, as loaded by the decision family. */
interface SectorInputs {
  sector: Sector;
  /** Per instrument code (catalog order), its 1-year window (ascending, latest last); [] when none. */
  prices: ReadonlyArray<{ code: string; window: readonly Observation[] }>;
  /** Energy only: per inventory key, its latest level and surprise observations. */
  inventory: ReadonlyArray<{ key: string; latest: Observation | null; surprise: Observation | null }>;
  /** Per instrument code, its COT positioning. */
  cot: ReadonlyArray<{ code: string; cot: CotInput }>;
  /** Per spread, its latest observation and 1-year history, or why it has no value (stale). */
  spreads: ReadonlyArray<{ instrument: string; latest: Observation; history: readonly SpreadPoint[] } | { instrument: string; stale: string }>;
  /** Every observation read (windows, legs, fundamentals): what the digest covers. */
  read: readonly Observation[];
  missing: readonly MissingInput[];
}

const DIGEST_METHOD =
  'SHA-256 (hex) of the canonical JSON (keys sorted, no whitespace, RFC 8785 style) of the array of every input observation read for the pack, ' +
  'without provenance and next_release_at (both depend on the moment of the call), de-duplicated and sorted by its canonical JSON text';

/**
 * An input as the digest sees it: what the data says, not how or when it was read (a pack at a past
 * instant digests its inputs as a pack computed then would: without the instant's attributes).
 */
const digestForm = (o: Observation): unknown => {
  const { next_release_at: _next, ...rest } = withoutProvenance(o) as Observation;
  if (!POINT_IN_TIME_ATTRIBUTES.some((k) => k in rest.attributes)) return rest;
  const attributes = Object.fromEntries(Object.entries(rest.attributes).filter(([k]) => !(POINT_IN_TIME_ATTRIBUTES as readonly string[]).includes(k)));
  return { ...rest, attributes };
};

/** The digest of the inputs: same stored inputs -> same digest, whatever the cache or the clock did. */
const inputsDigest = (read: readonly Observation[]) => {
  const texts = [...new Set(read.map((o) => canonicalJson(digestForm(o))))].sort();
  return { algorithm: 'SHA-256', method: DIGEST_METHOD, count: texts.length, value: sha256Hex(`[${texts.join(',')}]`) };
};

/**
 * The pack's as_of: the oldest as_of among the signals it emits (each signal has its own); null when
 * it emits none.
 */
const packAsOf = (signals: readonly InstrumentSignal[]): string | null =>
  signals.filter((s) => s.signal !== 'neutral' && s.as_of !== null).reduce<string | null>((m, s) => (m === null || s.as_of! < m ? s.as_of : m), null);

/**
 * One sector's decision pack.
 * @param today YYYY-MM-DD (UTC): judges which inputs are too old to emit a signal
 * @example buildSectorPack(inputs, '2026-11-24').summary.bias // 'bullish'
 */
const buildSectorPack = (inputs: SectorInputs, today: string) => {
  const byInstrument = new Map<string, RuleEvaluation[]>();
  const add = (code: string, e: RuleEvaluation | null) => {
    if (!e) return;
    byInstrument.set(code, [...(byInstrument.get(code) ?? []), e]);
  };
  for (const p of inputs.prices) {
    byInstrument.set(p.code, byInstrument.get(p.code) ?? []);
    add(p.code, priceRangeRule(p.window));
  }
  for (const inv of inputs.inventory) {
    const code = INVENTORY_INSTRUMENTS[inv.key];
    if (code) add(code, inventorySurpriseRule(inv.key, inv.surprise, inv.latest));
  }
  for (const c of inputs.cot) add(c.code, managedMoneyRule(c.cot));
  const staleInputs = new Map<string, string>();
  for (const s of inputs.spreads) {
    if ('stale' in s) {
      byInstrument.set(s.instrument, byInstrument.get(s.instrument) ?? []);
      staleInputs.set(s.instrument, s.stale);
    } else add(s.instrument, spreadRule(s.latest, s.history));
  }

  const signals = [...byInstrument.entries()].map(([code, evals]) => combine(code, evals, today, staleInputs.get(code) ?? null));
  return {
    pack: 'decision' as const,
    sector: inputs.sector,
    rules_version: RULES_VERSION,
    as_of: packAsOf(signals),
    summary: summarize(inputs.sector, signals),
    signals,
    missing: [...inputs.missing],
    inputs_digest: inputsDigest(inputs.read),
  };
};

type SectorPack = ReturnType<typeof buildSectorPack>;

/** The static description of the rule set, served once per answer. */
const RULESET = Object.freeze({ version: RULES_VERSION, rules: RULES, thresholds: THRESHOLDS, combination: COMBINATION });

/** The all-sector bundle: each sector's pack, an overall summary and one digest over every input. */
const buildAllPack = (sectors: readonly SectorInputs[], today: string) => {
  const packs = sectors.map((s) => buildSectorPack(s, today));
  return {
    pack: 'decision' as const,
    sector: 'all' as const,
    rules_version: RULES_VERSION,
    as_of: packAsOf(packs.flatMap((p) => p.signals)),
    summary: summarize(
      'all',
      packs.flatMap((p) => p.signals),
    ),
    sectors: packs,
    inputs_digest: inputsDigest(sectors.flatMap((s) => s.read)),
  };
};

export {
  RULES_VERSION,
  RULESET,
  DIGEST_METHOD,
  INVENTORY_INSTRUMENTS,
  canonicalObservation,
  priceRangeRule,
  inventorySurpriseRule,
  managedMoneyRule,
  spreadRule,
  combine,
  buildSectorPack,
  buildAllPack,
};
export type { Signal, RuleId, RuleEvaluation, InstrumentSignal, SectorSummary, SectorInputs, SectorPack, CotInput, MissingInput };
