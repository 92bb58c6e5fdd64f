/**
 * MCP tools, generated from the route table: one per route that carries `mcp` text (every paid
 * route, plus the free catalog, calendar and health). Input and output JSON Schemas come from the
 * route's zod schemas, so a tool can never drift from its HTTP route.
 */
import * as z from 'zod';
import type { Config } from '../config';
import { isChargeable, ROUTES, type McpSpec, type RouteDef } from '../routes/table';
import { ErrorBody, PaymentRequiredBody } from '../schemas';

type JsonSchema = Record<string, unknown>;

interface McpTool {
  readonly name: string;
  readonly route: RouteDef & { mcp: McpSpec };
  /** Arguments that are path parameters of the route; the others are its query. */
  readonly pathArgs: readonly string[];
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema;
}

/** Draft-07 JSON Schema (what MCP clients' validators read) with shared definitions hoisted to the root. */
const toJson = (schema: z.ZodType, io: 'input' | 'output', defs: Record<string, unknown>): JsonSchema => {
  const {
    $schema: _,
    definitions,
    ...rest
  } = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as JsonSchema & {
    definitions?: Record<string, unknown>;
  };
  Object.assign(defs, definitions);
  return rest;
};

const shapeOf = (schema: z.ZodType): Record<string, z.ZodType> => (schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {});

/**
 * The tool's arguments: path parameters and query parameters of the route in one object. Query
 * values that HTTP sends as strings are coerced by the route's own schema, so numbers work too.
 */
const inputSchemaOf = (route: RouteDef): JsonSchema => {
  const args = z.strictObject({ ...shapeOf(route.params), ...shapeOf(route.query) });
  const defs: Record<string, unknown> = {};
  const json = toJson(args, 'input', defs);
  return Object.keys(defs).length ? { ...json, definitions: defs } : json;
};

/**
 * The route's 200 body, or (SDK clients validate structuredContent even on errors) the x402
 * PaymentRequired object or the error body. The root says `type: object` as MCP requires.
 */
const outputSchemaOf = (route: RouteDef): JsonSchema => {
  const defs: Record<string, unknown> = {};
  const anyOf = [toJson(route.output, 'output', defs), toJson(PaymentRequiredBody, 'output', defs), toJson(ErrorBody, 'output', defs)];
  return { type: 'object', anyOf, ...(Object.keys(defs).length ? { definitions: defs } : {}) };
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
  return Object.freeze({
    name: route.mcp.tool,
    route,
    pathArgs: Object.keys(shapeOf(route.params)),
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

/** The description an agent reads: what the data is, then its price (or that it is free now). */
const toolDescription = (tool: McpTool, config: Pick<Config, 'INDICATIVE_FUTURES'>): string => {
  const price = isChargeable(tool.route, config)
    ? `Price: ${tool.route.priceUsd} USD per call (x402 USDC via _meta["x402/payment"], or Pro credits with Authorization: Bearer).`
    : 'Free.';
  return `${tool.route.mcp.description} Same data as ${tool.route.id}. ${price}`;
};

/** Annotations directories require: every tool reads published data and changes nothing. */
const TOOL_ANNOTATIONS = Object.freeze({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });

export { TOOLS, findTool, toolDescription, TOOL_ANNOTATIONS };
export type { McpTool };
