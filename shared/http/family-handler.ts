/**
 * Builds the Lambda handler of one route family: the middy stack every family shares
 * (DESIGN.md "Request pipeline"):
 *
 *   errors -> route + validation -> payment -> handler -> response
 *
 * The same exported handler runs in Lambda and, unchanged, behind the local node:http server.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ZodError } from 'zod';
import { findRoute, routesOf, type Family, type RouteDef } from '../routes/table';
import { paymentMiddleware } from './payment-middleware';
import { getDeps, type Deps } from './deps';
import { mapError } from '../errors/error-mapper';
import { NotFoundError } from '../errors/errors';
import { logger } from '../observability/logger';
import type { FamilyHandlers, HandlerRequest, HandlerResult } from './types';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/** What the pipeline learns about a request, carried on the Lambda context. */
interface ServiceState {
  requestId: string;
  route?: RouteDef;
  request?: HandlerRequest;
  /** Set by the handler: false when the answer must not be charged. */
  charge: boolean;
}

type ServiceContext = Context & { service: ServiceState };

const requestIdOf = (event: Event, context: Context): string =>
  event.requestContext?.requestId || context.awsRequestId || 'local';

/** The stage, or null when the configuration itself is what failed. */
const stageOf = (deps: () => Deps): string | null => {
  try {
    return deps().config.STAGE;
  } catch {
    return null;
  }
};

/** Error layer: the only place errors become responses. */
const errorLayer = (deps: () => Deps): MiddlewareObj<Event, Result, Error, ServiceContext> => ({
  name: 'errorLayer',
  onError: async (request) => {
    const requestId = request.context.service?.requestId ?? requestIdOf(request.event, request.context);
    const exposeInternals = stageOf(deps) === 'dev';
    const mapped = mapError(request.error, requestId, exposeInternals);
    if (mapped.statusCode >= 500) {
      logger.error('request failed', { requestId, routeKey: request.event.routeKey, error: request.error as Error });
    }
    request.response = {
      statusCode: mapped.statusCode,
      headers: { ...mapped.headers, 'x-request-id': requestId },
      body: JSON.stringify(mapped.body),
    };
  },
});

/** Route resolution and parameter validation; bad input never reaches a store or a payment. */
const routeLayer = (family: Family, deps: () => Deps): MiddlewareObj<Event, Result, Error, ServiceContext> => ({
  name: 'routeLayer',
  before: async (request) => {
    const { event, context } = request;
    context.service = { requestId: requestIdOf(event, context), charge: true };
    const route = findRoute(event.routeKey);
    if (!route || route.family !== family) {
      throw new NotFoundError('NOT_FOUND', `no route for ${event.requestContext?.http?.method ?? ''} ${event.rawPath ?? ''}`.trim(), {
        hint: 'GET /v1/catalog lists the instruments; GET /openapi.json lists the routes',
      });
    }
    const params = route.params.safeParse(event.pathParameters ?? {});
    const query = route.query.safeParse(event.queryStringParameters ?? {});
    if (!params.success || !query.success) {
      throw new ZodError([...(params.error?.issues ?? []), ...(query.error?.issues ?? [])]);
    }
    context.service.route = route;
    context.service.request = {
      route,
      params: params.data,
      query: query.data,
      headers: lowerCaseHeaders(event.headers),
      requestId: context.service.requestId,
      deps: deps(),
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
      // Paid answers are per-caller; discovery documents may be cached briefly.
      'cache-control': route.priceKey ? 'private, no-store' : 'public, max-age=60',
      'x-request-id': requestId,
      ...result.headers,
    },
    body: text ? (result.body as string) : JSON.stringify(result.body),
  };
};

/**
 * Creates the Lambda handler of a family.
 * @param family the family whose routes this function serves
 * @param handlers one handler per route id of the family; a missing one fails at cold start
 * @example export const handler = createFamilyHandler('price', priceHandlers);
 */
const createFamilyHandler = (family: Family, handlers: FamilyHandlers, deps: () => Deps = getDeps): FamilyLambdaHandler => {
  const missing = routesOf(family).filter((r) => !handlers[r.id]).map((r) => r.id);
  if (missing.length) throw new Error(`family ${family} has no handler for: ${missing.join(', ')}`);

  const stack = middy<Event, Result, Error, ServiceContext>()
    .use(errorLayer(deps))
    .use(routeLayer(family, deps))
    .use(paymentMiddleware({ deps }))
    .handler(async (_event, context) => {
      const { request, route, requestId } = context.service;
      const result = await handlers[route!.id]!(request!);
      context.service.charge = result.charge !== false;
      return toResponse(route!, result, requestId);
    });
  // Lambda hands in a plain Context; routeLayer attaches `service` before anything reads it.
  return stack as unknown as FamilyLambdaHandler;
};

/** The exported Lambda handler: what API Gateway (or the local server) invokes. */
type FamilyLambdaHandler = (event: Event, context: Context, opts?: { signal: AbortSignal }) => Promise<Result>;

export { createFamilyHandler, lowerCaseHeaders };
export type { ServiceContext, ServiceState, FamilyLambdaHandler };
