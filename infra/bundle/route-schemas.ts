/**
 * Build-time JSON Schemas for the data families' bundles. The 402 of a paid route declares its
 * parameters and body as JSON Schema, converted from zod by shared/payment/route-json-schemas.ts. A data
 * family's bundle serves only its own routes, so the build converts those once and puts the answers in
 * that module's place; and since nothing else in those bundles converts, zod's JSON Schema code (about
 * 20 KB, which its classic schemas reference from every type) is replaced by stubs that throw if ever
 * called. test/infra/bundles.test.ts holds a bundled 402 to the runtime conversion.
 */
import { basename } from 'node:path';
import { createRequire } from 'node:module';
import type { Plugin } from 'esbuild';
import { bazaarExtension } from '../../shared/payment/bazaar';
import { routeJsonSchemas } from '../../shared/payment/route-json-schemas';
import { FAMILY_ROUTES, type Family } from '../../shared/routes/table';

/**
 * Families whose bundles get precomputed schemas: every family that sells data. Not discovery (it
 * converts every route for OpenAPI), MCP (every family's tools), Pro (sells nothing per route).
 */
const PRECOMPUTED: readonly Family[] = ['price', 'curve', 'inventory', 'cot', 'spreads', 'fundamentals', 'snapshot', 'decision'];

/** The data family a Lambda entry (functions/<family>.ts) serves, or null. */
const precomputedFamilyOf = (entryPath: string): Family | null => {
  const name = basename(entryPath).replace(/\.ts$/, '');
  return (PRECOMPUTED as readonly string[]).includes(name) ? (name as Family) : null;
};

/**
 * What stands in for route-json-schemas.ts in `family`'s bundle: the same exports, answering from a
 * table of the family's routes (a route of another family is a bug: it throws).
 */
const precomputedModule = (family: Family): string => {
  const table = Object.fromEntries(FAMILY_ROUTES[family].routes.map((r) => [r.id, routeJsonSchemas(r)]));
  return `// Generated at build time by infra/bundle/route-schemas.ts for the ${family} family.
const freeze = (v) => { if (v && typeof v === 'object' && !Object.isFrozen(v)) { for (const x of Object.values(v)) freeze(x); Object.freeze(v); } return v; };
const TABLE = freeze(JSON.parse(${JSON.stringify(JSON.stringify(table))}));
export const routeJsonSchemas = (route) => {
  const schemas = TABLE[route.id];
  if (!schemas) throw new Error('no JSON Schemas for ' + route.id + ' in the ${family} bundle');
  return schemas;
};
export const toolInputJsonSchema = () => {
  throw new Error('MCP tool schemas are declared by the MCP function');
};
`;
};

/**
 * What stands in for bazaar.ts in `family`'s bundle: each route's discovery extension as the
 * library builds it for the route's template, with what a request changes filled in at run time
 * (the query it asked with, the path parameters it names), so the bundle carries no
 * @x402/extensions. The bundle test holds a bundled 402's extension to the library's.
 */
const precomputedBazaarModule = (family: Family): string => {
  const table = Object.fromEntries(
    FAMILY_ROUTES[family].routes
      .filter((r) => r.priceKey !== null)
      .map((r) => {
        const template = r.path.replace(/\{(\w+)\}/g, ':$1');
        const names = [...template.matchAll(/:(\w+)/g)].map((m) => m[1]!);
        // The path-parameter matcher of the library's enrichment, built here for this template.
        const pattern = `^${template
          .split(/:\w+/)
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('([^/]+)')}$`;
        return [r.id, { extension: bazaarExtension(r, template, `https://template.invalid${template}`).bazaar, names, pattern }];
      }),
  );
  return `// Generated at build time by infra/bundle/route-schemas.ts for the ${family} family.
const TABLE = JSON.parse(${JSON.stringify(JSON.stringify(table))});
export const bazaarExtension = (route, path, url) => {
  const entry = TABLE[route.id];
  if (!entry || path.startsWith('mcp://')) throw new Error('no discovery extension for ' + route.id + ' ' + path + ' in the ${family} bundle');
  const t = entry.extension;
  let query = {};
  try { query = Object.fromEntries(new URL(url).searchParams); } catch { query = {}; }
  const m = entry.names.length ? path.match(new RegExp(entry.pattern)) : null;
  const pathParams = entry.names.length ? { pathParams: m ? Object.fromEntries(entry.names.map((n, i) => [n, m[i + 1]])) : {} } : {};
  return { bazaar: { ...t, info: { ...t.info, input: { ...t.info.input, queryParams: query, ...pathParams } } } };
};
`;
};

const ROUTE_JSON_SCHEMAS = /[\\/]shared[\\/]payment[\\/]route-json-schemas\.ts$/;
const BAZAAR = /[\\/]shared[\\/]payment[\\/]bazaar\.ts$/;
const ZOD_JSON_SCHEMA = /[\\/]node_modules[\\/]zod[\\/]v4[\\/]core[\\/](json-schema-processors|to-json-schema)\.js$/;

/** A module with the same exports as zod's JSON Schema module at `path`, each a function that throws. */
const throwingStub = (path: string): string => {
  // zod ships each module as ESM (.js) and CommonJS (.cjs) with the same exports: the latter lists them.
  const exported = Object.keys(createRequire(path)(path.replace(/\.js$/, '.cjs')) as object);
  return `const left = () => { throw new Error('zod JSON Schema conversion is left out of this bundle (infra/bundle/route-schemas.ts)'); };
export { ${exported.map((name) => `left as ${name}`).join(', ')} };`;
};

/** The esbuild plugin of a data family's bundle: its routes' schemas precomputed, zod's conversion left out. */
const precomputedRouteSchemas = (family: Family): Plugin => ({
  name: 'precomputed-route-schemas',
  setup(b) {
    b.onLoad({ filter: ROUTE_JSON_SCHEMAS }, () => ({ contents: precomputedModule(family), loader: 'js' }));
    b.onLoad({ filter: BAZAAR }, () => ({ contents: precomputedBazaarModule(family), loader: 'js' }));
    b.onLoad({ filter: ZOD_JSON_SCHEMA }, (args) => ({ contents: throwingStub(args.path), loader: 'js' }));
  },
});

export { PRECOMPUTED, precomputedFamilyOf, precomputedRouteSchemas };
