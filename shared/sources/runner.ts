/**
 * Runs one source: fetch (live) or load samples (replay), parse every payload, validate every
 * item, and only then write. A failure anywhere before the write records the error under
 * META#<source> and leaves the stored data untouched, so the last good data keeps being served.
 */
import { canonicalJson } from '../analytics/digest';
import type { Config } from '../config';
import { SOURCE_KEY_NAMES } from '../config/env-keys';
import { ObservationSchema, type StoredObservation } from '../observation/schema';
import { rewrite } from '../observation/vintage';
import * as z from '../zod';
import type { HeldPoint, ObservationStore, SeriesItem, SeriesNote, SourceRunStatus, VintageItem } from '../store/observation-store';
import { isoDate } from '../dates';
import { mapLimit } from '../concurrency/map-limit';
import { bandOf, futureDated, HISTORY_POINTS, quarantine, type StoredContext } from './guards';
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
  /** Prices this run newly held in quarantine (ok runs). */
  quarantined?: number;
}

const StoredItemSchema = z.omit(ObservationSchema, { provenance: true });

/** Most held prices one source keeps listed (the newest); each holds its observation for a release. */
const MAX_HELD = 50;

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

/** An item's content for comparing duplicates: everything but when it was retrieved. */
const contentOf = ({ retrieved_at: _r, ...rest }: StoredObservation): string => canonicalJson(rest);

/**
 * Pure: one item per (series, as_of). Identical duplicates (a payload repeating a row, two
 * payloads overlapping) collapse into the first; duplicates that disagree refuse the run, since
 * nothing says which one the publisher meant.
 * @throws SourceFormatError naming the first conflicting pair
 */
const collapseDuplicates = (items: readonly SeriesItem[], sourceId: string): SeriesItem[] => {
  const seen = new Map<string, SeriesItem>();
  for (const item of items) {
    const key = `${item.seriesKey}|${item.observation.as_of}`;
    const first = seen.get(key);
    if (!first) seen.set(key, item);
    else if (contentOf(first.observation) !== contentOf(item.observation)) {
      throw new SourceFormatError(
        `${sourceId}: two different observations of ${item.seriesKey} for ${item.observation.as_of} (values ${first.observation.value} and ${item.observation.value}); the run is refused`,
      );
    }
  }
  return [...seen.values()];
};

/** Replaces every configured secret value (and its URL-encoded form) in a message with ***. */
const redactSecrets = (message: string, config: Config): string =>
  SOURCE_KEY_NAMES.flatMap((k) => (config[k] ? [config[k]!, encodeURIComponent(config[k]!)] : [])).reduce((m, secret) => m.split(secret).join('***'), message);

/** The status of an attempt that wrote nothing: the last success, its data and the quarantine stay on record. */
const attemptOnly = (
  source: string,
  previous: SourceRunStatus | null,
  now: Date,
  outcome: 'failed' | 'skipped',
  message: string,
  config: Config,
): SourceRunStatus => ({
  last_success_at: null,
  last_items: null,
  ...previous,
  source,
  last_attempt_at: now.toISOString(),
  // The error is stored and served by /health: no configured secret may survive into it.
  last_error: redactSecrets(message, config).slice(0, 1000),
  last_outcome: outcome,
});

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
    // Recorded as an attempt that is not ok: /health shows why the source is not being refreshed.
    await opts.store.putRunStatus(attemptOnly(def.id, previous, now, 'skipped', message, opts.config));
    return { source: def.id, status: 'skipped', items: 0, message };
  }
  let items: SeriesItem[];
  let notes: SeriesNote[];
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
    const ctx = { def, nextReleaseAt: next ? next.at : null, now, mode: opts.mode };
    items = collapseDuplicates(
      payloads.flatMap((p) => {
        const out = adapter.toItems(p, ctx);
        if (out.length === 0) throw new SourceFormatError(`${p.name}: no observations in payload`);
        validateItems(out, p.name);
        // The read path computes next_release_at from the source, and says how the figure came in.
        return out.map((i) => ({ ...i, observation: { ...i.observation, source_id: def.id, retrieval: opts.mode } }));
      }),
      def.id,
    );
    notes = payloads.flatMap((p) => adapter.toNotes?.(p) ?? []);
    const ahead = futureDated(items, isoDate(now));
    if (ahead.length > 0) {
      const first = ahead[0]!;
      throw new SourceFormatError(
        `${def.id}: ${ahead.length} observation(s) dated after tomorrow (e.g. ${first.seriesKey} ${first.observation.as_of}); the run is refused`,
      );
    }
  } catch (err) {
    const status = attemptOnly(def.id, previous, now, 'failed', err instanceof Error ? err.message : String(err), opts.config);
    await opts.store.putRunStatus(status);
    return { source: def.id, status: 'failed', items: 0, message: status.last_error! };
  }
  const stored = await storedSeries(opts.store, items);
  const guarded = quarantine(items, stored, previous?.quarantined ?? [], now.toISOString());
  const revised = withVintages(guarded.keep, stored);
  let written: number;
  try {
    // Old values first: a write that fails after them is retried whole, and the revision is seen again.
    await opts.store.putVintages(revised.vintages);
    written = await opts.store.upsertMany(revised.items);
    await opts.store.putNotes(notes);
  } catch (err) {
    // A store that refuses the write (an outage, a limit): recorded when the store still answers,
    // then thrown, so that the invocation fails and is retried.
    const message = `${def.id}: writing ${guarded.keep.length} observations failed: ${err instanceof Error ? err.message : String(err)}`;
    await opts.store.putRunStatus(attemptOnly(def.id, previous, now, 'failed', message, opts.config)).catch(() => undefined);
    throw err;
  }
  await opts.store.putRunStatus({
    source: def.id,
    last_attempt_at: now.toISOString(),
    last_success_at: now.toISOString(),
    last_error: null,
    last_items: written,
    last_mode: opts.mode,
    last_outcome: 'ok',
    quarantined: newestHeld(guarded.held),
    ...newestData(guarded.keep, previous?.data_newest),
  });
  const said = [
    guarded.newlyHeld.length > 0 ? `${guarded.newlyHeld.length} price(s) held in quarantine` : null,
    guarded.confirmed.length > 0 ? `${guarded.confirmed.length} held price(s) confirmed and written` : null,
    revised.vintages.length > 0 ? `${revised.vintages.length} revision(s), the old values kept as vintages` : null,
  ].filter(Boolean);
  return {
    source: def.id,
    status: 'ok',
    items: written,
    message: `${def.id}: ${written} observations written${said.length ? `; ${said.join('; ')}` : ''}`,
    quarantined: guarded.newlyHeld.length,
  };
};

/** The newest MAX_HELD held points, in series and date order. */
const newestHeld = (held: readonly HeldPoint[]): HeldPoint[] => {
  if (held.length <= MAX_HELD) return [...held];
  const keep = new Set([...held].sort((a, b) => b.as_of.localeCompare(a.as_of)).slice(0, MAX_HELD));
  return held.filter((h) => keep.has(h));
};

/**
 * Pure: the newest observation of the run, or the previous one when it is newer (an incremental run
 * may write only revisions): what /health judges the source's data by, with its series (what a past
 * instant's view reads the source's newest figure from).
 */
const newestData = (items: readonly SeriesItem[], previous: SourceRunStatus['data_newest']): Pick<SourceRunStatus, 'data_newest'> => {
  let newest = previous ?? null;
  for (const { seriesKey, observation: o } of items) {
    if (!newest || o.as_of > newest.as_of) newest = { as_of: o.as_of, freshness_class: o.freshness_class, series: seriesKey };
  }
  return newest ? { data_newest: newest } : {};
};

/**
 * Pure: the items to write, each with its known-from, and the old values of the figures this run
 * revises (observation/vintage.ts). A revision is known from the retrieval that brought it.
 */
const withVintages = (keep: readonly SeriesItem[], stored: (seriesKey: string) => StoredSeries): { items: SeriesItem[]; vintages: VintageItem[] } => {
  const items: SeriesItem[] = [];
  const vintages: VintageItem[] = [];
  for (const { seriesKey, observation } of keep) {
    const r = rewrite(stored(seriesKey).items.get(observation.as_of), observation, observation.retrieved_at);
    items.push({ seriesKey, observation: r.observation });
    if (r.vintage) vintages.push({ seriesKey, vintage: r.vintage });
  }
  return { items, vintages };
};

/** What the store holds of one series of a run, before the run. */
interface StoredSeries extends StoredContext {
  /** The stored items over the run's dates of the series, by as_of. */
  items: ReadonlyMap<string, StoredObservation>;
}

/**
 * What the store holds of each series in `items`: the stored items over the run's dates of it (a
 * figure stored before was accepted by the guards; one that differs is a revision), and for price
 * series the newest stored points before the run's first date (the guards' recent range).
 */
const storedSeries = async (store: ObservationStore, items: readonly SeriesItem[]): Promise<(seriesKey: string) => StoredSeries> => {
  const spans = new Map<string, { first: string; last: string }>();
  for (const { seriesKey, observation: o } of items) {
    const s = spans.get(seriesKey);
    spans.set(seriesKey, s ? { first: o.as_of < s.first ? o.as_of : s.first, last: o.as_of > s.last ? o.as_of : s.last } : { first: o.as_of, last: o.as_of });
  }
  const contexts = new Map(
    await mapLimit([...spans], STORED_READS, async ([key, { first, last }]) => {
      const [before, within] = await Promise.all([
        bandOf(key) ? store.before(key, first, HISTORY_POINTS) : Promise.resolve([]),
        store.window(key, first, last, Number.MAX_SAFE_INTEGER),
      ]);
      const ctx: StoredSeries = {
        before: before.reverse(),
        at: new Map(within.items.map((o) => [o.as_of, o.value])),
        items: new Map(within.items.map((o) => [o.as_of, o])),
      };
      return [key, ctx] as const;
    }),
  );
  return (key) => contexts.get(key) ?? { before: [], at: new Map(), items: new Map() };
};

/** Series read at once before a run writes (a WASDE or USGS run has dozens). */
const STORED_READS = 8;

export { runSource, redactSecrets };
export type { RunMode, RunOptions, RunResult };
