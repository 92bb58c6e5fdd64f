/**
 * MCP tools, generated from the route table: one per route that carries `mcp` text (every paid
 * route, plus the free catalog, calendar and health). Arguments, JSON Schemas and texts come from
 * the route, so a tool can never drift from its HTTP route.
 */
import * as z from '../zod';
import type { Config } from '../config';
import { isChargeable, ROUTES, type McpSpec, type RouteDef } from '../routes/table';
import { ErrorBody, PaymentRequiredBody } from '../schemas';
import { bodySchemaOf, inlineSingleUse, jsonSchemaOf, strictInputSchema, summarizeBody, type JsonSchema } from './tool-schemas';

interface McpTool {
  readonly name: string;
  readonly route: RouteDef & { mcp: McpSpec };
  /** Arguments that are path parameters of the route; the others are its query. */
  readonly pathArgs: readonly string[];
  /** A paid tool takes `if_none_match` (issue 37), which is no parameter of its route. */
  readonly acceptsIfNoneMatch: boolean;
  /**
   * Accepts exactly the declared argument names (values are the route's schemas' to check): a call
   * with an argument the input schema does not list is refused, as its `additionalProperties: false` says.
   */
  readonly argNames: z.ZodMiniType;
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema;
}

/** Issue 37: a paid tool's ETag argument (`_meta["commodity-data/etag"]` of an earlier answer); not a route parameter. */
const IF_NONE_MATCH_ARG = 'if_none_match';
// Explained once in the server's instructions (tools/list must stay small): an etag, or null (strictInputSchema makes it nullable).
const IfNoneMatchArg = z.optional(z.string());
const argsShapeOf = (route: RouteDef): z.core.$ZodShape => ({
  ...z.shapeOf(route.params),
  ...z.shapeOf(route.query),
  ...(route.priceKey ? { [IF_NONE_MATCH_ARG]: IfNoneMatchArg } : {}),
});

/** Issue 37: what a paid tool answers when `if_none_match` names the current data. */
const NOT_MODIFIED_SCHEMA: JsonSchema = { type: 'object', required: ['not_modified', 'etag'] };

/**
 * The tool's arguments: path parameters and query parameters of the route in one object, as the
 * strict schema every model's tool calling takes (optional ones nullable; shared/mcp/tool-schemas.ts).
 * Query values that HTTP sends as strings are coerced by the route's own schema, so numbers work too.
 */
const inputSchemaOf = (route: RouteDef): JsonSchema => strictInputSchema(jsonSchemaOf(z.strictObject(argsShapeOf(route)), 'input'));

/**
 * What an isError result carries as structuredContent, summarized (SDK v1 clients validate it
 * against the output schema too): the error body of every refusal, and on a priced tool the x402
 * PaymentRequired object. Built once: every tool shares them.
 */
let refusals: { error: JsonSchema; paymentRequired: JsonSchema } | undefined;
const refusalSchemas = () => {
  refusals ??= {
    error: summarizeBody(jsonSchemaOf(ErrorBody, 'output'), 1),
    paymentRequired: summarizeBody(jsonSchemaOf(PaymentRequiredBody, 'output'), 1),
  };
  return refusals;
};

/**
 * The route's 200 body, or a refusal; the root says `type: object` as MCP requires, and the
 * definitions of every branch sit in one `$defs`.
 */
const outputSchemaOf = (route: RouteDef): JsonSchema => {
  const { error, paymentRequired } = refusalSchemas();
  const branches = [bodySchemaOf(route.output), error, ...(route.priceKey ? [paymentRequired, NOT_MODIFIED_SCHEMA] : [])];
  const defs: JsonSchema = {};
  const anyOf = branches.flatMap(({ $defs, ...branch }) => {
    Object.assign(defs, $defs);
    // A body that is itself a union (compact or full view) adds its branches, not a nested anyOf.
    return Object.keys(branch).length === 1 && Array.isArray(branch.anyOf) ? (branch.anyOf as JsonSchema[]) : [branch];
  });
  return inlineSingleUse({ type: 'object', anyOf, ...(Object.keys(defs).length ? { $defs: defs } : {}) });
};

const hasMcp = (r: RouteDef): r is RouteDef & { mcp: McpSpec } => r.mcp !== undefined;

/**
 * One tool. Its JSON Schemas are converted on first read: only tools/list needs them, and converting
 * every tool's schemas at import cost the MCP function about 40 ms of cold start that a tool call
 * never needed.
 */
const toolOf = (route: RouteDef & { mcp: McpSpec }): McpTool => {
  let input: JsonSchema | undefined;
  let output: JsonSchema | undefined;
  const names = Object.keys(argsShapeOf(route));
  return Object.freeze({
    name: route.mcp.tool,
    route,
    pathArgs: Object.keys(z.shapeOf(route.params)),
    acceptsIfNoneMatch: route.priceKey !== null,
    argNames: z.strictObject(Object.fromEntries(names.map((n) => [n, z.optional(z.unknown())]))),
    get inputSchema() {
      input ??= inputSchemaOf(route);
      return input;
    },
    get outputSchema() {
      output ??= outputSchemaOf(route);
      return output;
    },
  });
};

const TOOLS: readonly McpTool[] = Object.freeze(ROUTES.filter(hasMcp).map(toolOf));

const BY_NAME: ReadonlyMap<string, McpTool> = new Map(TOOLS.map((t) => [t.name, t]));
const findTool = (name: string): McpTool | undefined => BY_NAME.get(name);

/** The USD price of a call under this configuration, null while the tool is free. */
const priceOf = (tool: McpTool, config: Pick<Config, 'INDICATIVE_FUTURES'>): string | null => (isChargeable(tool.route, config) ? tool.route.priceUsd : null);

/** The description an agent reads: what the data is, then its price (how to pay is in the server's instructions). */
const toolDescription = (tool: McpTool, config: Pick<Config, 'INDICATIVE_FUTURES'>): string => {
  const price = priceOf(tool, config);
  return `${tool.route.mcp.description} ${price ? `Price: ${price} USD per call (x402 or Pro credits).` : 'Free.'}`;
};

/** Annotations directories require: every tool reads published data and changes nothing. */
const TOOL_ANNOTATIONS = Object.freeze({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });

export { TOOLS, IF_NONE_MATCH_ARG, findTool, priceOf, toolDescription, TOOL_ANNOTATIONS };
export type { McpTool };
