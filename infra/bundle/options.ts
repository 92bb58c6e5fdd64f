/**
 * How every Lambda entry (functions/*.ts) is bundled: one esbuild configuration, used by CDK
 * (ServiceFunction, through cli.ts), by the bundle test (test/infra/bundles.test.ts) and by the bench,
 * so the bundle that is measured is the bundle that is deployed.
 */
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { federalHolidayTable } from './federal-holidays';
import { precomputedFamilyOf, precomputedRouteSchemas } from './route-schemas';

/**
 * ESM bundles still contain CommonJS dependencies that call `require`; esbuild's shim needs a real one.
 * The alias keeps the banner from colliding with any bundled `createRequire` import.
 */
const ESM_REQUIRE_BANNER = "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);";

/**
 * Left out of every bundle: the Lambda Node.js runtime provides the AWS SDK v3 (and the @smithy
 * packages it loads), so a function carries only its own code (issue 14 measures bundles this way).
 * The SDK that runs is then the runtime's pinned version, not the lock file's: the store's client
 * options (timeouts in shared/store/client.ts) must exist there. An empty list bundles the tested
 * SDK instead, at about 340 KB per function (README "Deploy").
 */
const RUNTIME_PROVIDED: readonly string[] = ['@aws-sdk/*'];

const X402_ZOD = fileURLToPath(new URL('./x402-zod.ts', import.meta.url));
const MCP_NO_AJV = fileURLToPath(new URL('./mcp-no-ajv.ts', import.meta.url));

/** @x402/* import zod 3; inside a bundle they get the service's Zod Mini with a chained layer, x402-zod.ts (why: see that file). */
const x402OnZodMini: Plugin = {
  name: 'x402-on-zod-mini',
  setup(b) {
    b.onResolve({ filter: /^zod$/ }, (args) => (/[\\/]node_modules[\\/]@x402[\\/]/.test(args.importer) ? { path: X402_ZOD } : undefined));
  },
};

/**
 * The MCP SDK's server takes its default validator from its runtime shim (`@modelcontextprotocol/server/_shims`,
 * which on Node loads Ajv); inside a bundle it gets mcp-no-ajv.ts (why: see that file).
 */
const mcpWithoutAjv: Plugin = {
  name: 'mcp-without-ajv',
  setup(b) {
    b.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: MCP_NO_AJV }));
  },
};

/**
 * The esbuild options of one entry: minified ESM for Node 24 with a linked source map (no sources
 * inside; NODE_OPTIONS=--enable-source-maps maps stack traces), `module` before `main` so packages
 * that ship both give their tree-shakable ESM build. A data family's entry gets its routes' JSON
 * Schemas precomputed (route-schemas.ts).
 * @param name output name; writes <outdir>/<name>.mjs
 * @param entry absolute path of functions/<name>.ts
 */
const bundleOptions = (name: string, entry: string, outdir: string): BuildOptions => {
  const family = precomputedFamilyOf(entry);
  return {
    entryPoints: { [name]: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    mainFields: ['module', 'main'],
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    external: [...RUNTIME_PROVIDED],
    banner: { js: ESM_REQUIRE_BANNER },
    plugins: [x402OnZodMini, mcpWithoutAjv, federalHolidayTable, ...(family ? [precomputedRouteSchemas(family)] : [])],
    metafile: true,
    logLevel: 'warning',
  };
};

/**
 * Bundles entries into `outdir`, one build per entry (a data family's build precomputes its own routes).
 * @returns esbuild's metafile of all of them (what each input contributes: `analyzeMetafile` prints it)
 * @throws the esbuild error when an entry does not build
 * @example await bundleFunctions({ index: functionEntry('price') }, outputDir); // outputDir/index.mjs
 */
const bundleFunctions = async (entries: Readonly<Record<string, string>>, outdir: string): Promise<Metafile> => {
  const metas = await Promise.all(Object.entries(entries).map(async ([name, entry]) => (await build(bundleOptions(name, entry, outdir))).metafile!));
  return { inputs: Object.assign({}, ...metas.map((m) => m.inputs)), outputs: Object.assign({}, ...metas.map((m) => m.outputs)) };
};

const DATA_LIMIT_KB = 300;
/**
 * Issue 14's limits, in KiB of minified bundle, by entry name: the data and discovery families 300,
 * MCP 800 (it carries the MCP SDK). Pro (Stripe's SDK), ingestion and the x402 reconciler
 * have none; the bundle test and the bench print their sizes.
 */
const BUNDLE_LIMITS_KB: Readonly<Record<string, number>> = Object.freeze({
  ...Object.fromEntries(['price', 'curve', 'inventory', 'cot', 'spreads', 'fundamentals', 'snapshot', 'decision', 'discovery'].map((f) => [f, DATA_LIMIT_KB])),
  mcp: 800,
});
/**
 * Import of a bundle in a fresh Node process, as a multiple of importing the DynamoDB client alone
 * (both beyond `node -e 0`, measured in the same run by the bench): a ratio, so that a busy machine
 * moves both sides. It restates the former 150 ms against the client's ~60 ms on an idle 2-core machine.
 */
const IMPORT_LIMIT_RATIO = 2.5;

export { bundleFunctions, BUNDLE_LIMITS_KB, IMPORT_LIMIT_RATIO };
