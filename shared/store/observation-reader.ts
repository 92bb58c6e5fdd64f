/**
 * The one read path of every family: store + in-Lambda read cache -> served observations.
 * Each read is cached under one key scheme (`<op>:<series key>:<args>`) with the TTL of the
 * series' freshness class, and every observation it returns carries provenance that says
 * whether it came from the cache.
 */
import type { FreshnessClass } from '../catalog/instruments';
import { addDays, addYears } from '../dates';
import type { Observation, StoredObservation } from '../observation/schema';
import { toServed } from '../observation/serve';
import type { ObservationStore } from './observation-store';
import { CACHE_TTL_S, type CacheRead, type ReadCache } from './read-cache';

interface ServedWindow {
  observations: Observation[];
  /** The window held more than `maxItems` stored points and was cut there. */
  capped: boolean;
}

const served = (read: CacheRead<readonly StoredObservation[]>): Observation[] => read.value.map((s) => toServed(s, { hit: read.hit, ttlS: read.ttlS }));

/** Cached, served reads of stored series. */
class ObservationReader {
  constructor(
    private readonly store: ObservationStore,
    private readonly cache: ReadCache,
  ) {}

  /** The newest observation of a series, or null when nothing is stored. */
  async latest(key: string, freshness: FreshnessClass): Promise<Observation | null> {
    const read = await this.cache.get(`latest:${key}`, CACHE_TTL_S[freshness], () => this.store.latest(key));
    return read.value ? toServed(read.value, { hit: read.hit, ttlS: read.ttlS }) : null;
  }

  /** The `n` newest observations, newest first. */
  async recent(key: string, n: number, freshness: FreshnessClass): Promise<Observation[]> {
    return served(await this.cache.get(`recent:${key}:${n}`, CACHE_TTL_S[freshness], () => this.store.recent(key, n)));
  }

  /** Every observation in [start, end], ascending, reading at most `maxItems`. */
  async window(key: string, start: string, end: string, freshness: FreshnessClass, maxItems: number): Promise<ServedWindow> {
    const read = await this.cache.get(`window:${key}:${start}:${end}:${maxItems}`, CACHE_TTL_S[freshness], () => this.store.window(key, start, end, maxItems));
    return { observations: served({ ...read, value: read.value.items }), capped: read.value.capped };
  }

  /**
   * The stored points from `years` (plus `slackDays`) before the newest point through the newest,
   * ascending; [] when nothing is stored. One cache entry per series, so every figure built from
   * it reports the same cache_hit.
   */
  async yearsBeforeLatest(key: string, years: number, slackDays: number, freshness: FreshnessClass, maxItems: number): Promise<Observation[]> {
    const read = await this.cache.get(`years:${key}:${years}:${slackDays}:${maxItems}`, CACHE_TTL_S[freshness], async () => {
      const latest = await this.store.latest(key);
      if (!latest) return [] as StoredObservation[];
      const start = addDays(addYears(latest.as_of, -years), -slackDays);
      return (await this.store.window(key, start, latest.as_of, maxItems)).items;
    });
    return served(read);
  }
}

export { ObservationReader };
export type { ServedWindow };
