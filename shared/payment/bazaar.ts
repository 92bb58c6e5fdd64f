/**
 * The x402 Bazaar discovery extension of a 402 challenge, built with @x402/extensions so that
 * facilitators that index settled resources list each route with its method, parameters, route
 * template and output shape. Schemas are JSON Schema 2020-12 with no $ref (registered ids inlined);
 * an output schema too large for a header is left out rather than truncated.
 */
import { bazaarResourceServerExtension, declareDiscoveryExtension } from '@x402/extensions/bazaar';
import type { RouteDef } from '../routes/table';
import { routeJsonSchemas, toolInputJsonSchema } from './route-json-schemas';

/**
 * The `extensions` of a challenge for a route.
 * @param path the concrete path being bought (HTTP), or the mcp://tool/<name> resource
 * @param url the request's URL: its query is the input example (what this client asked for)
 */
const bazaarExtension = (
  route: Pick<RouteDef, 'id' | 'method' | 'path' | 'params' | 'query' | 'output' | 'mcp'>,
  path: string,
  url: string,
): Record<string, unknown> => {
  const schemas = routeJsonSchemas(route);
  const output = schemas.output ? { schema: schemas.output } : undefined;
  if (path.startsWith('mcp://')) {
    const inputSchema = toolInputJsonSchema(route);
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
    inputSchema: schemas.query,
    ...(schemas.params ? { pathParamsSchema: schemas.params } : {}),
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
