/**
 * Conditional requests on paid routes (issue 37, "pay only for news"): every paid answer carries an
 * ETag for the data it serves, and a request whose `If-None-Match` names the current tag is answered
 * `304 Not Modified`, no body, charged nothing in every lane.
 *
 * The tag is a keyed hash (HMAC-SHA256 with a server secret, {@link EtagKeySource}) of the route,
 * its parsed parameters and the data of the answer: a plain hash would let anyone find today's
 * figure for free by sending the tags of candidate values and watching for a 304. What counts as
 * data is the answer without its per-call and per-run fields ({@link VOLATILE_KEYS}: provenance,
 * ages, run instants), so an unchanged figure keeps its tag from one call (and one ingestion run)
 * to the next, and a new figure, a revision or a new vintage changes it. `as_known_at` is one of
 * the parsed query parameters, so answers as known at a past instant have their own tags.
 *
 * The decision is taken before any lane is asked for money: the HTTP hook is a middleware placed
 * ahead of the payment middleware (an early answer from it skips the payment phases entirely), the
 * MCP hook runs before `charge` in the paid tool call. A request whose tag does not match goes on to
 * pay for the answer already computed here, so what is charged is exactly what was compared.
 */
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { EtagKeySource } from '../config/etag-key';
import type { RouteDef } from '../routes/table';
import type { ServiceContext } from './family-handler';
import type { HandlerRequest, HandlerResult } from './types';

/**
 * Fields of an answer that describe the call or the last ingestion run rather than the data:
 * left out of the tag. (`retrieved_at` changes whenever a run re-reads an unchanged figure.)
 */
const VOLATILE_KEYS: ReadonlySet<string> = new Set([
  'provenance',
  'cache_hit',
  'cache_ttl_s',
  'retrieved_at',
  'age_s',
  'last_attempt_at',
  'last_success_at',
  'checked_at',
]);

/** Headers every paid answer and every 304 of it carries: per caller, never stored by shared caches, and varying with payment. */
const PAID_CACHE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'private, no-store',
  vary: 'Authorization, X-PAYMENT, PAYMENT-SIGNATURE, If-None-Match',
});

/**
 * Values found frozen all the way down. Served figures are deep-frozen copies shared by every cache
 * hit (shared/store/observation-reader.ts): a frozen plain object or array whose members are all so
 * can never change, so what is computed from it (its data text, its tag, its JSON) holds for as long
 * as it lives, and an evicted value takes what was kept for it along. Only plain objects and arrays
 * of data properties count (a frozen Date still changes, so does a getter's answer).
 */
const deepFrozen = new WeakSet<object>();

/** Whether `v` is a primitive or a plain object or array frozen all the way down (remembered once found). */
const isDeepFrozen = (v: unknown): boolean => {
  if (v === null || typeof v !== 'object') return true;
  if (deepFrozen.has(v)) return true;
  const proto = Object.getPrototypeOf(v);
  if (!Object.isFrozen(v) || (proto !== Object.prototype && proto !== Array.prototype && proto !== null)) return false;
  // Once per value (then remembered): every own member a data property whose value is deep-frozen too.
  const members = Object.getOwnPropertyDescriptors(v);
  for (const k of Reflect.ownKeys(members)) {
    const m = members[k as string]!;
    if (!('value' in m) || !isDeepFrozen(m.value)) return false;
  }
  deepFrozen.add(v);
  return true;
};

/** Keeps what is computed from a deep-frozen value, by the value; anything else is computed each time. */
const keptFor = <T>(kept: WeakMap<object, T>, v: unknown, compute: () => T): T => {
  if (v === null || typeof v !== 'object' || !isDeepFrozen(v)) return compute();
  const known = kept.get(v);
  if (known !== undefined) return known;
  const value = compute();
  kept.set(v, value);
  return value;
};

/** An array-index-like key (`0`, `10`), which JS objects order first; keys not starting with a digit are the common case. */
const isIndexKey = (k: string): boolean => {
  const first = k.charCodeAt(0);
  return first >= 48 && first <= 57 && /^(?:0|[1-9]\d*)$/.test(k) && Number(k) < 2 ** 32 - 1;
};

/** The member order JSON gives an object built from sorted keys: integer-like keys first, ascending, then the rest sorted. */
const jsonKeyOrder = (keys: string[]): string[] => {
  const sorted = keys.sort();
  if (!sorted.some(isIndexKey)) return sorted;
  const indices = sorted.filter(isIndexKey).sort((a, b) => Number(a) - Number(b));
  return [...indices, ...sorted.filter((k) => !isIndexKey(k))];
};

/** The canonical data text of deep-frozen values, computed once each. */
const dataTexts = new WeakMap<object, string>();

/** The canonical text of `v`, undefined where JSON leaves a member out. */
const canonicalText = (v: unknown): string | undefined => {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  return keptFor(dataTexts, v, () => {
    // Array.from visits holes too (as JSON does: null), where map would skip them.
    if (Array.isArray(v)) return `[${Array.from(v, (x) => canonicalText(x) ?? 'null').join(',')}]`;
    const o = v as Record<string, unknown>;
    const members: string[] = [];
    for (const k of jsonKeyOrder(Object.keys(o))) {
      if (VOLATILE_KEYS.has(k)) continue;
      const t = canonicalText(o[k]);
      if (t !== undefined) members.push(`${JSON.stringify(k)}:${t}`);
    }
    return `{${members.join(',')}}`;
  });
};

/**
 * A value as canonical JSON (keys sorted at every level as an object built from them orders them,
 * undefined members left out) without its volatile fields. Pure in effect (the text of a
 * deep-frozen value is kept). Built here rather than with analytics' canonicalJson: every paid
 * bundle carries this, and the data bundles are at their size limit.
 */
const dataOf = (body: unknown): string => canonicalText(body) as string;

/** The JSON texts of deep-frozen answers. */
const jsonTexts = new WeakMap<object, string>();

/**
 * An answer's body as JSON, as `JSON.stringify` writes it; serialised once for a deep-frozen answer
 * (a cache hit serves the same frozen figure to every caller).
 */
const jsonOf = (body: unknown): string => keptFor(jsonTexts, body, () => JSON.stringify(body));

/** The HMAC key object of each secret, imported once. */
const keyObjects = new WeakMap<Uint8Array, KeyObject>();
const keyObjectOf = (key: Uint8Array): KeyObject => {
  const known = keyObjects.get(key);
  if (known) return known;
  const k = createSecretKey(key);
  keyObjects.set(key, k);
  return k;
};

/** Most tags kept per frozen answer: one per route input it was served for (e.g. as_known_at instants that share a figure). */
const TAGS_PER_ANSWER = 16;

/**
 * Tags of frozen answers, by answer, for one secret: a cache hit serves the same frozen answer, so
 * its tag is computed once per route input and secret. A new secret (rotation) starts afresh.
 */
const frozenTags = new WeakMap<object, { key: Uint8Array; byInput: Map<string, string> }>();

/** The tags already computed for a frozen answer under `key`, by route input. */
const tagsOf = (answer: object, key: Uint8Array): Map<string, string> => {
  const held = frozenTags.get(answer);
  if (held?.key === key) return held.byInput;
  const byInput = new Map<string, string>();
  frozenTags.set(answer, { key, byInput });
  return byInput;
};

/**
 * The strong ETag of an answer of `route` for the given parsed input. Pure in effect: the tag of a
 * frozen answer is remembered per input and secret (the same answer, input and secret give the same tag).
 * @param key the server secret
 * @example etagOf(key, route, { code: 'CL' }, {}, body) // '"3q2-…"' (32 base64url characters)
 */
const etagOf = (key: Uint8Array, route: Pick<RouteDef, 'id'>, params: unknown, query: unknown, body: unknown): string => {
  const input = `${route.id}\n${dataOf(params ?? {})}\n${dataOf(query ?? {})}\n`;
  const data = dataOf(body);
  const tags = body !== null && typeof body === 'object' && isDeepFrozen(body) ? tagsOf(body, key) : undefined;
  const known = tags?.get(input);
  if (known) return known;
  const tag = `"${createHmac('sha256', keyObjectOf(key)).update(input).update(data).digest('base64url').slice(0, 32)}"`;
  if (tags) {
    if (tags.size >= TAGS_PER_ANSWER) tags.delete(tags.keys().next().value as string);
    tags.set(input, tag);
  }
  return tag;
};

/**
 * Pure: whether an `If-None-Match` value names `etag` (RFC 9110 13.1.2: weak comparison, a list,
 * or `*` for any current answer). Compared in constant time, tag by tag.
 */
const ifNoneMatches = (header: string | null | undefined, etag: string): boolean => {
  if (!header) return false;
  const want = Buffer.from(etag);
  return header.split(',').some((raw) => {
    const t = raw.trim();
    if (t === '*') return true;
    const tag = Buffer.from(t.startsWith('W/') ? t.slice(2) : t);
    return tag.length === want.length && timingSafeEqual(tag, want);
  });
};

/** Whether an answer of a priced route can carry a tag: a 200 with a JSON body. */
const taggable = (route: RouteDef, result: HandlerResult): boolean =>
  route.priceKey !== null && (result.status ?? 200) === 200 && typeof result.body !== 'string';

/** The tag of a handler's answer, or null when it has none. */
const tagOfResult = async (keyOf: EtagKeySource, req: { route: RouteDef; params: unknown; query: unknown }, result: HandlerResult): Promise<string | null> =>
  taggable(req.route, result) ? etagOf(await keyOf(), req.route, req.params, req.query, result.body) : null;

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/**
 * The HTTP hook: runs the route's handler (a read, nothing charged yet) when a paid GET carries
 * `If-None-Match`; a matching tag ends the request with a 304 before the payment middleware's
 * before phase runs (middy skips every later phase of an early answer), so no lane is asked. A tag
 * that does not match leaves the computed answer on the request state for the handler to return
 * once the payment is granted.
 * @param run the route's handler
 */
const conditionalMiddleware = (run: (req: HandlerRequest) => Promise<HandlerResult>): MiddlewareObj<Event, Result, Error, ServiceContext> => ({
  name: 'conditional',
  before: async (request: Request<Event, Result, Error, ServiceContext>) => {
    const service = request.context.service;
    const req = service?.request;
    const header = req?.headers['if-none-match'];
    if (!req || !header || req.route.priceKey === null || req.route.method !== 'GET') return undefined;
    const result = await run(req);
    const etag = await tagOfResult(req.services.etagKey, req, result);
    if (etag && ifNoneMatches(header, etag)) {
      return { statusCode: 304, headers: { ...PAID_CACHE_HEADERS, etag, 'x-request-id': service.requestId }, body: '' };
    }
    service.precomputed = result;
    return undefined;
  },
});

export { conditionalMiddleware, dataOf, etagOf, isDeepFrozen, jsonOf, ifNoneMatches, tagOfResult, PAID_CACHE_HEADERS };
