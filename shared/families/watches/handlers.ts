/**
 * /v1/watches (issue 37): a Pro key creates, lists, reads and deletes its webhook watches. Free
 * routes (a delivery is what is charged); every one needs an active Pro key in Authorization.
 */
import { randomBytes } from 'node:crypto';
import type * as z from '../../zod';
import { BadRequestError, ConflictError, NotFoundError, UnauthorizedError } from '../../errors/errors';
import { tagOfResult } from '../../http/conditional';
import { bearerOf } from '../../pro/keys';
import type { FamilyHandlers, HandlerRequest } from '../../http/types';
import { hashKey, parseKey } from '../../pro/keys';
import type { Services } from '../../services';
import { checkReceiverUrl } from '../../watches/receiver-url';
import { runDataRoute } from '../run-route';
import { CreateWatchBody } from '../../schemas/watches';
import { MAX_WATCHES_PER_KEY } from '../../schemas/watches';
import { creditsPerDelivery, type Watch, watchTargetOf } from '../../watches/watch';
import { type DeliveryRecord, WatchStore } from '../../watches/watch-store';

const STORES = new WeakMap<Services, WatchStore>();
const storeOf = (services: Services): WatchStore => {
  let store = STORES.get(services);
  if (!store) {
    if (!services.doc) throw new Error('the watch routes need the DynamoDB client (services.doc)');
    store = new WatchStore(services.doc, services.config.CREDITS_TABLE);
    STORES.set(services, store);
  }
  return store;
};

/** The hash of the request's Pro key, which must be active. @throws UnauthorizedError (401) */
const ownerOf = async (req: HandlerRequest): Promise<string> => {
  const key = bearerOf(req.headers);
  if (!key || !parseKey(key).ok) throw new UnauthorizedError('watches belong to Pro keys: send Authorization: Bearer <Pro key>');
  const record = await req.services.payment.credits.get(hashKey(key));
  if (record?.status !== 'active') throw new UnauthorizedError('the Authorization header does not carry an active Pro key');
  return record.hash;
};

const watchJson = (w: Watch, services: Services) => ({
  id: w.id,
  path: w.path,
  url: w.url,
  state: w.state,
  reason: w.reason,
  created_at: w.createdAt,
  deliveries: w.deliveries,
  failures: w.failures,
  credits_charged: w.creditsCharged,
  credits_per_delivery: creditsPerDelivery(watchTargetOf(w.path).route, services.config),
  last_delivered_at: w.lastDeliveredAt,
  last_etag: w.lastEtag,
});

const deliveryJson = (d: DeliveryRecord) => ({
  id: d.deliveryId,
  etag: d.etag,
  state: d.state,
  attempts: d.attempts,
  last_status: d.lastStatus,
  last_error: d.lastError,
  credits_charged: d.creditsCharged,
  created_at: d.createdAt,
  updated_at: d.updatedAt,
});

const parseBody = (raw: string | null): z.infer<typeof CreateWatchBody> => {
  let json: unknown;
  try {
    json = JSON.parse(raw ?? '');
  } catch {
    throw new BadRequestError('INVALID_PARAMETER', 'the body must be JSON: {"path": "/v1/inventory/eia", "url": "https://agent.example/hook"}');
  }
  const parsed = CreateWatchBody.safeParse(json);
  if (!parsed.success) throw parsed.error;
  return parsed.data;
};

/** The current answer's tag of a path: the delivery baseline (a watch is told of answers after it). */
const currentTag = async (path: string, services: Services): Promise<string | null> => {
  const target = watchTargetOf(path);
  const req: HandlerRequest = {
    route: target.route,
    ...(target.parsed as Pick<HandlerRequest, 'params' | 'query'>),
    headers: {},
    rawBody: null,
    requestId: 'watch',
    services,
  };
  try {
    return await tagOfResult(services.etagKey, req, await runDataRoute(target.route, req));
  } catch {
    // No data yet (NO_DATA): the first figure that lands is news.
    return null;
  }
};

const watchHandlers: FamilyHandlers<'watches'> = Object.freeze({
  'POST /v1/watches': async (req) => {
    const owner = await ownerOf(req);
    const body = parseBody(req.rawBody);
    const target = watchTargetOf(body.path);
    const url = await checkReceiverUrl(body.url, { dev: req.services.config.STAGE === 'dev' });
    const watch: Watch = {
      id: `w${randomBytes(10).toString('hex')}`,
      keyHash: owner,
      path: target.path,
      routeId: target.route.id,
      url,
      state: 'active',
      reason: null,
      createdAt: req.services.now().toISOString(),
      deliveries: 0,
      failures: 0,
      deadInRow: 0,
      lastDeliveredAt: null,
      lastEtag: await currentTag(target.path, req.services),
      creditsCharged: 0,
    };
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    if (!(await storeOf(req.services).create(watch, secret, watch.lastEtag))) {
      throw new ConflictError('WATCH_LIMIT', `a Pro key may hold ${MAX_WATCHES_PER_KEY} watches; delete one first (GET /v1/watches lists them)`, {
        limit: MAX_WATCHES_PER_KEY,
      });
    }
    return { status: 201, headers: { location: `/v1/watches/${watch.id}` }, body: { ...watchJson(watch, req.services), secret, limit: MAX_WATCHES_PER_KEY } };
  },
  'GET /v1/watches': async (req) => {
    const owner = await ownerOf(req);
    const watches = await storeOf(req.services).list(owner);
    return { body: { watches: watches.map((w) => watchJson(w, req.services)), limit: MAX_WATCHES_PER_KEY } };
  },
  'GET /v1/watches/{id}': async (req) => {
    const owner = await ownerOf(req);
    const store = storeOf(req.services);
    const watch = await store.get(owner, req.params.id);
    if (!watch) throw new NotFoundError('NOT_FOUND', `no watch ${req.params.id} on this key`);
    return { body: { ...watchJson(watch, req.services), recent_deliveries: (await store.deliveries(owner, watch.id)).map(deliveryJson) } };
  },
  'DELETE /v1/watches/{id}': async (req) => {
    const owner = await ownerOf(req);
    if (!(await storeOf(req.services).delete(owner, req.params.id))) throw new NotFoundError('NOT_FOUND', `no watch ${req.params.id} on this key`);
    return { body: { id: req.params.id, deleted: true as const } };
  },
});

export { watchHandlers };
