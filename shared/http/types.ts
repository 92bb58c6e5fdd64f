/**
 * What a route handler sees and returns, typed by the route table: params and query are the
 * `z.output` of the route's schemas, the body is the route's output schema. Handlers never build
 * `{statusCode, body}` by hand: they return data, and the family handler serialises it.
 */
import type { Context } from 'aws-lambda';
import type { Grant } from '../payment/lane';
import type { BodyOf, Family, FamilyRouteId, ParamsOf, QueryOf, RouteDef, RouteId } from '../routes/table';
import type { Services } from '../services';

interface HandlerRequest<Id extends RouteId = RouteId> {
  route: RouteDef;
  /** Path parameters after the route's zod schema (normalised, e.g. upper-cased codes). */
  params: ParamsOf<Id>;
  /** Query parameters after the route's zod schema. */
  query: QueryOf<Id>;
  /** Lower-cased request headers. */
  headers: Readonly<Record<string, string>>;
  /**
   * The domain the request was received on, as the runtime states it (API Gateway's
   * requestContext.domainName; the local server's own listening address): trusted, unlike Host.
   */
  domainName?: string;
  /** The request body as text (POST routes), null when there is none. */
  rawBody: string | null;
  requestId: string;
  services: Services;
}

interface HandlerResult<B = unknown> {
  /** JSON-serialisable body, or a string for text routes. */
  body: B;
  /** 200 unless said otherwise. */
  status?: number;
  headers?: Record<string, string>;
  /**
   * False when this answer must not be charged although the route is priced: an answer that is
   * partial because stored data is missing. (Whether a route is free at all is the table's
   * `freeWhen`, not the handler's call.)
   */
  charge?: boolean;
}

type RouteHandler<Id extends RouteId> = (req: HandlerRequest<Id>) => Promise<HandlerResult<BodyOf<Id>>>;

/** One handler per route of the family, keyed by route id: a missing or extra one is a `tsc` error. */
type FamilyHandlers<F extends Family> = { readonly [Id in FamilyRouteId<F>]: RouteHandler<Id> };

/**
 * What the pipeline learns about a request, carried on the Lambda context: the one request-state
 * channel (family-handler.ts writes it, the payment middleware reads and adds to it; here, so
 * neither imports the other for it).
 */
interface ServiceState {
  requestId: string;
  route?: RouteDef;
  request?: HandlerRequest;
  /** Set by the handler: false when the answer must not be charged. */
  charge: boolean;
  /** A granted payment, held by the payment layer between the handler and its settlement or release. */
  grant?: Grant;
  /** Headers the payment layer adds to an answer another layer renders (a keyed request's budget on an error). */
  answerHeaders?: Record<string, string>;
  /** The answer the conditional layer computed before payment (its tag did not match): what the handler returns. */
  precomputed?: HandlerResult;
}

type ServiceContext = Context & { service: ServiceState };

export type { HandlerRequest, HandlerResult, RouteHandler, FamilyHandlers, ServiceContext, ServiceState };
