/**
 * The JSON Schemas a route's 402 declares in its Bazaar extension: the query and path parameters
 * as inputs, the body as output, and an MCP tool's arguments, converted from the route table's zod
 * schemas once per process. The data families' Lambda bundles do not run this: their build puts its
 * answers for their own routes in its place (infra/bundle/route-schemas.ts).
 */
import * as z from '../zod';
import type { RouteDef } from '../routes/table';

type JsonSchema = Record<string, unknown>;

/** What a route's challenge declares. */
interface RouteJsonSchemas {
  query: JsonSchema;
  /** Null for a path without parameters. */
  params: JsonSchema | null;
  /** Null when the body's schema is too large for the PAYMENT-REQUIRED header. */
  output: JsonSchema | null;
}

/** PAYMENT-REQUIRED travels in a header; API Gateway allows 10 KB for all of them. */
const MAX_OUTPUT_SCHEMA_CHARS = 3_000;

const deepFreeze = <T>(value: T): T => {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
};

/** JSON Schema 2020-12 with no $ref (registered ids inlined) and no $schema member. */
const inline = (schema: z.core.$ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', metadata: z.registry() }) as JsonSchema;
  return rest;
};

const CONVERTED = new WeakMap<object, RouteJsonSchemas>();

/**
 * The schemas of a route, converted on first use (converting took about three quarters of a 402's time).
 * @example routeJsonSchemas(findRoute('GET', '/v1/price/CL')!.route).params // { type: 'object', properties: { code: … } }
 */
const routeJsonSchemas = (route: Pick<RouteDef, 'id' | 'path' | 'params' | 'query' | 'output'>): RouteJsonSchemas => {
  let schemas = CONVERTED.get(route);
  if (!schemas) {
    const output = inline(route.output, 'output');
    schemas = deepFreeze({
      query: inline(route.query, 'input'),
      params: route.path.includes('{') ? inline(route.params, 'input') : null,
      output: JSON.stringify(output).length <= MAX_OUTPUT_SCHEMA_CHARS ? output : null,
    });
    CONVERTED.set(route, schemas);
  }
  return schemas;
};

const TOOL_INPUTS = new WeakMap<object, JsonSchema>();

/** An MCP tool's arguments: its route's params and query as one object. */
const toolInputJsonSchema = (route: Pick<RouteDef, 'params' | 'query'>): JsonSchema => {
  let schema = TOOL_INPUTS.get(route);
  if (!schema) {
    schema = deepFreeze(inline(z.object({ ...z.shapeOf(route.params), ...z.shapeOf(route.query) }), 'input'));
    TOOL_INPUTS.set(route, schema);
  }
  return schema;
};

export { routeJsonSchemas, toolInputJsonSchema };
export type { RouteJsonSchemas, JsonSchema };
