/**
 * The MCP server: stateless Streamable HTTP with JSON responses, a new server and transport per
 * request (the SDK refuses reuse since its fix for a cross-client leak). Tools run the same route
 * handlers as HTTP, in-process, after the same input validation and payment decision.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import * as z from 'zod';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, type CallToolResult, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { mapError } from '../errors/error-mapper';
import { parseRouteInput } from '../http/family-handler';
import type { HandlerRequest, HandlerResult } from '../http/types';
import type { RouteDef } from '../routes/table';
import type { Services } from '../services';
import { errorResult, paidToolCall, PostPayments } from './payment';
import { findTool, TOOL_ANNOTATIONS, TOOLS, toolDescription, type McpTool } from './tools';

const SERVER_INFO = { name: 'commodity-data', title: 'Commodity data service', version: '0.1.0' };
const INSTRUCTIONS =
  'Primary-source commodity observations (EIA, FRED, World Bank, CFTC, USDA, USGS). Free tools: get_catalog, get_release_calendar, get_health. ' +
  'Paid tools: pay per call with x402 (retry the call with the payment payload in params._meta["x402/payment"]) or send Authorization: Bearer <Pro key>.';

/** Splits a tool's arguments into the route's path and query parameters. */
const splitArgs = (tool: McpTool, args: Record<string, unknown>) => {
  const params: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) (tool.pathArgs.includes(k) ? params : query)[k] = v;
  return { params, query };
};

/** Runs a route's own handler in-process (given by the composition, so MCP does not depend on the families). */
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
 * One tool call: arguments checked before any payment, then the route's handler run inside the
 * payment of the call (shared/mcp/payment.ts: charged first, settled only when data is delivered).
 */
const callTool = async (
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
  ctx: CallContext,
  post: PostState,
): Promise<CallToolResult> => {
  const { requestId, services, runRoute } = ctx;
  const tool = findTool(name);
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(name)}; tools/list names the tools`);
  let input: { params: unknown; query: unknown };
  try {
    const { params, query } = splitArgs(tool, args);
    input = parseRouteInput(tool.route, params, query);
  } catch (err) {
    return errorResult(mapError(err, requestId).body);
  }

  // Each call of a POST (a JSON-RPC batch carries many) is its own paid call.
  const callId = `${requestId}#${++post.calls}`;
  return paidToolCall(tool, { meta, authorization: ctx.authorization, requestId, callId, post: post.payments }, services, () =>
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

type SetRequestHandler = Server['setRequestHandler'];

/**
 * The SDK's Server, except that a request whose params fail its method's schema is answered
 * JSON-RPC -32602 (invalid params), as the protocol says. The SDK parses each request with the
 * registered schema outside any handler, where a failed parse becomes -32603 (internal error), so
 * every handler (the SDK's own initialize and ping too) is registered under a schema that names
 * only its method and parses the request itself.
 */
class ParamsCheckingServer extends Server {
  override setRequestHandler(...[schema, handler]: Parameters<SetRequestHandler>): ReturnType<SetRequestHandler> {
    const full = schema as unknown as z.ZodType & { shape: { method: { value: string } } };
    const method = full.shape.method.value;
    const byMethod = z.looseObject({ method: z.literal(method) }) as unknown as typeof schema;
    const checked = (request: unknown, extra: unknown) => {
      const parsed = full.safeParse(request);
      if (!parsed.success) throw new McpError(ErrorCode.InvalidParams, `invalid ${method} request: ${z.prettifyError(parsed.error)}`);
      return (handler as (r: unknown, e: unknown) => unknown)(parsed.data, extra);
    };
    return super.setRequestHandler(byMethod, checked as typeof handler);
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

const buildServer = (ctx: CallContext): Server => {
  const { services } = ctx;
  const post: PostState = { payments: new PostPayments(), calls: 0 };
  const server = new ParamsCheckingServer(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: NO_ELICITATION });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((t) => ({
      name: t.name,
      title: t.route.mcp.title,
      description: toolDescription(t, services.config),
      inputSchema: t.inputSchema as { type: 'object' },
      outputSchema: t.outputSchema as { type: 'object' },
      annotations: { title: t.route.mcp.title, ...TOOL_ANNOTATIONS },
      _meta: { route: t.route.id, price_usd: t.route.priceUsd },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (req) => callTool(req.params.name, req.params.arguments ?? {}, req.params._meta, ctx, post));
  return server;
};

/**
 * Answers one MCP POST (a JSON-RPC message or batch) as a web Response.
 * @param request the POST as a web Request (absolute URL, the client's headers and body)
 * @param ctx the request id, services, the data routes' runner and the Pro key of the POST
 */
const handleMcpPost = async (request: Request, ctx: CallContext): Promise<Response> => {
  const server = buildServer(ctx);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    return await transport.handleRequest(request);
  } finally {
    await transport.close();
    await server.close();
  }
};

export { handleMcpPost, SERVER_INFO };
export type { RouteRunner, CallContext };
