/**
 * Builds the Lambda handler of one route family: the middy stack every family shares
 * (DESIGN.md "Request pipeline"):
 *
 *   errors -> route + validation -> payment -> handler -> response (validated in dev)
 *
 * The same exported handler runs in Lambda and, unchanged, behind the local node:http server.
 */
import { createHash } from 'node:crypto';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from '../zod';
import { mapError } from '../errors/error-mapper';
import { HttpError, NotFoundError } from '../errors/errors';
import { logger } from '../observability/logger';
import type { Family, FamilyRoutes, RouteDef } from '../routes/table';
import type { Services } from '../services';
import { conditionalMiddleware, jsonOf, PAID_CACHE_HEADERS, tagOfResult } from './conditional';
import { checkOutput } from './output-check';
import { paymentMiddleware } from './payment-middleware';
import { rememberedRouteInput } from './route-input-memo';
import type { FamilyHandlers, HandlerRequest, HandlerResult, RouteHandler, ServiceContext, ServiceState } from './types';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/** The services of this process; a function so that a Lambda builds them on first use. */
type ServicesProvider = () => Services;

const requestIdOf = (event: Event, context: Context): string => event.requestContext?.requestId || context.awsRequestId || 'local';

/** The stage, or null when building the services is what failed. */
const stageOf = (services: ServicesProvider): string | null => {
  try {
    return services().config.STAGE;
  } catch {
    return null;
  }
};

/** A body that does not match its route's output schema: the service's fault, so a 500. */
class ResponseValidationError extends Error {
  constructor(
    readonly routeId: string,
    readonly issues: z.core.$ZodIssue[],
  ) {
    super(`response of ${routeId} does not match its output schema: ${issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    this.name = 'ResponseValidationError';
  }
}

/**
 * Observability of every invocation: the Lambda context on each log line (function, request id,
 * cold start), and the business metrics flushed last whatever the outcome (middy runs `after` in reverse).
 */
const observabilityLayer = (services: ServicesProvider): MiddlewareObj<Event, Result, Error, ServiceContext> => ({
  name: 'observabilityLayer',
  before: async (request) => {
    logger.addContext(request.context);
  },
  after: async () => services().metrics.publish(),
  onError: async () => services().metrics.publish(),
});

/**
 * Headers of every answer: no MIME sniffing, HTTPS only (API Gateway serves HTTPS), no referrer
 * leaks, and no framing of the HTML pages (home, Pro checkout).
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
});

/** Error layer: the only place errors become responses. */
const errorLayer = (services: ServicesProvider): MiddlewareObj<Event, Result, Error, ServiceContext> => ({
  name: 'errorLayer',
  onError: async (request) => {
    const requestId = request.context.service?.requestId ?? requestIdOf(request.event, request.context);
    const mapped = mapError(request.error, requestId, stageOf(services) === 'dev');
    // Expected answers (404, 402, 503 NO_DATA) are not failures of the service.
    if (mapped.statusCode >= 500 && !(request.error instanceof HttpError)) {
      logger.error('request failed', { requestId, routeKey: request.event.routeKey, error: request.error as Error });
    }
    request.response = {
      statusCode: mapped.statusCode,
      headers: { ...mapped.headers, 'x-request-id': requestId },
      body: JSON.stringify(mapped.body),
    };
  },
});

/**
 * The route a request names, path words folded to lower case as parameters are: API Gateway matches
 * `/v1/decision/All` to `GET /v1/decision/{sector}` (its literal sibling is `…/all`), so the parameter
 * route hands it to the literal one when the folded words spell it. Only a parameter route with a
 * literal sibling of its shape can be handed on: the others are known when the family's table is built.
 */
const resolveRoute = (
  routes: ReadonlyMap<string, RouteDef>,
  foldable: ReadonlySet<string>,
  routeKey: string,
  pathParameters: Event['pathParameters'],
): { route: RouteDef; pathParameters: Event['pathParameters'] } | null => {
  const route = routes.get(routeKey);
  if (!route || !pathParameters || !foldable.has(route.id)) return route ? { route, pathParameters } : null;
  const folded = route.path.replace(/\{(\w+)\}/g, (whole, name: string) => pathParameters[name]?.toLowerCase() ?? whole);
  const literal = routes.get(`${route.method} ${folded}`);
  return literal && literal !== route ? { route: literal, pathParameters: undefined } : { route, pathParameters };
};

/** Ids of the parameter routes that have a literal sibling (same method, same number of segments, the literal segments equal). */
const foldableRoutes = (routes: readonly RouteDef[]): ReadonlySet<string> => {
  const segmentsOf = (r: RouteDef) => r.path.split('/');
  const fits = (param: RouteDef, literal: RouteDef) => {
    const [a, b] = [segmentsOf(param), segmentsOf(literal)];
    return a.length === b.length && a.every((seg, i) => seg.startsWith('{') || seg === b[i]);
  };
  const literals = routes.filter((r) => !r.path.includes('{'));
  return new Set(routes.filter((r) => r.path.includes('{') && literals.some((l) => l.method === r.method && fits(r, l))).map((r) => r.id));
};

/** Route resolution and input validation; bad input never reaches a store or a payment. */
const routeLayer = (
  routes: ReadonlyMap<string, RouteDef>,
  services: ServicesProvider,
  foldable = foldableRoutes([...routes.values()]),
  parseInput = rememberedRouteInput(),
): MiddlewareObj<Event, Result, Error, ServiceContext> => ({
  name: 'routeLayer',
  before: async (request) => {
    const { event, context } = request;
    context.service = { requestId: requestIdOf(event, context), charge: true };
    const resolved = resolveRoute(routes, foldable, event.routeKey, event.pathParameters);
    const route = resolved?.route;
    if (!route) {
      throw new NotFoundError('NOT_FOUND', `no route for ${event.requestContext?.http?.method ?? ''} ${event.rawPath ?? ''}`.trim(), {
        hint: 'GET /v1/catalog lists the instruments; GET /openapi.json lists the routes',
      });
    }
    const input = parseInput(route, resolved.pathParameters, event.queryStringParameters);
    context.service.route = route;
    context.service.request = {
      route,
      ...(input as Pick<HandlerRequest, 'params' | 'query'>),
      headers: lowerCaseHeaders(event.headers),
      domainName: event.requestContext?.domainName,
      rawBody: event.body === undefined || event.body === null ? null : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body,
      requestId: context.service.requestId,
      services: services(),
    };
  },
});

const lowerCaseHeaders = (headers: Event['headers'] | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
};

const toResponse = (route: RouteDef, result: HandlerResult, requestId: string): Result => {
  const text = typeof result.body === 'string';
  return {
    statusCode: result.status ?? 200,
    headers: {
      'content-type': text ? `${route.mimeType}; charset=utf-8` : 'application/json',
      // Paid answers and POST answers (MCP) are per-caller; discovery documents may be cached briefly.
      'cache-control': route.priceKey || route.method !== 'GET' ? 'private, no-store' : 'public, max-age=60',
      'x-request-id': requestId,
      ...result.headers,
    },
    // A cache hit's frozen figure is serialised once (conditional.ts keeps its JSON).
    body: text ? (result.body as string) : jsonOf(result.body),
  };
};

/**
 * ETag on free GET answers (documents, catalog, health) and 304 when the client already has them;
 * paid answers are never cached.
 */
const withValidators = (route: RouteDef, res: Result, ifNoneMatch: string | undefined): Result => {
  if (route.priceKey !== null || route.method !== 'GET' || res.statusCode !== 200 || typeof res.body !== 'string') return res;
  const etag = `"${createHash('sha256').update(res.body).digest('base64url').slice(0, 32)}"`;
  const headers = { ...res.headers, etag };
  const matches = ifNoneMatch?.split(',').some((t) => t.trim().replace(/^W\//, '') === etag || t.trim() === '*');
  return matches ? { statusCode: 304, headers, body: '' } : { ...res, headers };
};

/**
 * HEAD of a GET route (API Gateway routes it as `HEAD /path`) is that GET without its body, and free:
 * it runs through the stack without the payment layer, so it never challenges, debits or claims.
 * @returns the event as the GET it stands for, or null when the request is not a HEAD
 */
const headAsGet = (event: Event): Event | null => {
  if (!event.routeKey?.startsWith('HEAD ')) return null;
  const routeKey = `GET ${event.routeKey.slice('HEAD '.length)}`;
  return { ...event, routeKey, requestContext: { ...event.requestContext, routeKey, http: { ...event.requestContext.http, method: 'GET' } } };
};

/** A HEAD answer: the GET's status and headers, its length, no body. */
const withoutBody = (result: Result): Result => {
  const body = result.body ?? '';
  const length = result.isBase64Encoded ? Buffer.from(body, 'base64').length : Buffer.byteLength(body);
  return { ...result, headers: { ...result.headers, 'content-length': String(length) }, body: '', isBase64Encoded: false };
};

/** The middy stack of a family, with the payment layer when one is given. */
const familyStack = <F extends Family>(
  routes: FamilyRoutes<F>,
  handlers: FamilyHandlers<F>,
  services: ServicesProvider,
  payment?: MiddlewareObj<Event, Result, Error, ServiceContext>,
): FamilyLambdaHandler => {
  const byId = handlers as unknown as Readonly<Record<string, RouteHandler<never>>>;
  const missing = routes.routes.filter((r) => !byId[r.id]).map((r) => r.id);
  if (missing.length) throw new Error(`family ${routes.family} has no handler for: ${missing.join(', ')}`);

  const runRoute = (req: HandlerRequest): Promise<HandlerResult> => (byId[req.route.id] as (r: HandlerRequest) => Promise<HandlerResult>)(req);
  const build = (paymentLayer?: MiddlewareObj<Event, Result, Error, ServiceContext>) => {
    const stack = middy<Event, Result, Error, ServiceContext>()
      .use(observabilityLayer(services))
      .use(errorLayer(services))
      .use(routeLayer(new Map(routes.routes.map((r) => [r.id, r])), services));
    // Issue 37: If-None-Match is decided before the payment layer, so a 304 is charged in no lane.
    if (paymentLayer) stack.use(conditionalMiddleware(runRoute)).use(paymentLayer);
    stack.handler(async (_event, context) => {
      const { request, route, requestId } = context.service;
      const result = context.service.precomputed ?? (await runRoute(request!));
      if (request!.services.config.STAGE === 'dev' && (result.status ?? 200) === 200) {
        const checked = checkOutput(route!.output, result.body);
        if (!checked.success) throw new ResponseValidationError(route!.id, checked.error.issues);
      }
      context.service.charge = result.charge !== false;
      const response = toResponse(route!, result, requestId);
      const etag = await tagOfResult(request!.services.etagKey, request!, result);
      if (etag) return { ...response, headers: { ...response.headers, ...PAID_CACHE_HEADERS, etag } };
      return withValidators(route!, response, request!.headers['if-none-match']);
    });
    // Lambda hands in a plain Context; routeLayer attaches `service` before anything reads it.
    return stack as unknown as FamilyLambdaHandler;
  };
  const run = build(payment);
  const runFree = payment ? build() : run;
  // Every answer, whichever layer produced it (an early 402 included), carries the security headers.
  return async (event, context) => {
    const get = headAsGet(event);
    const result = get ? await runFree(get, context) : await run(event, context);
    const extra = (context as Partial<ServiceContext>).service?.answerHeaders;
    const secured = { ...result, headers: { ...SECURITY_HEADERS, ...result.headers, ...extra } };
    // An unknown path's HEAD ($default) has no body either.
    return get || event.requestContext?.http?.method === 'HEAD' ? withoutBody(secured) : secured;
  };
};

/**
 * Creates the Lambda handler of a family, payment layer included.
 * @param routes the family's routes from the table (a Lambda entry imports its own family's constant,
 *   so its bundle carries no other family's routes)
 * @param handlers one handler per route id of the family (checked by `tsc` against the table)
 * @param services the composition root of this process (Lambda: built from the environment at cold start)
 * @example export const handler = createFamilyHandler(PRICE_ROUTES, priceHandlers, servicesFromEnvironment);
 */
const createFamilyHandler = <F extends Family>(routes: FamilyRoutes<F>, handlers: FamilyHandlers<F>, services: ServicesProvider): FamilyLambdaHandler =>
  familyStack(routes, handlers, services, paymentMiddleware({ services }));

/**
 * Creates the Lambda handler of a family without a priced route (discovery, MCP, Pro: MCP tool calls
 * and Pro checkouts are paid inside their handlers). The payment layer would answer every such
 * request as free; leaving it out keeps x402 verification (viem, secp256k1) out of these bundles.
 * @throws Error at cold start when a route of the family has a price
 * @example export const handler = createFreeFamilyHandler(DISCOVERY_ROUTES, discoveryHandlers, servicesFromEnvironment);
 */
const createFreeFamilyHandler = <F extends Family>(routes: FamilyRoutes<F>, handlers: FamilyHandlers<F>, services: ServicesProvider): FamilyLambdaHandler => {
  const priced = routes.routes.filter((r) => r.priceKey !== null).map((r) => r.id);
  if (priced.length) throw new Error(`family ${routes.family} has priced routes (${priced.join(', ')}): use createFamilyHandler`);
  return familyStack(routes, handlers, services);
};

/** The exported Lambda handler: what API Gateway (or the local server) invokes. */
type FamilyLambdaHandler = (event: Event, context: Context, opts?: { signal: AbortSignal }) => Promise<Result>;

export { createFamilyHandler, createFreeFamilyHandler };
export type { ServiceContext, ServiceState, FamilyLambdaHandler, ServicesProvider };
