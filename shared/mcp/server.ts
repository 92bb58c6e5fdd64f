/**
 * The MCP server: the endpoint answers both protocol eras a client may speak, with the official
 * SDK's v2 packages and one server definition (tools, instructions) for both:
 * - 2026-07-28 (a request carries its protocol version in `_meta`; no `initialize`;
 *   `server/discover`; `ttlMs`/`cacheScope` on lists; `Mcp-Method`/`Mcp-Name` headers checked
 *   against the body): the SDK's `createMcpHandler`.
 * - 2025-11-25 and older (`initialize`, then requests without the envelope): a stateless Streamable
 *   HTTP transport with JSON responses. `createMcpHandler`'s own fallback for this era answers every
 *   POST as an SSE stream; behind a buffered Lambda that framing gains nothing, so the legacy leg is
 *   routed by the SDK's `isLegacyRequest`, the composition its documentation gives for this.
 * Each POST gets a new server and transport (the SDK refuses reuse since its fix for a cross-client
 * leak). Tools run the same route handlers as HTTP, in-process, after the same input validation and
 * payment decision.
 */
import {
  type CallToolResult,
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  type JSONRPCRequest,
  type jsonSchemaValidator,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  ProtocolError,
  ProtocolErrorCode,
  type Result,
  Server,
  type ServerContext,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { mapError } from '../errors/error-mapper';
import { parseRouteInput } from '../routes/input';
import type { HandlerRequest, HandlerResult } from '../http/types';
import { logger } from '../observability/logger';
import type { RouteDef } from '../routes/table';
import type { Services } from '../services';
import { errorResult, paidToolCall, PostPayments } from './payment';
import { findTool, IF_NONE_MATCH_ARG, priceOf, TOOL_ANNOTATIONS, TOOLS, toolDescription, type McpTool } from './tools';
import { callWatchTool, findWatchTool, WATCH_TOOLS } from './watch-tools';

const SERVER_INFO = { name: 'commodity-data', title: 'Commodity data service', version: '0.1.0' };
const INSTRUCTIONS =
  'Primary-source commodity observations (EIA, FRED, World Bank, CFTC, USDA, USGS). Free tools: get_catalog, get_release_calendar, get_health. ' +
  'Paid tools: pay per call with x402 (retry the call with the payment payload in params._meta["x402/payment"]) or send Authorization: Bearer <Pro key>. ' +
  'Output schemas of large answers are summaries; /openapi.json has every field. ' +
  'A paid answer names its etag in result._meta["commodity-data/etag"]: pass it as if_none_match and an unchanged answer is {not_modified: true, etag}, charged nothing. ' +
  "With a Pro key, create_watch POSTs a paid path's new answer to your URL at each release (signed, Standard Webhooks; each delivery charged once).";

/**
 * How long a 2026-07-28 client may reuse tools/list and server/discover: the same for every caller
 * (public), and they change only with a deployment.
 */
const LIST_CACHE_HINT = Object.freeze({ ttlMs: 3_600_000, cacheScope: 'public' as const });

/**
 * Splits a tool's arguments into the route's path and query parameters. A null argument is one not
 * given: strict tool calling (every property required, optional ones nullable) sends null for each
 * argument the model leaves out; a null where the route needs a value is refused as a missing one.
 */
const splitArgs = (tool: McpTool, args: Record<string, unknown>) => {
  const params: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) if (v !== null) (tool.pathArgs.includes(k) ? params : query)[k] = v;
  return { params, query };
};

/** Runs a route's own handler in-process, data or watch routes (given by the composition, so MCP does not depend on the families). */
type RouteRunner = (route: RouteDef, req: HandlerRequest) => Promise<HandlerResult>;

/** What every tool call of one MCP POST shares. */
interface CallContext {
  requestId: string;
  services: Services;
  runRoute: RouteRunner;
  /** The POST's Authorization header: a Pro key pays every paid tool call of the request. */
  authorization: string | undefined;
}

/** What the tool calls of one POST share beyond the context: their paid work, and a count for their call ids. */
interface PostState {
  payments: PostPayments;
  calls: number;
}

/**
 * One tool call: arguments checked before any payment (an argument the input schema does not list
 * is an error result, as a bad value is), then the route's handler run inside the payment of the
 * call (shared/mcp/payment.ts: charged first, settled only when data is delivered).
 */
const callTool = async (
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
  ctx: CallContext,
  post: PostState,
): Promise<CallToolResult> => {
  const { requestId, services, runRoute } = ctx;
  // Issue 37: the watch tools run their free /v1/watches routes with the POST's Pro key.
  const watchTool = findWatchTool(name);
  if (watchTool) return callWatchTool(watchTool, args, ctx);
  const tool = findTool(name);
  if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool ${JSON.stringify(name)}; tools/list names the tools`);
  let input: { params: unknown; query: unknown };
  // Issue 37: the ETag argument of a paid tool is no route parameter.
  const { [IF_NONE_MATCH_ARG]: ifNoneMatch, ...routeArgs } = args;
  try {
    tool.argNames.parse(args);
    const { params, query } = splitArgs(tool, tool.acceptsIfNoneMatch ? routeArgs : args);
    input = parseRouteInput(tool.route, params, query);
  } catch (err) {
    return errorResult(mapError(err, requestId).body);
  }

  // Each call of a POST (a JSON-RPC batch carries many) is its own paid call.
  const callId = `${requestId}#${++post.calls}`;
  const conditional = { ifNoneMatch: typeof ifNoneMatch === 'string' ? ifNoneMatch : null, params: input.params, query: input.query };
  return paidToolCall(tool, { meta, authorization: ctx.authorization, requestId, callId, post: post.payments, conditional }, services, () =>
    runRoute(tool.route, {
      route: tool.route,
      ...(input as Pick<HandlerRequest, 'params' | 'query'>),
      headers: {},
      rawBody: null,
      requestId,
      services,
    }),
  );
};

/** An error the SDK answers as a JSON-RPC error with its own code (a ProtocolError, or any error with a numeric `code`). */
const isJsonRpcError = (err: unknown): boolean => err instanceof Error && Number.isSafeInteger((err as { code?: unknown }).code);

/**
 * The SDK's Server, except that a request whose params fail its method's schema is answered
 * JSON-RPC -32602 (invalid params), as the protocol says. The SDK's check of a spec method's
 * request (its own `initialize` included) throws a plain Error, which it answers -32603 (internal
 * error); the handlers registered here throw only errors with a JSON-RPC code, so a plain Error
 * reaching this wrapper is that check's.
 */
class ParamsCheckingServer extends Server {
  protected override _wrapHandler(method: string, handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>) {
    const wrapped = super._wrapHandler(method, handler);
    return async (request: JSONRPCRequest, ctx: ServerContext): Promise<Result> => {
      try {
        return await wrapped(request, ctx);
      } catch (err) {
        if (err instanceof Error && !isJsonRpcError(err)) {
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `invalid ${method} request: ${err.message}`);
        }
        throw err;
      }
    };
  }
}

/**
 * The SDK validates a client's answer to a server's elicitation request with this; the server never
 * elicits, so nothing reaches it. Passing it keeps the SDK from building its default (Ajv, per server,
 * i.e. per POST), and lets the MCP bundle leave Ajv out (infra/bundle/mcp-no-ajv.ts).
 */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'this server does not request input from clients' }),
};

/** tools/list: every tool with its schemas, annotations, title and price (`_meta`, null while free). */
const listTools = (config: Services['config']) => ({
  tools: [
    ...TOOLS.map((t) => ({
      name: t.name,
      title: t.route.mcp.title,
      description: toolDescription(t, config),
      inputSchema: t.inputSchema as { type: 'object' },
      outputSchema: t.outputSchema as { type: 'object' },
      annotations: TOOL_ANNOTATIONS,
      _meta: { route: t.route.id, price_usd: priceOf(t, config) },
    })),
    ...WATCH_TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema as { type: 'object' },
      outputSchema: t.outputSchema as { type: 'object' },
      annotations: t.annotations,
      _meta: { route: t.route.id, price_usd: null },
    })),
  ],
});

/** One server for one POST, whichever era it speaks. */
const buildServer = (ctx: CallContext): Server => {
  const post: PostState = { payments: new PostPayments(), calls: 0 };
  const server = new ParamsCheckingServer(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: NO_ELICITATION,
    cacheHints: { 'tools/list': LIST_CACHE_HINT, 'server/discover': LIST_CACHE_HINT },
  });
  server.setRequestHandler('tools/list', async () => listTools(ctx.services.config));
  server.setRequestHandler('tools/call', async (req) => {
    try {
      return await callTool(req.params.name, req.params.arguments ?? {}, req.params._meta, ctx, post);
    } catch (err) {
      if (isJsonRpcError(err)) throw err;
      // Never reported as the client's fault (ParamsCheckingServer would), never with internals.
      logger.error('MCP tool call failed', { requestId: ctx.requestId, tool: req.params.name, error: err as Error });
      throw new ProtocolError(ProtocolErrorCode.InternalError, `internal error (request ${ctx.requestId})`);
    }
  });
  return server;
};

/** The answer to one MCP POST, read whole (a Lambda answers buffered). */
interface McpAnswer {
  status: number;
  headers: Record<string, string>;
  /** A JSON-RPC message or batch as JSON, an SSE stream (subscriptions/listen), or '' (202). */
  body: string;
}

/** Hop-by-hop headers the SDK sets on its SSE answers: the connection is the HTTP server's (or API Gateway's) to manage. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive']);

const answerOf = async (res: Response): Promise<McpAnswer> => {
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (!HOP_BY_HOP.has(k)) headers[k] = v;
  });
  return { status: res.status, headers, body: await res.text() };
};

/** A 2025-era POST: a stateless transport that answers JSON. */
const serveLegacy = async (request: Request, ctx: CallContext): Promise<McpAnswer> => {
  const server = buildServer(ctx);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    return await answerOf(await transport.handleRequest(request));
  } finally {
    await transport.close();
    await server.close();
  }
};

/** A 2026-07-28 POST: the SDK's handler runs its checks (envelope, version, headers) and serves it. */
const serveModern = async (request: Request, ctx: CallContext): Promise<McpAnswer> => {
  const handler = createMcpHandler(() => buildServer(ctx), {
    legacy: 'reject',
    onerror: (error) => logger.warn('MCP request refused or failed', { requestId: ctx.requestId, error: error.message }),
  });
  try {
    return await answerOf(await handler.fetch(request));
  } finally {
    await handler.close();
  }
};

/**
 * DNS rebinding protection, as the Streamable HTTP transport requires (servers MUST validate
 * Origin), with the SDK's own checks: a browser request whose Origin is not the origin this
 * service is served from is refused 403, a request without Origin (an agent, a server) passes.
 * Served from a loopback address (npm start), the Host header must also name a loopback host: a
 * page on evil.example that rebinds its name to 127.0.0.1 sends Host evil.example. Behind API
 * Gateway the Host names the API's own domain or the request never reaches here.
 * @param request its URL is the public base URL (configured, else the domain the runtime received
 *   the request on; never the client's Host header)
 */
const rebindingRefusal = (request: Request): Response | undefined => {
  const served = new URL(request.url).hostname;
  const loopback = localhostAllowedHostnames().includes(served);
  return (
    (loopback ? hostHeaderValidationResponse(request, localhostAllowedHostnames()) : undefined) ??
    originValidationResponse(request, loopback ? localhostAllowedOrigins() : [served])
  );
};

/**
 * Answers one MCP POST (a JSON-RPC message or batch) of either protocol era.
 * @param request the POST as a web Request (absolute URL, the client's headers and body)
 * @param ctx the request id, services, the data routes' runner and the Pro key of the POST
 * @returns status, headers and the whole body
 */
const handleMcpPost = async (request: Request, ctx: CallContext): Promise<McpAnswer> => {
  const refused = rebindingRefusal(request);
  if (refused) return answerOf(refused);
  return (await isLegacyRequest(request)) ? serveLegacy(request, ctx) : serveModern(request, ctx);
};

export { handleMcpPost, SERVER_INFO };
export type { RouteRunner, CallContext, McpAnswer };
