/**
 * In-Lambda read cache. A warm Lambda (or the local server) keeps recent reads for a TTL set
 * by the data's freshness class, so `provenance.cache_hit` and `cache_ttl_s` can tell the truth.
 */
import type { FreshnessClass } from '../catalog/instruments';

/** Seconds a read may be served from memory, per freshness class. */
const CACHE_TTL_S: Readonly<Record<FreshnessClass, number>> = Object.freeze({
  intraday: 15,
  delayed: 60,
  eod: 300,
  weekly: 900,
  monthly: 3600,
  decree: 3600,
});

interface CacheRead<T> {
  value: T;
  hit: boolean;
  ttlS: number;
}

/**
 * Nothing stored yet: null, an empty list, or a window with no items. Such reads are never
 * cached, so the first ingestion after a cold start is served at once, not after a TTL.
 */
const isEmptyRead = (v: unknown): boolean =>
  v == null ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && Array.isArray((v as { items?: unknown }).items) && (v as { items: unknown[] }).items.length === 0);

/** The entries and loads under way of one cache, shared by its scoped views. */
interface CacheState {
  readonly entries: Map<string, { value: unknown; expiresAt: number }>;
  /** Loads under way, by key: concurrent misses of one key share one store read (no stampede on a cold key). */
  readonly loading: Map<string, Promise<unknown>>;
}

/** A TTL map with a bounded size; the oldest entries go first when it is full. */
class ReadCache {
  private readonly state: CacheState;
  private readonly prefix: string;
  constructor(
    private readonly maxEntries = 5000,
    private readonly now: () => number = Date.now,
    scope?: { state: CacheState; prefix: string },
  ) {
    this.state = scope?.state ?? { entries: new Map(), loading: new Map() };
    this.prefix = scope?.prefix ?? '';
  }

  /**
   * A view whose keys live under `prefix` in the same entries (a past instant's reads: the same
   * key scheme, apart from every other instant's).
   * @example cache.scoped('@2026-02-11T15:29:00.000Z|').get('latest:PRICE#CL', 300, load)
   */
  scoped(prefix: string): ReadCache {
    return new ReadCache(this.maxEntries, this.now, { state: this.state, prefix: this.prefix + prefix });
  }

  /**
   * Returns the cached value for `key`, or loads, stores and returns it.
   * @param ttlS seconds to keep it; 0 disables caching for this read
   */
  async get<T>(key: string, ttlS: number, load: () => Promise<T>): Promise<CacheRead<T>> {
    const { entries, loading } = this.state;
    const k = this.prefix + key;
    const t = this.now();
    const e = entries.get(k);
    if (e && e.expiresAt > t) return { value: e.value as T, hit: true, ttlS };
    if (ttlS <= 0) return { value: await load(), hit: false, ttlS };
    const shared = loading.get(k) as Promise<T> | undefined;
    if (shared) return { value: await shared, hit: false, ttlS };
    const loaded = load();
    loading.set(k, loaded);
    try {
      const value = await loaded;
      if (!isEmptyRead(value)) {
        if (entries.size >= this.maxEntries) entries.delete(entries.keys().next().value as string);
        entries.set(k, { value, expiresAt: t + ttlS * 1000 });
      }
      return { value, hit: false, ttlS };
    } finally {
      loading.delete(k);
    }
  }

  clear(): void {
    this.state.entries.clear();
    this.state.loading.clear();
  }
}

export { CACHE_TTL_S, ReadCache };
export type { CacheRead };
