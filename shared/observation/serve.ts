/**
 * Turns stored observations into served ones: adds the request-time provenance and guarantees
 * every contract field is present.
 */
import type { Observation, StoredObservation } from './schema';

interface CacheInfo {
  hit: boolean;
  ttlS: number;
}

/** A stored observation as served, with provenance telling whether it came from the cache. */
const toServed = (stored: StoredObservation, cache: CacheInfo): Observation => {
  const { retrieved_at, ...rest } = stored;
  return {
    ...rest,
    provenance: { retrieved_at, cache_hit: cache.hit, cache_ttl_s: cache.ttlS },
  };
};

export { toServed };
export type { CacheInfo };
