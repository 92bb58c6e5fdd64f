/**
 * The fan-out (issue 37): after ingestion wrote, compute the answer of every watched path once and
 * compare its ETag with the path's last fanned-out tag; a path whose answer changed (a new figure, a
 * revision) gets one delivery message per watch. Comparing answers rather than mapping series to
 * paths keeps it exact for every route, derived ones included (a crack spread moves with any of its
 * legs): only news is delivered, and nothing is delivered for a run that changed nothing.
 *
 * The read must not come from a cache that predates the write: the caller hands in services whose
 * read cache is this fan-out's own (fresh per run).
 */
import { mapLimit } from '../concurrency/map-limit';
import { tagOfResult } from '../http/conditional';
import type { HandlerRequest, HandlerResult } from '../http/types';
import type { RouteDef } from '../routes/table';
import type { Services } from '../services';
import type { DeliveryQueue } from './queue';
import { creditsPerDelivery, deliveryIdOf, type DeliveryMessage, type TriggeringRelease, watchTargetOf } from './watch';
import type { WatchStore } from './watch-store';

/** Runs a route's handler in-process (the composition gives the data families' handlers). */
type RouteRunner = (route: RouteDef, req: HandlerRequest) => Promise<HandlerResult>;

interface FanOutDeps {
  watches: WatchStore;
  queue: DeliveryQueue;
  services: Services;
  run: RouteRunner;
  log?: { warn: (message: string, extra?: Record<string, unknown>) => void };
}

interface FanOutResult {
  paths: number;
  changed: string[];
  enqueued: number;
}

/** Paths computed at once (each is one route answer: a few store reads). */
const PATHS_AT_ONCE = 4;
/** Messages handed to the queue per call. */
const SEND_CHUNK = 500;

/** The current answer and tag of a watched path, or null when it has none now (no data, a refused path). */
const answerOf = async (path: string, deps: FanOutDeps): Promise<{ etag: string; body: unknown; route: RouteDef } | null> => {
  try {
    const target = watchTargetOf(path);
    const req: HandlerRequest = {
      route: target.route,
      ...(target.parsed as Pick<HandlerRequest, 'params' | 'query'>),
      headers: {},
      rawBody: null,
      requestId: `fan-out ${path}`,
      services: deps.services,
    };
    const result = await deps.run(target.route, req);
    const etag = await tagOfResult(deps.services.etagKey, req, result);
    return etag ? { etag, body: result.body, route: target.route } : null;
  } catch (err) {
    deps.log?.warn('watch fan-out: path has no answer now', { path, error: (err as Error).message });
    return null;
  }
};

/**
 * Finds the watched paths whose answer changed and queues their deliveries.
 * @param release what triggered the run (stated in every delivery)
 */
const fanOut = async (release: TriggeringRelease, deps: FanOutDeps): Promise<FanOutResult> => {
  const paths = await deps.watches.paths();
  const changed: string[] = [];
  let enqueued = 0;
  const now = deps.services.now().toISOString();
  await mapLimit(paths, PATHS_AT_ONCE, async (p) => {
    const answer = await answerOf(p.path, deps);
    if (!answer || answer.etag === p.etag) return;
    // Two fan-outs of one write (a stream's retries, two batches) queue its deliveries once.
    if (!(await deps.watches.advancePath(p.path, p.etag, answer.etag))) return;
    changed.push(p.path);
    const credits = creditsPerDelivery(answer.route, deps.services.config);
    const messages: DeliveryMessage[] = (await deps.watches.watchesOfPath(p.path)).map((w) => ({
      deliveryId: deliveryIdOf(w.id, answer.etag),
      watchId: w.id,
      keyHash: w.keyHash,
      etag: answer.etag,
      answer: answer.body,
      release,
      credits,
      attempt: 0,
      notBefore: now,
    }));
    for (let i = 0; i < messages.length; i += SEND_CHUNK) await deps.queue.send(messages.slice(i, i + SEND_CHUNK), 0);
    enqueued += messages.length;
  });
  return { paths: paths.length, changed, enqueued };
};

export { fanOut };
export type { FanOutDeps, FanOutResult, RouteRunner };
