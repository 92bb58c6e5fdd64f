/**
 * Observations built from a served input observation: derived figures (changes, averages,
 * percentiles) and named parts of a multi-field record (COT long / short). They inherit the
 * input's instrument, as_of, observed_at, source, license, release times and provenance, so a derived figure
 * says where its inputs came from and whether they were read from the cache.
 */
import type { Observation, Quality } from './schema';
import { pointInTimeOf } from './vintage';

interface DerivedFields {
  /** null or a non-finite number gives no observation (never NaN in a body). */
  value: number | null;
  unit: string;
  /** What the figure is, e.g. "week_over_week_change"; served as attributes.metric. */
  metric: string;
  /** Default "derived"; "official" for a published figure taken out of a record's attributes. */
  quality?: Extract<Quality, 'derived' | 'official'>;
  attributes?: Record<string, number | string | null>;
}

/**
 * An observation of `base`'s instrument and week carrying another figure.
 * @returns null when the value is missing or not finite
 * @example deriveFrom(latest, { value: 8530, unit: 'Mbbl', metric: 'week_over_week_change' })
 */
const deriveFrom = (base: Observation, f: DerivedFields): Observation | null => {
  if (f.value === null || !Number.isFinite(f.value)) return null;
  const quality = f.quality ?? 'derived';
  return {
    instrument: base.instrument,
    value: f.value,
    unit: f.unit,
    as_of: base.as_of,
    // A figure of the base's week or day describes the same moment.
    observed_at: base.observed_at,
    freshness_class: base.freshness_class,
    quality,
    derived: quality === 'derived',
    source: base.source,
    license_tag: base.license_tag,
    provenance: base.provenance,
    published_at: base.published_at,
    next_release_at: base.next_release_at,
    attributes: { metric: f.metric, ...f.attributes, ...pointInTimeOf([base]) },
  };
};

/**
 * How a figure computed from several inputs came in: `replay` when any input was replayed, `live`
 * when every one was live, null when any is not recorded.
 */
const combinedRetrieval = (inputs: ReadonlyArray<Observation['provenance']>): 'live' | 'replay' | null => {
  const r = inputs.map((p) => p?.retrieval ?? null);
  if (r.includes('replay')) return 'replay';
  return r.length > 0 && r.every((x) => x === 'live') ? 'live' : null;
};

export { deriveFrom, combinedRetrieval };
export type { DerivedFields };
