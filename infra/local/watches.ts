/**
 * Webhook watches in the local runtime (issue 37): what the observation table's stream, the fan-out
 * function, the queue and the delivery function do on AWS, in-process. The stream's stand-in is a
 * poll of the sources' run records: a successful run, whichever process wrote it (`npm start`'s
 * schedules or `npm run ingest`, `--file` included), starts a fan-out; its deliveries go through
 * an in-process queue to the same `deliver`.
 */
import type { Services } from '../../shared/services';
import { createServices } from '../../shared/services';
import { ADAPTERS } from '../../shared/sources/adapters';
import type { SourceRunStatus } from '../../shared/store/observation-store';
import { deliver, sweepStopped, type DeliveryOutcome } from '../../shared/watches/deliver';
import { fanOut, type FanOutResult } from '../../shared/watches/fan-out';
import { createPost, type PostFn } from '../../shared/watches/post';
import { MemoryDeliveryQueue } from '../../shared/watches/queue';
import { runDataRoute } from '../../shared/families/run-route';
import type { TriggeringRelease } from '../../shared/watches/watch';
import { WatchStore } from '../../shared/watches/watch-store';

interface LocalWatchOptions {
  /** How often the run records are read (the stream's stand-in). */
  pollMs?: number;
  /** Retry waits (seconds); tests shorten them. */
  retryDelaysS?: readonly number[];
  /** Deliveries at once. */
  concurrency?: number;
  post?: PostFn;
  onDelivery?: (outcome: DeliveryOutcome) => void;
  log?: (line: string) => void;
}

interface LocalWatches {
  /** Runs a fan-out now (as a stream record would). */
  fanOutNow(release?: TriggeringRelease): Promise<FanOutResult>;
  /** Resolves when no fan-out runs and no delivery waits or runs. */
  idle(): Promise<void>;
  close(): void;
}

const releaseOf = (s: SourceRunStatus): TriggeringRelease => ({
  source: s.source,
  series: s.data_newest?.series ?? null,
  as_of: s.data_newest?.as_of ?? null,
  ingested_at: s.last_success_at ?? new Date(0).toISOString(),
});

/**
 * Starts the poll, fan-out and delivery over the API's services (same store, credits, ETag secret).
 * The fan-out reads through a read cache of its own, emptied before each run, and empties the API's
 * when an answer changed, so a GET after a delivery serves the delivered figure (and its tag).
 */
const startLocalWatches = (api: Services, opts: LocalWatchOptions = {}): LocalWatches => {
  const log = opts.log ?? (() => undefined);
  const watches = new WatchStore(api.doc!, api.config.CREDITS_TABLE);
  const reads = createServices(api.config, { doc: api.doc!, store: api.store, etagKey: api.etagKey, payment: api.payment, now: api.now, metrics: api.metrics });
  const queue = new MemoryDeliveryQueue(opts.concurrency ?? 32);
  const post = opts.post ?? createPost(api.config.STAGE === 'dev');
  const deps = {
    watches,
    credits: api.payment.credits,
    queue,
    now: api.now,
    ...(opts.retryDelaysS ? { retryDelaysS: opts.retryDelaysS } : {}),
    log: { warn: (message: string) => log(`watch: ${message}`) },
  };
  queue.handle = async (m) => {
    const outcome = await deliver(m, { ...deps, post });
    opts.onDelivery?.(outcome);
    return outcome;
  };

  let running: Promise<unknown> = Promise.resolve();
  const fanOutNow = (release: TriggeringRelease = { source: 'manual', series: null, as_of: null, ingested_at: api.now().toISOString() }) => {
    const run = running.then(async () => {
      reads.cache.clear();
      const result = await fanOut(release, { watches, queue, services: reads, run: runDataRoute, log: { warn: (m) => log(`watch fan-out: ${m}`) } });
      if (result.changed.length > 0) {
        api.cache.clear();
        log(`watch fan-out (${release.source}): ${result.changed.length} path(s) changed, ${result.enqueued} deliveries queued`);
      }
      return result;
    });
    running = run.catch(() => undefined);
    return run;
  };

  const seen = new Map<string, string | null>();
  let stopped = false;
  let lastSweep = 0;
  let timer: NodeJS.Timeout | undefined;
  const poll = async (first: boolean) => {
    try {
      const statuses = await Promise.all(Object.keys(ADAPTERS).map((id) => api.store.getRunStatus(id)));
      const changed = statuses.filter((s): s is SourceRunStatus => s !== null && seen.has(s.source) && seen.get(s.source) !== s.last_success_at);
      for (const s of statuses) if (s) seen.set(s.source, s.last_success_at);
      for (const id of Object.keys(ADAPTERS)) if (!seen.has(id)) seen.set(id, null);
      // At start: one fan-out catches what changed while nothing was watching.
      if (first) await fanOutNow();
      // Attempts that stopped with credits held (a crash: this queue's messages died with the process) get them back.
      if (api.now().getTime() - lastSweep >= 60_000) {
        lastSweep = api.now().getTime();
        await sweepStopped(deps, 0);
      }
      for (const s of changed) await fanOutNow(releaseOf(s));
    } catch (err) {
      log(`watch poll failed: ${(err as Error).message}`);
    }
    if (!stopped) timer = setTimeout(() => void poll(false), opts.pollMs ?? 250);
  };
  void poll(true);

  return {
    fanOutNow,
    idle: async () => {
      await running;
      await queue.idle();
    },
    close: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      queue.close();
    },
  };
};

export { startLocalWatches };
export type { LocalWatches, LocalWatchOptions };
