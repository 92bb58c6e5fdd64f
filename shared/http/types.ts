/**
 * What a route handler sees and returns. Handlers never build `{statusCode, body}` by hand:
 * they return data, and the family handler serialises it.
 */
import type { RouteDef } from '../routes/table';
import type { Deps } from './deps';

interface HandlerRequest<P = Record<string, unknown>, Q = Record<string, unknown>> {
  route: RouteDef;
  /** Path parameters after the route's zod schema (normalised, e.g. upper-cased codes). */
  params: P;
  /** Query parameters after the route's zod schema. */
  query: Q;
  /** Lower-cased request headers. */
  headers: Readonly<Record<string, string>>;
  requestId: string;
  deps: Deps;
}

interface HandlerResult {
  /** JSON-serialisable body, or a string for text routes. */
  body: unknown;
  /** 200 unless said otherwise. */
  status?: number;
  headers?: Record<string, string>;
  /** False when the answer must not be charged (stubs, documented free answers). Default true. */
  charge?: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: handlers narrow their own params via the route schema
type RouteHandler = (req: HandlerRequest<any, any>) => Promise<HandlerResult>;

/** Handlers of one family, keyed by route id ("GET /v1/price/{code}"). */
type FamilyHandlers = Readonly<Record<string, RouteHandler>>;

export type { HandlerRequest, HandlerResult, RouteHandler, FamilyHandlers };
