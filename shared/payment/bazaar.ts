/**
 * The x402 Bazaar discovery extension of a 402 challenge, built with @x402/extensions so that
 * facilitators that index settled resources list each route with its method, parameters, route
 * template and output shape. Schemas are JSON Schema 2020-12 with no $ref (registered ids inlined);
 * an output schema too large for a header is left out rather than truncated.
 */
import { bazaarResourceServerExtension, declareDiscoveryExtension } from '@x402/extensions/bazaar';
import * as z from 'zod';
import type { RouteDef } from '../routes/table';

/** PAYMENT-REQUIRED travels in a header; API Gateway allows 10 KB for all of them. */
const MAX_OUTPUT_SCHEMA_CHARS = 3_000;

const deepFreeze = <T>(value: T): T => {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
};

/**
 * JSON Schemas by zod schema and direction, converted once per process: the route schemas are
 * module constants, and converting them took about three quarters of every 402's time.
 */
const CONVERTED = { input: new WeakMap<z.ZodType, Record<string, unknown>>(), output: new WeakMap<z.ZodType, Record<string, unknown>>() };
const inlineSchema = (schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> => {
  let converted = CONVERTED[io].get(schema);
  if (!converted) {
    const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', metadata: z.registry() }) as Record<string, unknown>;
    converted = deepFreeze(rest);
    CONVERTED[io].set(schema, converted);
  }
  return converted;
};

const OUTPUTS = new WeakMap<z.ZodType, { schema: Record<string, unknown> } | null>();
const outputOf = (route: Pick<RouteDef, 'output'>) => {
  let output = OUTPUTS.get(route.output);
  if (output === undefined) {
    const schema = inlineSchema(route.output, 'output');
    output = JSON.stringify(schema).length <= MAX_OUTPUT_SCHEMA_CHARS ? { schema } : null;
    OUTPUTS.set(route.output, output);
  }
  return output ?? undefined;
};

/** An MCP tool's arguments: its route's params and query as one object, built once per route. */
const TOOL_INPUTS = new WeakMap<object, z.ZodType>();
const toolInputOf = (route: Pick<RouteDef, 'params' | 'query'>): z.ZodType => {
  let schema = TOOL_INPUTS.get(route);
  if (!schema) {
    schema = z.object({ ...(route.params as z.ZodObject).shape, ...(route.query as z.ZodObject).shape });
    TOOL_INPUTS.set(route, schema);
  }
  return schema;
};

/**
 * The `extensions` of a challenge for a route.
 * @param path the concrete path being bought (HTTP), or the mcp://tool/<name> resource
 * @param url the request's URL: its query is the input example (what this client asked for)
 */
const bazaarExtension = (
  route: Pick<RouteDef, 'method' | 'path' | 'params' | 'query' | 'output' | 'mcp'>,
  path: string,
  url: string,
): Record<string, unknown> => {
  const output = outputOf(route);
  if (path.startsWith('mcp://')) {
    const inputSchema = inlineSchema(toolInputOf(route), 'input');
    return declareDiscoveryExtension({
      toolName: route.mcp?.tool ?? path.slice('mcp://tool/'.length),
      transport: 'streamable-http',
      inputSchema,
      ...(output ? { output } : {}),
    });
  }
  let input: Record<string, string> = {};
  try {
    input = Object.fromEntries(new URL(url).searchParams);
  } catch {
    input = {};
  }
  const declared = declareDiscoveryExtension({
    input,
    inputSchema: inlineSchema(route.query, 'input'),
    ...(route.path.includes('{') ? { pathParamsSchema: inlineSchema(route.params, 'input') } : {}),
    ...(output ? { output } : {}),
  } as Parameters<typeof declareDiscoveryExtension>[0]);
  const enriched = bazaarResourceServerExtension.enrichDeclaration!(declared.bazaar, {
    method: route.method,
    adapter: { getPath: () => path },
    routePattern: route.path.replace(/\{(\w+)\}/g, ':$1'),
  } as never);
  return { bazaar: enriched };
};

export { bazaarExtension };
