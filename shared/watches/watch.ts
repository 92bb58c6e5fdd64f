/**
 * Webhook watches (issue 37), the pure rules: what a watch is, which paths may be watched, the
 * limits per key, the retry schedule of a delivery, when a watch is disabled, and what a delivery
 * carries. Stores, queues and HTTP are elsewhere in shared/watches.
 *
 * A watch names a paid GET path (with its query) of the route table and a receiver URL. When
 * ingestion changes what that path answers (a new figure, a revision), the answer is POSTed to the
 * receiver, signed per Standard Webhooks, and charged once in credits (the route's price), only
 * when the receiver answers 2xx.
 */
import { parseRouteInput } from '../routes/input';
import { BadRequestError } from '../errors/errors';
import { matchRoute } from '../routes/match';
import { isChargeable, type RouteDef } from '../routes/table';
import { usdToCredits } from '../routes/pricing';
import type { Config } from '../config';

import { MAX_WATCHES_PER_KEY } from '../schemas/watches';

/**
 * Waits before each retry of a failed delivery (seconds): exponential from 5 s, capped at 8 h, so
 * the last of 10 retries leaves about 24 h after the first attempt (Standard Webhooks' guidance).
 */
const RETRY_DELAYS_S: readonly number[] = Object.freeze([5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 28_800]);

/** Dead-lettered deliveries in a row after which a watch is disabled (with the reason on it). */
const DISABLE_AFTER_DEAD_DELIVERIES = 3;

type WatchState = 'active' | 'paused' | 'disabled';

/** A watch as stored (the signing secret apart: it is shown once, at creation). */
interface Watch {
  id: string;
  /** sha256 of the Pro key that owns it and pays its deliveries. */
  keyHash: string;
  /** The watched path with its query, as the caller would GET it (normalised). */
  path: string;
  routeId: string;
  url: string;
  state: WatchState;
  /** Why the watch is paused or disabled; null while active. */
  reason: string | null;
  createdAt: string;
  deliveries: number;
  failures: number;
  /** Dead-lettered deliveries since the last delivered one. */
  deadInRow: number;
  lastDeliveredAt: string | null;
  lastEtag: string | null;
  creditsCharged: number;
}

/** What triggered a delivery: the ingestion run that changed the answer. */
interface TriggeringRelease {
  source: string;
  /** The newest figure the run wrote, as the run status records it. */
  series: string | null;
  as_of: string | null;
  ingested_at: string;
}

/** One delivery: a watch, the answer's tag (which makes its id), the answer and what triggered it. */
interface DeliveryMessage {
  deliveryId: string;
  watchId: string;
  keyHash: string;
  etag: string;
  /** The route's answer (its body), as the GET would have answered. */
  answer: unknown;
  release: TriggeringRelease;
  /** Credits one delivery costs: the route's price (0 while the route is free under the configuration). */
  credits: number;
  /** 0 = the first attempt. */
  attempt: number;
  /** When this attempt is due (ISO); a queue whose delays are shorter re-queues until then. */
  notBefore: string;
}

/** A watch path after the route table: its route and parsed input, and the path in normal form. */
interface WatchTarget {
  route: RouteDef;
  path: string;
  params: Record<string, string>;
  query: Record<string, string>;
  parsed: { params: unknown; query: unknown };
}

/**
 * Pure: checks a path to watch against the route table: a paid GET route, its parameters valid;
 * `as_known_at` is refused (an answer at a past instant never changes).
 * @throws BadRequestError (400) naming the problem; NotFoundError (404) for an unknown instrument etc.
 */
const watchTargetOf = (raw: string): WatchTarget => {
  let url: URL;
  try {
    url = new URL(raw, 'http://watch.invalid');
  } catch {
    throw new BadRequestError('INVALID_PARAMETER', 'path must be a path of this API, e.g. /v1/inventory/eia');
  }
  if (!raw.startsWith('/') || url.origin !== 'http://watch.invalid' || url.hash) {
    throw new BadRequestError('INVALID_PARAMETER', 'path must be a path of this API (no scheme, host or fragment), e.g. /v1/inventory/eia');
  }
  const match = matchRoute('GET', url.pathname);
  if (!match || match === 'method' || match.route.priceKey === null) {
    throw new BadRequestError('INVALID_PARAMETER', `${url.pathname} is not a paid GET route; GET /openapi.json lists them`, { path: url.pathname });
  }
  const query = Object.fromEntries(url.searchParams);
  if ('as_known_at' in query)
    throw new BadRequestError('INVALID_PARAMETER', 'an answer as known at a past instant never changes: watch the path without as_known_at');
  const parsed = parseRouteInput(match.route, match.pathParameters, query);
  const search = new URLSearchParams(Object.entries(query).sort(([a], [b]) => a.localeCompare(b))).toString();
  return { route: match.route, path: `${url.pathname}${search ? `?${search}` : ''}`, params: match.pathParameters, query, parsed };
};

/** Credits one delivery of a route costs under this configuration. */
const creditsPerDelivery = (route: RouteDef, config: Pick<Config, 'INDICATIVE_FUTURES'>): number =>
  isChargeable(route, config) ? usdToCredits(route.priceUsd!) : 0;

/** Pure: a delivery's id: one per watch and answer (its tag), so a retry or a repeated fan-out is the same delivery. */
const deliveryIdOf = (watchId: string, etag: string): string => `msg_${watchId}_${etag.replace(/"/g, '')}`;

/** The Standard Webhooks event type of a delivery. */
const EVENT_TYPE = 'watch.release';

/**
 * Pure: the JSON a receiver gets: the GET's answer (`data`) and the release that triggered it, with
 * the answer's ETag (a GET with it in If-None-Match is a free 304 while nothing changed).
 */
const deliveryPayload = (m: DeliveryMessage, watch: Pick<Watch, 'id' | 'path'>, at: Date) => ({
  type: EVENT_TYPE,
  timestamp: at.toISOString(),
  watch_id: watch.id,
  path: watch.path,
  etag: m.etag,
  credits_charged: m.credits,
  release: m.release,
  data: m.answer,
});

export { MAX_WATCHES_PER_KEY, RETRY_DELAYS_S, DISABLE_AFTER_DEAD_DELIVERIES, watchTargetOf, creditsPerDelivery, deliveryIdOf, deliveryPayload };
export type { Watch, WatchState, WatchTarget, DeliveryMessage, TriggeringRelease };
