/**
 * Runs one source: fetch (live) or load samples (replay), parse every payload, validate every
 * item, and only then write. A failure anywhere before the write records the error under
 * META#<source> and leaves the stored data untouched, so the last good data keeps being served.
 */
import type { Config } from '../config';
import { SOURCE_KEY_NAMES } from '../config/env-keys';
import { ObservationSchema } from '../observation/schema';
import type { ObservationStore, SeriesItem, SourceRunStatus } from '../store/observation-store';
import { seriesKey } from '../catalog/series-keys';
import { isoDate } from '../dates';
import { futureDated, quarantine } from './guards';
import { nextRelease } from './schedule';
import { SourceFormatError, type FetchLike, type SourceAdapter } from './types';

type RunMode = 'live' | 'replay';

interface RunOptions {
  mode: RunMode;
  store: ObservationStore;
  config: Config;
  fetch?: FetchLike;
  now?: Date;
  since?: string;
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

interface RunResult {
  source: string;
  status: 'ok' | 'skipped' | 'failed';
  items: number;
  message: string;
  /** Prices held back by the guards (ok runs). */
  quarantined?: number;
}

const StoredItemSchema = ObservationSchema.omit({ provenance: true });

/** Throws SourceFormatError when an item breaks the Observation contract (NaN, bad date …). */
const validateItems = (items: SeriesItem[], payloadName: string): void => {
  for (const { seriesKey, observation } of items) {
    const r = StoredItemSchema.safeParse(observation);
    if (!r.success || !observation.retrieved_at) {
      const why = r.success ? 'retrieved_at missing' : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      throw new SourceFormatError(`${payloadName}: item ${seriesKey} ${observation.as_of} is not a valid observation (${why})`);
    }
  }
};

/** Replaces every configured secret value (and its URL-encoded form) in a message with ***. */
const redactSecrets = (message: string, config: Config): string =>
  SOURCE_KEY_NAMES.flatMap((k) => (config[k] ? [config[k]!, encodeURIComponent(config[k]!)] : [])).reduce((m, secret) => m.split(secret).join('***'), message);

/**
 * Runs a source once.
 * @returns what happened; never throws for source problems (they are recorded), only for store outages
 */
const runSource = async (adapter: SourceAdapter, opts: RunOptions): Promise<RunResult> => {
  const { def } = adapter;
  const now = opts.now ?? new Date();
  const previous = await opts.store.getRunStatus(def.id);
  if (opts.mode === 'live' && def.requiresKey && !opts.config[def.requiresKey]) {
    const message = `${def.id}: live mode needs ${def.requiresKey}; skipped`;
    // Not ok: nothing was fetched, so /health shows why (the last good data stays).
    await opts.store.putRunStatus(failedRun(def.id, previous, now, message));
    return { source: def.id, status: 'skipped', items: 0, message };
  }
  let items: SeriesItem[];
  try {
    const payloads =
      opts.mode === 'live'
        ? await adapter.live({
            fetch: opts.fetch ?? fetch,
            config: opts.config,
            since: opts.since,
            concurrency: opts.concurrency ?? 4,
            onProgress: opts.onProgress,
            now,
          })
        : // A replay is a retrieval by this service now: retrieved_at says when it happened, not
          // when the sample was recorded (its figures keep their own as_of and published_at).
          (await adapter.samples()).map((p) => ({ ...p, retrievedAt: now.toISOString() }));
    if (payloads.length === 0) throw new SourceFormatError(`${def.id}: no payloads`);
    const next = nextRelease(def.schedule, now);
    const ctx = { def, nextReleaseAt: next ? next.at : null, now };
    items = payloads.flatMap((p) => {
      const out = adapter.toItems(p, ctx);
      if (out.length === 0) throw new SourceFormatError(`${p.name}: no observations in payload`);
      validateItems(out, p.name);
      return out;
    });
    const ahead = futureDated(items, isoDate(now));
    if (ahead.length > 0) {
      const first = ahead[0]!;
      throw new SourceFormatError(
        `${def.id}: ${ahead.length} observation(s) dated after tomorrow (e.g. ${first.seriesKey} ${first.observation.as_of}); the run is refused`,
      );
    }
  } catch (err) {
    // The error is stored and served by /health: no configured secret may survive into it.
    const message = redactSecrets(err instanceof Error ? err.message : String(err), opts.config);
    await opts.store.putRunStatus(failedRun(def.id, previous, now, message));
    return { source: def.id, status: 'failed', items: 0, message };
  }
  const { keep, held } = quarantine(items, await previousPoints(opts.store, items));
  const written = await opts.store.upsertMany(keep);
  await opts.store.putRunStatus({
    source: def.id,
    last_attempt_at: now.toISOString(),
    last_success_at: now.toISOString(),
    last_error: null,
    last_items: written,
    last_mode: opts.mode,
    last_quarantined: held.slice(0, MAX_QUARANTINE_LISTED),
    ...newestData(keep, previous?.data_newest),
  });
  const note = held.length > 0 ? `; ${held.length} implausible price(s) quarantined` : '';
  return { source: def.id, status: 'ok', items: written, message: `${def.id}: ${written} observations written${note}`, quarantined: held.length };
};

const MAX_QUARANTINE_LISTED = 20;

/** Pure: the run status after a run that wrote nothing: the error, and what the last good run left. */
const failedRun = (source: string, previous: SourceRunStatus | null, now: Date, message: string): SourceRunStatus => ({
  source,
  last_attempt_at: now.toISOString(),
  last_success_at: previous?.last_success_at ?? null,
  last_error: message.slice(0, 1000),
  last_items: previous?.last_items ?? null,
  ...(previous?.last_mode ? { last_mode: previous.last_mode } : {}),
  ...(previous?.data_newest ? { data_newest: previous.data_newest } : {}),
});

/**
 * Pure: the newest observation of the run, or the previous one when it is newer (an incremental run
 * may write only revisions): what /health judges the source's data by.
 */
const newestData = (items: readonly SeriesItem[], previous: SourceRunStatus['data_newest']): Pick<SourceRunStatus, 'data_newest'> => {
  let newest = previous ?? null;
  for (const { observation: o } of items) if (!newest || o.as_of > newest.as_of) newest = { as_of: o.as_of, freshness_class: o.freshness_class };
  return newest ? { data_newest: newest } : {};
};

/** The newest stored point of each price series in `items`, for the jump guard's first comparison. */
const previousPoints = async (store: ObservationStore, items: readonly SeriesItem[]) => {
  const series = [...new Set(items.map((i) => i.seriesKey).filter((k) => k.startsWith(seriesKey.price(''))))];
  const latest = new Map(await Promise.all(series.map(async (k) => [k, await store.latest(k)] as const)));
  return (k: string) => latest.get(k) ?? null;
};

export { runSource, redactSecrets };
export type { RunMode, RunOptions, RunResult };
