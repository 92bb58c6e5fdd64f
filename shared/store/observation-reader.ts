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
import { cadenceOf, judgeFigure } from '../observation/staleness';
import type { ObservationReads, SeriesNote, SourceRunStatus } from './observation-store';
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

/**
 * The publisher's next release after an instant, by registry source id (null when none is known).
 * Injected by the composition root: the store does not know the release calendars.
 */
type NextReleaseOf = (sourceId: string, now: Date) => string | null;

/**
 * Served copies of cached values, built once per cached value: a cache hit hands every caller the
 * same frozen observations instead of copying them per call (the inventory bundle copied about
 * 1,900 per call). Keyed by the cached value itself, so an evicted entry takes its copy along.
 */
interface ServedHits {
  /** Lists (recent, window …), per next release. */
  served: WeakMap<object, { next: string | null | undefined; obs: Observation[] }>;
  /** Latest figures, judged once per UTC day (staleness turns at midnight) and next release. */
  judged: WeakMap<object, { when: string; obs: Observation }>;
}

/** Cached, served reads of stored series. */
class ObservationReader {
  constructor(
    private readonly store: ObservationReads,
    private readonly cache: ReadCache,
    /** The clock that dates the staleness judgment of latest figures and their next release. */
    private readonly now: () => Date = () => new Date(),
    /** next_release_at is computed when answering, never frozen at ingestion. */
    private readonly nextReleaseOf: NextReleaseOf = () => null,
    /** Served copies of cache hits, shared with the readers of past instants (keyed by the cached values themselves). */
    private readonly hits: ServedHits = { served: new WeakMap(), judged: new WeakMap() },
  ) {}

  /**
   * The same reads over another store view (a past instant's, shared/store/point-in-time-store.ts),
   * another cache and a fixed clock: staleness and next releases are judged at that instant.
   * @param nextReleaseOf the next releases of past instants (apart from the present's memo, which
   *   they would otherwise keep moving)
   */
  at(store: ObservationReads, cache: ReadCache, instant: Date, nextReleaseOf: NextReleaseOf = this.nextReleaseOf): ObservationReader {
    return new ObservationReader(store, cache, () => instant, nextReleaseOf, this.hits);
  }

  /** The next release of the source that wrote `stored`; undefined when the item does not name its source. */
  private nextRelease(stored: StoredObservation | undefined, now: Date): string | null | undefined {
    return stored?.source_id === undefined ? undefined : this.nextReleaseOf(stored.source_id, now);
  }

  private served(read: CacheRead<readonly StoredObservation[]>): Observation[] {
    // One series, one source: its next release is the same for every item.
    const next = this.nextRelease(read.value[0], this.now());
    const build = () => read.value.map((s) => toServed(s, { hit: read.hit, ttlS: read.ttlS }, undefined, next));
    if (!read.hit) return build();
    const held = this.hits.served.get(read.value);
    if (held && held.next === next) return held.obs;
    const obs = deepFreeze(build());
    this.hits.served.set(read.value, { next, obs });
    return obs;
  }

  /** A source's last run (GET /health), or null when it never ran. */
  async runStatus(source: string): Promise<SourceRunStatus | null> {
    return (await this.cache.get(`status:${source}`, RUN_STATUS_TTL_S, () => this.store.getRunStatus(source))).value;
  }

  /**
   * The newest observation of a series, or null when nothing is stored; its provenance says
   * whether it is stale today and which as_of the next release should carry.
   */
  async latest(key: string, freshness: FreshnessClass): Promise<Observation | null> {
    const read = await this.cache.get(`latest:${key}`, CACHE_TTL_S[freshness], () => this.store.latest(key));
    const stored = read.value;
    if (!stored) return null;
    const now = this.now();
    const today = isoDate(now);
    const next = this.nextRelease(stored, now);
    const serve = () => toServed(stored, { hit: read.hit, ttlS: read.ttlS }, judgeFigure(stored.as_of, cadenceOf(stored), today), next);
    if (!read.hit) return serve();
    const when = `${today}|${next}`;
    const held = this.hits.judged.get(stored);
    if (held?.when === when) return held.obs;
    const obs = deepFreeze(serve());
    this.hits.judged.set(stored, { when, obs });
    return obs;
  }

  /** The `n` newest observations, newest first. */
  async recent(key: string, n: number, freshness: FreshnessClass): Promise<Observation[]> {
    return this.served(await this.cache.get(`recent:${key}:${n}`, CACHE_TTL_S[freshness], () => this.store.recent(key, n)));
  }

  /** The `n` newest value-less figures of a series (USGS `W`, `E` …), newest first. */
  async notes(key: string, n: number, freshness: FreshnessClass): Promise<readonly SeriesNote[]> {
    return (await this.cache.get(`notes:${key}:${n}`, CACHE_TTL_S[freshness], () => this.store.notes(key, n))).value;
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

export { deepFreeze, ObservationReader };
export type { ServedWindow, NextReleaseOf };
