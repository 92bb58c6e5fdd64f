/**
 * Turns stored observations into served ones: adds the request-time provenance and guarantees
 * every contract field is present.
 */
import type { Observation, StoredObservation } from './schema';
import { judgeFigure, type FigureFreshness } from './staleness';

interface CacheInfo {
  hit: boolean;
  ttlS: number;
}

/**
 * A stored observation as served, with provenance telling whether it came from the cache, how the
 * ingestion got it and, for a series' latest figure, how current it is.
 * @param nextReleaseAt the publisher's next release after the moment of the answer; undefined keeps
 *   what ingestion stored (an item written before its source was recorded)
 */
const toServed = (stored: StoredObservation, cache: CacheInfo, freshness?: FigureFreshness, nextReleaseAt?: string | null): Observation => {
  const { retrieved_at, source_id: _sourceId, retrieval, known_from: _knownFrom, first_seen_at: _firstSeen, ...rest } = stored;
  return {
    ...rest,
    ...(nextReleaseAt === undefined ? {} : { next_release_at: nextReleaseAt }),
    provenance: { retrieved_at, cache_hit: cache.hit, cache_ttl_s: cache.ttlS, retrieval: retrieval ?? null, ...freshness },
  };
};

/** A computed latest figure (a spread) with its freshness judged on `today` (YYYY-MM-DD) in its provenance. */
const withFreshness = (obs: Observation, today: string): Observation => ({
  ...obs,
  provenance: obs.provenance && { ...obs.provenance, ...judgeFigure(obs.as_of, obs.freshness_class, today) },
});

export { toServed, withFreshness };
export type { CacheInfo };
