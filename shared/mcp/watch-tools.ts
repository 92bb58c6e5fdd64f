/**
 * MCP tools for webhook watches (issue 37): create, list, read and delete the watches of the Pro key
 * in the MCP POST's Authorization header. Each tool is one /v1/watches route and runs that route's
 * own handler in-process (shared/families/watches: Pro key, route-table check of the path, receiver
 * check, limit per key, the secret shown once), so MCP and HTTP cannot disagree. The routes are free;
 * a delivery is what is charged. Not in TOOLS: those are the data tools, paid per call.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from '../zod';
import { mapError } from '../errors/error-mapper';
import { parseRouteInput } from '../routes/input';
import type { HandlerRequest } from '../http/types';
import { logger } from '../observability/logger';
import { findRoute, type RouteDef } from '../routes/table';
import { MAX_WATCHES_PER_KEY } from '../schemas/watches';
import type { Services } from '../services';
import { errorResult } from './payment';
import { bodySchemaOf, inlineSingleUse, jsonSchemaOf, strictInputSchema, type JsonSchema } from './tool-schemas';

interface WatchTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly route: RouteDef;
  /** The route's request body (create) or path parameters (read, delete): the tool's arguments. */
  readonly args: z.core.$ZodObject;
  readonly annotations: Readonly<{ readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean }>;
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema;
}

const routeOf = (id: string): RouteDef => {
  const route = findRoute(id);
  if (!route) throw new Error(`watch tool: no route ${id}`);
  return route;
};

/** What a tool takes: the body of a route that has one, else its path parameters (a list takes nothing). */
const argsOf = (route: RouteDef): z.core.$ZodObject => {
  const schema = route.body ?? route.params;
  if (!(schema instanceof z.$ZodObject)) throw new Error(`watch tool: ${route.id} takes no object`);
  return schema;
};

const READS = Object.freeze({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });

/**
 * What a watch body's summary may weigh: four more tools had to fit the 48 KB of tools/list
 * (OUTPUT_BODY_BUDGET_BYTES), so a watch answer is described by its keys (the Watch schemas of
 * /openapi.json have every field). The answers are small and flat; a model reads them as they come.
 */
const WATCH_BODY_BUDGET_BYTES = 300;
/** A refusal: the error body (INVALID_API_KEY, INVALID_PARAMETER, NOT_FOUND, WATCH_LIMIT …), by its key. */
const ERROR_BRANCH: JsonSchema = Object.freeze({ type: 'object', required: ['error'] });

/** The route's 200 body or a refusal, one `type: object` root as MCP requires. */
const outputSchemaOf = (route: RouteDef): JsonSchema => {
  const { $defs, ...body } = bodySchemaOf(route.output, WATCH_BODY_BUDGET_BYTES);
  return inlineSingleUse({ type: 'object', anyOf: [body, ERROR_BRANCH], ...($defs ? { $defs } : {}) });
};

const watchTool = (spec: Omit<WatchTool, 'args' | 'inputSchema' | 'outputSchema'>): WatchTool => {
  const args = argsOf(spec.route);
  let input: JsonSchema | undefined;
  let output: JsonSchema | undefined;
  return Object.freeze({
    ...spec,
    args,
    // Converted on first read, as the data tools are: only tools/list needs them.
    get inputSchema() {
      input ??= strictInputSchema(jsonSchemaOf(z.strictObject(z.shapeOf(args)), 'input'));
      return input;
    },
    get outputSchema() {
      output ??= outputSchemaOf(spec.route);
      return output;
    },
  });
};

const WATCH_TOOLS: readonly WatchTool[] = Object.freeze([
  watchTool({
    name: 'create_watch',
    title: 'Create a webhook watch',
    description: `Pro key. Each release that changes a paid GET path's answer is POSTed to url, signed (Standard Webhooks); each delivery costs the path's price in credits, once, on a 2xx. Answers the id and signing secret (shown once). At most ${MAX_WATCHES_PER_KEY}.`,
    route: routeOf('POST /v1/watches'),
    // Creates a watch (not idempotent: each call is a new one) that will POST to a URL outside.
    annotations: Object.freeze({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true }),
  }),
  watchTool({
    name: 'list_watches',
    title: 'List webhook watches',
    description: "Pro key. The key's watches: state and why, deliveries, failures, credits charged.",
    route: routeOf('GET /v1/watches'),
    annotations: READS,
  }),
  watchTool({
    name: 'get_watch',
    title: 'Read a webhook watch',
    description: 'Pro key. One watch with its recent deliveries (dead letters included).',
    route: routeOf('GET /v1/watches/{id}'),
    annotations: READS,
  }),
  watchTool({
    name: 'delete_watch',
    title: 'Delete a webhook watch',
    description: 'Pro key. Deletes a watch: nothing more is delivered.',
    route: routeOf('DELETE /v1/watches/{id}'),
    annotations: Object.freeze({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }),
  }),
]);

const BY_NAME: ReadonlyMap<string, WatchTool> = new Map(WATCH_TOOLS.map((t) => [t.name, t]));
const findWatchTool = (name: string): WatchTool | undefined => BY_NAME.get(name);

/** How a watch tool reaches its route's handler (given by the composition: shared/families/mcp). */
type WatchRouteRunner = (route: RouteDef, req: HandlerRequest) => Promise<{ body: unknown }>;

/**
 * Pure: the HTTP request a tool call stands for. A null argument is one not given (strict tool
 * calling sends null for each optional argument left out), as for the data tools.
 * @throws the route's own validation errors (a bad watch id), before any handler runs
 */
const requestOf = (
  tool: WatchTool,
  args: Record<string, unknown>,
  base: Pick<HandlerRequest, 'requestId' | 'services'> & { authorization: string | undefined },
): HandlerRequest => {
  z.strictObject(Object.fromEntries(Object.keys(z.shapeOf(tool.args)).map((n) => [n, z.optional(z.unknown())]))).parse(args);
  const given = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null));
  const headers: Record<string, string> = base.authorization === undefined ? {} : { authorization: base.authorization };
  // The handler of a route with a body parses it with the route's schema, exactly as for POST /v1/watches.
  const input = tool.route.body ? { params: {}, query: {} } : parseRouteInput(tool.route, given, {});
  const rawBody = tool.route.body ? JSON.stringify(given) : null;
  return { route: tool.route, ...(input as Pick<HandlerRequest, 'params' | 'query'>), headers, rawBody, requestId: base.requestId, services: base.services };
};

/**
 * One watch tool call: the route's handler with the POST's Authorization, its body as
 * structuredContent; a refusal (no Pro key, a path that is not a paid GET route, an internal
 * receiver, the limit) is an error result with the body HTTP would answer.
 */
const callWatchTool = async (
  tool: WatchTool,
  args: Record<string, unknown>,
  ctx: { requestId: string; services: Services; authorization: string | undefined; runRoute: WatchRouteRunner },
): Promise<CallToolResult> => {
  try {
    const { body } = await ctx.runRoute(tool.route, requestOf(tool, args, ctx));
    return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body as Record<string, unknown> };
  } catch (err) {
    const mapped = mapError(err, ctx.requestId, ctx.services.config.STAGE === 'dev');
    // The INTERNAL body says it was logged with the request id.
    if (mapped.statusCode >= 500) logger.error('MCP watch tool failed', { requestId: ctx.requestId, tool: tool.name, error: err as Error });
    return errorResult(mapped.body);
  }
};

export { WATCH_TOOLS, findWatchTool, callWatchTool };
export type { WatchTool };
