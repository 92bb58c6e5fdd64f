/**
 * The one read path of every family: store + in-Lambda read cache -> served observations.
 * Each read is cached under one key scheme (`<op>:<series key>:<args>`) with the TTL of the
 * series' freshness class, and every observation it returns carries provenance that says
 * whether it came from the cache.
 */
import type { FreshnessClass } from '../catalog/instruments';
import { addDays, addYears, isoDate } from '../dates';
import type { Observation, StoredObservation } from '../observation/schema';
import { toServed } from '../observation/serve';
import { judgeFigure } from '../observation/staleness';
import type { ObservationStore, SourceRunStatus } from './observation-store';
import { CACHE_TTL_S, type CacheRead, type ReadCache } from './read-cache';

interface ServedWindow {
  observations: Observation[];
  /** The window held more than `maxItems` stored points and was cut there. */
  capped: boolean;
}

/** Freezes a served value and everything in it: one copy is shared by every cache hit. */
const deepFreeze = <T>(value: T): T => {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
};

/**
 * Seconds a source's run status is reused. /health, the catalog and the snapshot summaries read
 * every source's status on every call; a run lands at most a few times a day, and the observations
 * it writes are cached far longer (CACHE_TTL_S), so a short reuse changes nothing an agent sees.
 */
const RUN_STATUS_TTL_S = 10;

/** Cached, served reads of stored series. */
class ObservationReader {
  constructor(
    private readonly store: ObservationStore,
    private readonly cache: ReadCache,
    /** The clock that dates the staleness judgment of latest figures. */
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Served copies of cached values, built once per cached value: a cache hit hands every caller
   * the same frozen observations instead of copying them per call (the inventory bundle copied
   * about 1,900 per call). Keyed by the cached value itself, so an evicted entry takes its copy along.
   */
  private readonly servedHits = new WeakMap<object, unknown>();

  private served(read: CacheRead<readonly StoredObservation[]>): Observation[] {
    const build = () => read.value.map((s) => toServed(s, { hit: read.hit, ttlS: read.ttlS }));
    if (!read.hit) return build();
    let out = this.servedHits.get(read.value) as Observation[] | undefined;
    if (!out) {
      out = deepFreeze(build());
      this.servedHits.set(read.value, out);
    }
    return out;
  }

  /** A source's last run (GET /health), or null when it never ran. */
  async runStatus(source: string): Promise<SourceRunStatus | null> {
    return (await this.cache.get(`status:${source}`, RUN_STATUS_TTL_S, () => this.store.getRunStatus(source))).value;
  }

  /** Served latest figures of cache hits, judged once per UTC day (staleness turns at midnight). */
  private readonly judgedHits = new WeakMap<object, { today: string; obs: Observation }>();

  /**
   * The newest observation of a series, or null when nothing is stored; its provenance says
   * whether it is stale today and which as_of the next release should carry.
   */
  async latest(key: string, freshness: FreshnessClass): Promise<Observation | null> {
    const read = await this.cache.get(`latest:${key}`, CACHE_TTL_S[freshness], () => this.store.latest(key));
    const stored = read.value;
    if (!stored) return null;
    const today = isoDate(this.now());
    const serve = () => toServed(stored, { hit: read.hit, ttlS: read.ttlS }, judgeFigure(stored.as_of, stored.freshness_class, today));
    if (!read.hit) return serve();
    const held = this.judgedHits.get(stored);
    if (held?.today === today) return held.obs;
    const obs = deepFreeze(serve());
    this.judgedHits.set(stored, { today, obs });
    return obs;
  }

  /** The `n` newest observations, newest first. */
  async recent(key: string, n: number, freshness: FreshnessClass): Promise<Observation[]> {
    return this.served(await this.cache.get(`recent:${key}:${n}`, CACHE_TTL_S[freshness], () => this.store.recent(key, n)));
  }

  /** Every observation in [start, end], ascending, reading at most `maxItems`. */
  async window(key: string, start: string, end: string, freshness: FreshnessClass, maxItems: number): Promise<ServedWindow> {
    const read = await this.cache.get(`window:${key}:${start}:${end}:${maxItems}`, CACHE_TTL_S[freshness], () => this.store.window(key, start, end, maxItems));
    return { observations: this.served({ ...read, value: read.value.items }), capped: read.value.capped };
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
    return this.served(read);
  }
}

export { ObservationReader };
export type { ServedWindow };
