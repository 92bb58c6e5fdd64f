/**
 * Pure math of the fundamentals routes (WASDE, crop progress, export sales, USGS): changes
 * against the previous report, a year ago and the 5-year average, stocks-to-use, and the
 * balance-sheet lines of a stored WASDE item. Every result is an Observation: a derived figure
 * is `quality: "derived"`, names its method and inputs in `attributes`, and carries the
 * provenance of its inputs (the newest retrieval, cache_hit only when every input was a hit,
 * the shortest TTL).
 */
import type { AttributeValue, Observation } from '../observation/schema';
import { daysBetween } from '../dates';
import { combinedRetrieval } from '../observation/derive';
import { pointInTimeOf } from '../observation/vintage';

// ---- numbers ------------------------------------------------------------------------------

/** Decimal places of a published number (1415 -> 0, 95.3 -> 1, 0.5107903604 -> 10). */
const decimalsOf = (x: number): number => {
  if (!Number.isFinite(x) || Number.isInteger(x)) return 0;
  const s = String(x);
  const e = /e-(\d+)$/.exec(s);
  if (e) return Number(e[1]) + (s.split('e')[0]!.split('.')[1]?.length ?? 0);
  return s.split('.')[1]?.length ?? 0;
};

const roundTo = (x: number, decimals: number): number => {
  const d = Math.min(Math.max(decimals, 0), 10);
  const r = Number(x.toFixed(d));
  return Object.is(r, -0) ? 0 : r;
};

/** a − b at the precision of the inputs (1800 − 1465 = 335; 0.1 + 0.2 noise removed). */
const difference = (a: number, b: number): number => roundTo(a - b, Math.max(decimalsOf(a), decimalsOf(b)));

/** Arithmetic mean, two decimals finer than the inputs. @throws on an empty list */
const mean = (xs: readonly number[]): number => {
  if (xs.length === 0) throw new RangeError('mean of an empty list');
  return roundTo(xs.reduce((s, x) => s + x, 0) / xs.length, Math.max(...xs.map(decimalsOf)) + 2);
};

/** numerator ÷ denominator × 100, two decimals; null when the denominator is 0. */
const percentOf = (numerator: number, denominator: number): number | null => (denominator === 0 ? null : roundTo((numerator / denominator) * 100, 2));

/** Whole days from a to b (b − a). */

/**
 * The observation whose as_of is nearest to `target`, within ±`toleranceDays`, or null. Weekly
 * series compare with the same week a year earlier: target = as_of − 364 days keeps the weekday.
 */
const nearestTo = <T extends { as_of: string }>(items: readonly T[], target: string, toleranceDays: number): T | null => {
  let best: T | null = null;
  for (const it of items) {
    const d = Math.abs(daysBetween(target, it.as_of));
    if (d <= toleranceDays && (!best || d < Math.abs(daysBetween(target, best.as_of)))) best = it;
  }
  return best;
};

/** Previous market year label: "2025/26" -> "2024/25". */
const priorMarketYear = (my: string, back = 1): string => {
  const start = Number(my.slice(0, 4)) - back;
  return `${start}/${String((start + 1) % 100).padStart(2, '0')}`;
};

// ---- derived observations -----------------------------------------------------------------

interface DeriveSpec {
  instrument: string;
  value: number;
  /** Defaults to the subject's unit. */
  unit?: string;
  method: string;
  /** What the figure describes: lends as_of, series, freshness and license. */
  subject: Observation;
  /** Observations the figure is computed from (listed in `attributes.inputs`). */
  inputs: readonly Observation[];
  attributes?: Record<string, AttributeValue>;
}

/** Provenance of a figure computed from several reads. */
const combinedProvenance = (inputs: readonly Observation[]): Observation['provenance'] => {
  const ps = inputs.map((o) => o.provenance).filter((p): p is NonNullable<Observation['provenance']> => p !== null);
  if (ps.length === 0) return null;
  const retrieved = ps
    .map((p) => p.retrieved_at)
    .filter((r): r is string => r !== null)
    .sort();
  const ttls = ps.map((p) => p.cache_ttl_s).filter((t): t is number => t !== null);
  return {
    retrieved_at: retrieved.at(-1) ?? null,
    cache_hit: ps.every((p) => p.cache_hit === true),
    cache_ttl_s: ttls.length ? Math.min(...ttls) : null,
    retrieval: combinedRetrieval(inputs.map((o) => o.provenance)),
  };
};

/** A derived observation about `subject`, computed from `inputs`. */
const derive = (spec: DeriveSpec): Observation => {
  const { subject } = spec;
  const all = [subject, ...spec.inputs];
  const published = all
    .map((o) => o.published_at)
    .filter((p): p is string => p !== null)
    .sort();
  return {
    instrument: spec.instrument,
    value: spec.value,
    unit: spec.unit ?? subject.unit,
    as_of: subject.as_of,
    // The moment the newest input describes; null when no input has one (WASDE projections).
    observed_at: all.reduce<string | null>(
      (best, o) => (o.observed_at !== null && (best === null || Date.parse(o.observed_at) > Date.parse(best)) ? o.observed_at : best),
      null,
    ),
    freshness_class: subject.freshness_class,
    quality: 'derived',
    derived: true,
    source: subject.source,
    license_tag: subject.license_tag,
    provenance: combinedProvenance(all),
    published_at: published.at(-1) ?? null,
    next_release_at: subject.next_release_at,
    attributes: {
      method: spec.method,
      inputs: spec.inputs.map((o) => `${o.instrument}@${o.as_of}=${o.value}`).join('; '),
      ...spec.attributes,
      // A figure computed from a synthetic sample is synthetic too.
      ...(all.some((o) => o.attributes.synthetic === true) ? { synthetic: true } : {}),
      ...pointInTimeOf(all),
    },
  };
};

/** Unit of a difference: percentages change by percentage points. */
const changeUnit = (unit: string): string => (unit === 'percent' ? 'percentage points' : unit);

// ---- comparisons --------------------------------------------------------------------------

/** Comparison inputs of one line; a null input comes with the reason it is missing. */
interface CompareInputs {
  latest: Observation;
  previous: Observation | null;
  previousMissing?: string;
  yearAgo: Observation | null;
  yearAgoMissing?: string;
  /** The five prior periods, newest first; null entries are not stored. */
  fiveYears: ReadonlyArray<Observation | null>;
  /** What "previous" means here, e.g. "previous weekly report". */
  previousLabel: string;
  yearAgoLabel: string;
}

interface LineComparison {
  statistic: string;
  label: string;
  latest: Observation;
  previous_report: Observation | null;
  change_vs_previous_report: Observation | null;
  year_ago: Observation | null;
  change_vs_year_ago: Observation | null;
  five_year_average: Observation | null;
  change_vs_five_year_average: Observation | null;
  /** Why a comparison is null (never silently missing). */
  notes: string[];
}

const changeOf = (latest: Observation, other: Observation, name: string, what: string): Observation =>
  derive({
    instrument: `${latest.instrument}:${name}`,
    value: difference(latest.value, other.value),
    unit: changeUnit(latest.unit),
    method: `latest (${latest.as_of}) minus ${what} (${other.as_of})`,
    subject: latest,
    inputs: [latest, other],
    attributes: { compared_as_of: other.as_of, compared_value: other.value },
  });

/** The published bound of a figure (USGS ">140,000,000": "greater than"), or null for an exact one. */
const boundOf = (o: Observation): string | null => (typeof o.attributes.bound === 'string' ? o.attributes.bound : null);

/** Why a change between two figures is not exact: one of them is a published bound. */
const boundNote = (what: string, ...obs: Observation[]): string | null => {
  const bounded = obs.find((o) => boundOf(o) !== null);
  return bounded ? `no ${what}: ${bounded.as_of} is a published bound (${boundOf(bounded)} ${bounded.value}), not an exact figure` : null;
};

/**
 * Latest figure with its changes. The 5-year average needs all five prior periods: a partial
 * average would not be comparable from one report to the next, so it is null (with a note)
 * until the history holds five. A published bound (">99") has no exact change or average: those
 * are null, with a note, and the bound stays on the figure.
 */
const compareLine = (statistic: string, label: string, c: CompareInputs): LineComparison => {
  const notes: string[] = [];
  if (!c.previous) notes.push(`no ${c.previousLabel}: ${c.previousMissing ?? 'not stored'}`);
  if (!c.yearAgo) notes.push(`no ${c.yearAgoLabel}: ${c.yearAgoMissing ?? 'not stored'}`);
  const exact = (other: Observation | null, what: string): Observation | null => {
    if (!other) return null;
    const note = boundNote(what, c.latest, other);
    if (note) notes.push(note);
    return note ? null : other;
  };
  const previous = exact(c.previous, `change vs the ${c.previousLabel}`);
  const yearAgo = exact(c.yearAgo, `change vs the ${c.yearAgoLabel}`);
  const five = c.fiveYears.filter((o): o is Observation => o !== null);
  let average: Observation | null = null;
  const fiveBound = five.length === 5 ? boundNote('5-year average', c.latest, ...five) : null;
  if (fiveBound) notes.push(fiveBound);
  else if (five.length === 5) {
    average = derive({
      instrument: `${c.latest.instrument}:five_year_average`,
      value: mean(five.map((o) => o.value)),
      method: 'mean of the same figure in the five prior years',
      subject: c.latest,
      inputs: five,
      attributes: { periods: five.map((o) => o.as_of).join(',') },
    });
  } else {
    notes.push(`no 5-year average: ${five.length} of the 5 prior years stored`);
  }
  return {
    statistic,
    label,
    latest: c.latest,
    previous_report: c.previous,
    change_vs_previous_report: previous ? changeOf(c.latest, previous, 'change_vs_previous_report', c.previousLabel) : null,
    year_ago: c.yearAgo,
    change_vs_year_ago: yearAgo ? changeOf(c.latest, yearAgo, 'change_vs_year_ago', c.yearAgoLabel) : null,
    five_year_average: average,
    change_vs_five_year_average: average ? changeOf(c.latest, average, 'change_vs_five_year_average', 'the 5-year average') : null,
    notes,
  };
};

// ---- WASDE balance sheets -----------------------------------------------------------------

/** Lines served per commodity, in balance-sheet order. */
const WASDE_LINES = Object.freeze([
  { statistic: 'beginning_stocks', label: 'Beginning stocks' },
  { statistic: 'production', label: 'Production' },
  { statistic: 'imports', label: 'Imports' },
  { statistic: 'supply_total', label: 'Supply, total' },
  { statistic: 'domestic_total', label: 'Domestic use, total' },
  { statistic: 'exports', label: 'Exports' },
  { statistic: 'use_total', label: 'Use, total' },
  { statistic: 'ending_stocks', label: 'Ending stocks' },
  { statistic: 'stocks_to_use', label: 'Stocks-to-use (ending stocks ÷ total use)' },
] as const);

const SOY_DOMESTIC = ['crushings', 'seed', 'residual'] as const;

/**
 * The served lines of one stored market-year item (as served, with provenance): published
 * lines as `official` observations of their own, plus the derived ones: stocks-to-use, and
 * soybean domestic use (crushings + seed + residual: the soybean table prints no total).
 */
const wasdeLines = (item: Observation, commodity: string): Map<string, Observation> => {
  const a = item.attributes;
  const marketYear = String(a.market_year ?? '');
  const base = `WASDE:${commodity}:US:${marketYear}`;
  const keep = {
    report_month: a.report_month ?? null,
    wasde_number: a.wasde_number ?? null,
    market_year: marketYear,
    status: a.status ?? null,
    sub_report: a.sub_report ?? null,
    ...pointInTimeOf([item]),
  };
  const out = new Map<string, Observation>();
  const line = (statistic: string): Observation | null => {
    const v = a[statistic];
    return typeof v === 'number' ? { ...item, instrument: `${base}:${statistic}`, value: v, attributes: { ...keep, statistic } } : null;
  };
  for (const { statistic } of WASDE_LINES) {
    const o = line(statistic);
    if (o) out.set(statistic, o);
  }
  if (!out.has('domestic_total')) {
    const parts = SOY_DOMESTIC.map(line);
    if (parts.every((p): p is Observation => p !== null)) {
      out.set(
        'domestic_total',
        derive({
          instrument: `${base}:domestic_total`,
          value: parts.reduce((s, p) => s + p.value, 0),
          method: 'crushings + seed + residual (the soybean table prints no domestic total)',
          subject: parts[0]!,
          inputs: parts,
          attributes: { ...keep, statistic: 'domestic_total' },
        }),
      );
    }
  }
  const ending = out.get('ending_stocks');
  const use = out.get('use_total');
  const ratio = ending && use ? percentOf(ending.value, use.value) : null;
  if (ending && use && ratio !== null) {
    out.set(
      'stocks_to_use',
      derive({
        instrument: `${base}:stocks_to_use`,
        value: ratio,
        unit: 'percent',
        method: 'ending stocks ÷ total use × 100',
        subject: ending,
        inputs: [ending, use],
        attributes: { ...keep, statistic: 'stocks_to_use' },
      }),
    );
  }
  return out;
};

export { decimalsOf, difference, mean, percentOf, nearestTo, priorMarketYear, derive, compareLine, boundOf, wasdeLines, WASDE_LINES };
export type { DeriveSpec, CompareInputs, LineComparison };
