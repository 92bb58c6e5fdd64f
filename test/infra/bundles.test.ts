/**
 * Every Lambda entry bundled with the configuration CDK deploys (infra/bundle/options.ts): under its
 * issue-14 size limit, and importable in a fresh Node process. Also checks the one substitution that
 * configuration makes (x402's zod 3 served by Zod Mini with the chained methods they call): it covers
 * what the x402 packages call, and their schemas and facilitator client answer as they do on zod 3. Import time is the bench's
 * (`npx tsx test/bench/targets.ts`): timing is not reliable on a shared test machine.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HTTPFacilitatorClient } from '@x402/core/http';
import { PaymentPayloadSchema, PaymentRequiredSchema } from '@x402/core/schemas';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_LIMITS_KB, bundleFunctions } from '../../infra/bundle/options';
import { holidayTableModule, TABLE_YEARS } from '../../infra/bundle/federal-holidays';
import { PRECOMPUTED } from '../../infra/bundle/route-schemas';
import { observedHolidays } from '../../shared/calendar/federal-holidays';
import { z as x402Zod } from '../../infra/bundle/x402-zod';
import { loadConfig } from '../../shared/config';
import { buildPaymentRequired } from '../../shared/payment/challenge';
import { findRoute } from '../../shared/routes/table';

const ROOT = process.cwd();
const ENTRIES = readdirSync(join(ROOT, 'functions'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, ''));
const run = promisify(execFile);

// Inside node_modules, so that the bundles resolve the AWS SDK (external, as on Lambda) from the project.
let outdir: string;
let metafile: Metafile;

beforeAll(async () => {
  mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true }); // absent after a fresh `npm ci`
  outdir = mkdtempSync(join(ROOT, 'node_modules', '.cache', 'bundle-test-'));
  metafile = await bundleFunctions(Object.fromEntries(ENTRIES.map((n) => [n, join(ROOT, 'functions', `${n}.ts`)])), outdir);
});

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

/** The largest inputs of a bundle, for the failure message. */
const topInputs = (name: string): string => {
  const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith(`/${name}.mjs`))![1];
  return Object.entries(output.inputs)
    .sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)
    .slice(0, 12)
    .map(([path, v]) => `${(v.bytesInOutput / 1024).toFixed(1)} KB ${path.replace(/.*node_modules\//, '')}`)
    .join('\n');
};

describe('Lambda bundles (as CDK builds them)', () => {
  it.each(ENTRIES)('%s stays under its size limit', (name) => {
    const kb = statSync(join(outdir, `${name}.mjs`)).size / 1024;
    const limit = BUNDLE_LIMITS_KB[name];
    console.info(`bundle ${name}: ${kb.toFixed(0)} KB${limit ? ` (limit ${limit} KB)` : ' (no limit)'}`);
    if (limit) expect(kb, `${name}.mjs is ${kb.toFixed(0)} KB; largest inputs:\n${topInputs(name)}`).toBeLessThanOrEqual(limit);
  });

  it("carries Zod Mini, not classic zod, and zod's English messages (clients read them in a 400)", async () => {
    // The MCP SDK imports classic zod itself (its own schemas); the MCP bundle has no such limit to keep.
    for (const [path, output] of Object.entries(metafile.outputs).filter(([p]) => p.endsWith('.mjs') && !p.endsWith('/mcp.mjs'))) {
      const zod = Object.keys(output.inputs).filter((p) => /node_modules[\\/]zod[\\/]/.test(p));
      // Classic zod (its v4/classic modules) or a runtime `z.core.X` (every locale: shared/zod.ts).
      expect(
        zod.filter((p) => /[\\/]v4[\\/]classic[\\/]/.test(p)),
        path,
      ).toEqual([]);
      expect(
        zod.filter((p) => /[\\/]v4[\\/]locales[\\/]/.test(p) && !p.endsWith('en.js')),
        path,
      ).toEqual([]);
    }
    const script = `
      const { handler } = await import(${JSON.stringify(join(outdir, 'snapshot.mjs'))});
      const res = await handler({
        version: '2.0', routeKey: 'GET /v1/snapshot/{sector}', rawPath: '/v1/snapshot/energy', rawQueryString: 'view=wide',
        headers: { host: 'api.example.com', 'x-forwarded-proto': 'https' }, queryStringParameters: { view: 'wide' }, pathParameters: { sector: 'energy' },
        requestContext: { http: { method: 'GET', path: '/v1/snapshot/energy', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' }, requestId: 'r1', routeKey: 'GET /v1/snapshot/{sector}', stage: '$default', domainName: 'api.example.com' },
        isBase64Encoded: false,
      }, { awsRequestId: 'r1', functionName: 'snapshot', getRemainingTimeInMillis: () => 29000 });
      console.log(JSON.stringify([res.statusCode, JSON.parse(res.body)]));
    `;
    const env = { ...process.env, OBSERVATIONS_TABLE: 'observations', CREDITS_TABLE: 'credits' };
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env });
    const [status, body] = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(status).toBe(400);
    // zod's English message for an enum (Mini alone says "Invalid input").
    expect(body.error.details.issues).toEqual([{ path: 'view', message: 'Invalid option: expected one of "compact"|"full"' }]);
  });

  it('discovery, a free function, bundles neither the payment nor the credit ledger, and no data bundle the ingestion registry', () => {
    const inputsOf = (name: string) => Object.keys(Object.entries(metafile.outputs).find(([path]) => path.endsWith(`/${name}.mjs`))![1].inputs);
    expect(inputsOf('discovery').filter((p) => /payment\/ledger|pro\/credit-ledger|batch\/dynamo-channel-store/.test(p))).toEqual([]);
    // The read path takes its release rows (sources/releases.ts); licenses, URLs and observed_at rules are ingestion's.
    for (const name of ['price', 'snapshot', 'decision'])
      expect(
        inputsOf(name).filter((p) => p.endsWith('sources/registry.ts')),
        name,
      ).toEqual([]);
  });

  it('every bundle imports in a fresh Node process', async () => {
    // What every function's environment holds on Lambda (the curve entry checks its configuration at import).
    const env = { ...process.env, OBSERVATIONS_TABLE: 'observations', CREDITS_TABLE: 'credits' };
    // The data bundles asked for a 402 and the MCP bundle asked for its tools (below) are imported in a
    // fresh process there: a Node start and a large import each, not repeated here.
    const importedBelow = new Set<string>([...PRECOMPUTED.filter((f) => f !== 'curve'), 'mcp']);
    expect(ENTRIES.filter((n) => importedBelow.has(n)).sort()).toEqual([...importedBelow].sort());
    for (const name of ENTRIES.filter((n) => !importedBelow.has(n))) {
      const file = join(outdir, `${name}.mjs`);
      await expect(run(process.execPath, ['-e', `await import(${JSON.stringify(file)})`, '--input-type=module'], { env }), name).resolves.toBeDefined();
    }
  });
});

/** A paid GET of each data family, as API Gateway passes it: route, path, path parameters, query. */
const PAID_GET: Readonly<Record<string, readonly [route: string, path: string, params: Record<string, string>, query: string]>> = Object.freeze({
  price: ['GET /v1/price/{code}', '/v1/price/CL', { code: 'CL' }, ''],
  inventory: ['GET /v1/inventory/eia/{series}', '/v1/inventory/eia/cushing', { series: 'cushing' }, 'view=full'],
  cot: ['GET /v1/cot/{code}', '/v1/cot/GC', { code: 'GC' }, ''],
  spreads: ['GET /v1/spreads/crack', '/v1/spreads/crack', {}, ''],
  fundamentals: ['GET /v1/fundamentals/wasde', '/v1/fundamentals/wasde', {}, 'commodity=soybeans'],
  snapshot: ['GET /v1/snapshot/{sector}', '/v1/snapshot/energy', { sector: 'energy' }, ''],
  decision: ['GET /v1/decision/all', '/v1/decision/all', {}, ''],
});

describe('data bundles with precomputed route schemas (infra/bundle/route-schemas.ts)', () => {
  // curve is free while INDICATIVE_FUTURES is off (its default), so it answers no 402 to compare.
  it.each(PRECOMPUTED.filter((f) => f !== 'curve'))(
    "%s: zod's JSON Schema code left out, and its 402 declares what the runtime conversion declares",
    async (family) => {
      const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith(`/${family}.mjs`))![1];
      const conversion = Object.entries(output.inputs).filter(([p]) => /zod[\\/]v4[\\/]core[\\/](json-schema-processors|to-json-schema)\.js$/.test(p));
      expect(
        conversion.map(([, v]) => v.bytesInOutput).every((b) => b < 1024),
        JSON.stringify(conversion),
      ).toBe(true);

      const [routeId, path, params, query] = PAID_GET[family]!;
      // The bundled handler in a fresh process, asked for a challenge (demo mode, X-Force-402).
      const script = `
      const { handler } = await import(${JSON.stringify(join(outdir, `${family}.mjs`))});
      const res = await handler({
        version: '2.0', routeKey: ${JSON.stringify(routeId)}, rawPath: ${JSON.stringify(path)}, rawQueryString: ${JSON.stringify(query)},
        headers: { host: 'api.example.com', 'x-forwarded-proto': 'https', 'x-force-402': '1' },
        queryStringParameters: Object.fromEntries(new URLSearchParams(${JSON.stringify(query)})),
        pathParameters: ${JSON.stringify(params)},
        requestContext: { http: { method: 'GET', path: ${JSON.stringify(path)}, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' }, requestId: 'r1', routeKey: ${JSON.stringify(routeId)}, stage: '$default', domainName: 'api.example.com' },
        isBase64Encoded: false,
      }, { awsRequestId: 'r1', functionName: ${JSON.stringify(family)}, getRemainingTimeInMillis: () => 29000 });
      console.log(JSON.stringify([res.statusCode, JSON.parse(res.body)]));
    `;
      const env = { ...process.env, OBSERVATIONS_TABLE: 'observations', CREDITS_TABLE: 'credits' };
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env });
      const [status, doc] = JSON.parse(stdout.trim().split('\n').at(-1)!);
      expect(status).toBe(402);
      const config = loadConfig({ OBSERVATIONS_TABLE: 'observations', CREDITS_TABLE: 'credits' });
      const expected = buildPaymentRequired(findRoute(routeId as never)!, path, doc.resource.url, config);
      expect(doc.extensions.bazaar).toEqual(JSON.parse(JSON.stringify(expected.extensions.bazaar)));
      expect(doc.extensions.bazaar.schema ?? doc.extensions.bazaar.info).toBeDefined();
    },
    30_000,
  );
});

describe('US federal holidays as a build-time table (infra/bundle/federal-holidays.ts)', () => {
  it('no bundle carries the holiday library or its date engine', () => {
    // The MCP SDK imports classic zod itself (its own schemas); the MCP bundle has no such limit to keep.
    for (const [path, output] of Object.entries(metafile.outputs).filter(([p]) => p.endsWith('.mjs') && !p.endsWith('/mcp.mjs'))) {
      const engine = Object.keys(output.inputs).filter((p) => /node_modules[\\/](dayjs|@18f)[\\/]/.test(p));
      expect(engine, path).toEqual([]);
    }
  });

  it('answers every year of its table as the library does, and refuses a year outside it', async () => {
    const file = join(outdir, 'federal-holidays-table.mjs');
    writeFileSync(file, holidayTableModule());
    const bundled = (await import(file)) as { observedHolidays: (y: number) => Array<{ date: string; name: string }> };
    expect(TABLE_YEARS.from).toBeLessThanOrEqual(1986); // EIA's daily history begins in 1986
    for (let y = TABLE_YEARS.from; y <= TABLE_YEARS.to; y++) expect(bundled.observedHolidays(y), String(y)).toEqual(observedHolidays(y));
    expect(() => bundled.observedHolidays(TABLE_YEARS.to + 1)).toThrow(/no US federal holidays/);
  });
});

describe('MCP bundle without Ajv (infra/bundle/mcp-no-ajv.ts)', () => {
  it('leaves Ajv out and still answers both protocol eras: initialize and tools/list (2025), server/discover and tools/list (2026-07-28)', async () => {
    const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith('/mcp.mjs'))![1];
    // Ajv as a package, or as the SDK's own bundled copy (@modelcontextprotocol/server/dist/ajvProvider-*.mjs).
    expect(Object.keys(output.inputs).filter((p) => /node_modules[\\/](ajv|ajv-formats|fast-uri)[\\/]|[\\/]ajvProvider-[^\\/]*$/.test(p))).toEqual([]);
    // JSON-RPC POSTs through the bundled Lambda handler, as API Gateway would send them.
    const script = `
      const { handler } = await import(${JSON.stringify(join(outdir, 'mcp.mjs'))});
      const modern = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
      const post = (message, headers = {}) => handler({
        version: '2.0', routeKey: 'POST /api/mcp', rawPath: '/api/mcp', rawQueryString: '',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: 'api.example.com', 'x-forwarded-proto': 'https', ...headers },
        requestContext: { http: { method: 'POST', path: '/api/mcp', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' }, requestId: 'r-' + message.id, routeKey: 'POST /api/mcp', stage: '$default', domainName: 'api.example.com' },
        body: JSON.stringify(message), isBase64Encoded: false,
      }, { awsRequestId: 'r-' + message.id, functionName: 'mcp', getRemainingTimeInMillis: () => 29000 });
      const v2026 = (id, method) => post({ jsonrpc: '2.0', id, method, params: { _meta: modern } }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method });
      const answers = [
        await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bundle-test', version: '1' } } }),
        await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        await v2026(3, 'server/discover'),
        await v2026(4, 'tools/list'),
      ];
      console.log(JSON.stringify(answers.map((a) => [a.statusCode, JSON.parse(a.body)])));
    `;
    const env = { ...process.env, OBSERVATIONS_TABLE: 'observations', CREDITS_TABLE: 'credits' };
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env });
    const [[initStatus, init], [listStatus, list], [discoverStatus, discover], [modernStatus, modernList]] = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect([initStatus, listStatus, discoverStatus, modernStatus]).toEqual([200, 200, 200, 200]);
    expect(init.result).toMatchObject({ protocolVersion: '2025-06-18', capabilities: { tools: {} } });
    expect(list.result.tools.map((t: { name: string }) => t.name)).toContain('get_price');
    expect(discover.result).toMatchObject({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} } });
    expect(modernList.result).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public' });
    expect(modernList.result.tools).toEqual(list.result.tools);
  });
});

/**
 * The zod code of the x402 packages' dist files: files that import zod, or the `z` a chunk of theirs
 * re-exports (@x402/core's http client takes it from its schemas chunk).
 */
const x402ZodFiles = (): string[] =>
  ['core', 'evm', 'extensions'].flatMap((pkg) => {
    const dir = join(ROOT, 'node_modules', '@x402', pkg, 'dist', 'esm');
    return readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.mjs'))
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .filter((text) => /from "zod"|import \{\s*z\s*\} from "\.\/chunk-/.test(text));
  });

/**
 * The methods x402 calls on zod schemas: in each `var Name = <zod expression>;` statement, every
 * `.method(` after a call's `)` or after the name of another such schema (`Any.optional()`).
 * Callbacks inside (`(val) => val.includes(":")`) are neither, so they are not counted.
 */
const chainedMethodsOf = (text: string): Set<string> => {
  const statements = [...text.matchAll(/^var (\w+) = ([\s\S]*?);$/gm)];
  const schemas = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const [, name, rhs] of statements) {
      if (!schemas.has(name!) && (/^z2?\./.test(rhs!) || schemas.has(/^\w+/.exec(rhs!)?.[0] ?? ''))) grew = Boolean(schemas.add(name!));
    }
  }
  const after = new RegExp(`(?:\\)|\\b(?:${[...schemas].join('|') || '$^'}))\\s*\\.([A-Za-z]+)\\(`, 'g');
  const methods = new Set<string>();
  for (const [, name, rhs] of statements) if (schemas.has(name!)) for (const m of rhs!.matchAll(after)) methods.add(m[1]!);
  return methods;
};

describe('x402 packages on Zod Mini with chained methods (infra/bundle/x402-zod.ts)', () => {
  const files = x402ZodFiles();

  it('provides every zod constructor the x402 packages call', () => {
    const used = new Set(files.flatMap((text) => [...text.matchAll(/\bz2?\.([A-Za-z]+)\(/g)].map((m) => m[1]!)));
    expect(used.size).toBeGreaterThan(5);
    expect([...used].filter((name) => !(name in x402Zod))).toEqual([]);
  });

  it('gives every schema, and every chained result, each method the x402 packages chain', () => {
    const chained = new Set(files.flatMap((text) => [...chainedMethodsOf(text)]));
    // What the packages are known to chain: the scan finds them (and whatever a new release adds).
    expect([...chained]).toEqual(
      expect.arrayContaining(['min', 'max', 'regex', 'positive', 'optional', 'nullable', 'nullish', 'transform', 'refine', 'default']),
    );
    const z = x402Zod;
    const schemas = {
      string: z.string(),
      number: z.number(),
      boolean: z.boolean(),
      unknown: z.unknown(),
      literal: z.literal(1),
      enum: z.enum(['a', 'b']),
      custom: z.custom(() => true),
      array: z.array(z.string()),
      object: z.object({ a: z.string() }),
      record: z.record(z.unknown()),
      union: z.union([z.string(), z.number()]),
      discriminatedUnion: z.discriminatedUnion('k', [z.object({ k: z.literal(1) })]),
    };
    // Every constructor the facade offers has a sample here.
    expect(Object.keys(schemas).sort()).toEqual(Object.keys(z).sort());
    const args: Record<string, unknown[]> = { min: [1], max: [1], regex: [/a/], refine: [() => true], default: ['a'], transform: [(v: unknown) => v] };
    const missing: string[] = [];
    for (const [name, schema] of Object.entries(schemas)) {
      const s = schema as unknown as Record<string, ((...a: unknown[]) => Record<string, unknown>) | undefined>;
      for (const first of chained) {
        if (typeof s[first] !== 'function') {
          missing.push(`${name}().${first}`);
          continue;
        }
        const next = s[first]!(...(args[first] ?? []));
        for (const then of chained) if (typeof next[then] !== 'function') missing.push(`${name}().${first}().${then}`);
      }
    }
    expect(missing).toEqual([]);
  });

  describe('answers as on zod 3', () => {
    let bundled: {
      PaymentPayloadSchema: typeof PaymentPayloadSchema;
      PaymentRequiredSchema: typeof PaymentRequiredSchema;
      HTTPFacilitatorClient: typeof HTTPFacilitatorClient;
    };
    let server: Server;
    let url: string;
    /** The body the fake facilitator answers next, by path. */
    const answers: Record<string, unknown> = {};

    beforeAll(async () => {
      const entry = join(outdir, 'x402-entry.ts');
      writeFileSync(
        entry,
        "export { PaymentPayloadSchema, PaymentRequiredSchema } from '@x402/core/schemas';\nexport { HTTPFacilitatorClient } from '@x402/core/http';\n",
      );
      const meta = await bundleFunctions({ x402: entry }, outdir);
      // The bundle really uses the facade: no input from x402's own zod 3, none from classic zod 4.
      expect(Object.keys(meta.inputs).filter((p) => p.includes('@x402/core/node_modules/zod') || p.includes('zod/v4/classic/'))).toEqual([]);
      bundled = await import(join(outdir, 'x402.mjs'));
      server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(answers[req.url ?? ''] ?? {}));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

    const accepted = {
      scheme: 'exact',
      network: 'eip155:84532',
      amount: '10000',
      asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      payTo: '0x1111111111111111111111111111111111111111',
      maxTimeoutSeconds: 60,
      extra: { name: 'USDC', version: '2' },
    };
    const auth = {
      from: '0x2222222222222222222222222222222222222222',
      to: accepted.payTo,
      value: '10000',
      validAfter: '0',
      validBefore: '9999999999',
      nonce: `0x${'ab'.repeat(32)}`,
    };
    const payloads: unknown[] = [
      { x402Version: 2, accepted, payload: { signature: '0x12', authorization: auth } },
      {
        x402Version: 2,
        resource: { url: 'https://x/v1/price/CL', description: null, mimeType: null },
        accepted,
        payload: { authorization: auth },
        extensions: null,
      },
      { x402Version: 2, resource: { url: 'https://x', serviceName: 'x'.repeat(40) }, accepted, payload: {} },
      { x402Version: 2, accepted: { ...accepted, network: 'base-sepolia' }, payload: {} },
      { x402Version: 2, accepted: { ...accepted, maxTimeoutSeconds: 0 }, payload: {} },
      { x402Version: 2, accepted: { ...accepted, amount: '' }, payload: {} },
      { x402Version: 2, accepted, payload: [] },
      { x402Version: 2, accepted, payload: null },
      { x402Version: 2, accepted, payload: {}, extensions: [] },
      { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: { signature: '0x12', authorization: auth } },
      { x402Version: 1, scheme: '', network: 'base-sepolia', payload: {} },
      { x402Version: 3, accepted, payload: {} },
      { accepted, payload: {} },
      [],
      null,
      'x',
    ];

    it('payment payloads: the same verdicts and parsed values', () => {
      for (const p of payloads) {
        const z3 = PaymentPayloadSchema.safeParse(p);
        const mini = bundled.PaymentPayloadSchema.safeParse(p);
        expect(mini.success, JSON.stringify(p)).toBe(z3.success);
        if (z3.success) expect(mini.data).toEqual(z3.data);
        else expect(mini.error!.issues.map((i) => i.path.join('.')).sort(), JSON.stringify(p)).toEqual(z3.error.issues.map((i) => i.path.join('.')).sort());
      }
    });

    it('payment-required documents: the same verdicts', () => {
      const doc = { x402Version: 2, resource: { url: 'https://x/v1/price/CL' }, accepts: [accepted] };
      for (const p of [
        doc,
        { ...doc, accepts: [] },
        { ...doc, error: null },
        { ...doc, resource: undefined },
        { x402Version: 1, accepts: [{ ...accepted, maxAmountRequired: '1', resource: 'https://x', description: '', mimeType: 'application/json' }] },
      ]) {
        expect(bundled.PaymentRequiredSchema.safeParse(p).success, JSON.stringify(p)).toBe(PaymentRequiredSchema.safeParse(p).success);
      }
    });

    it('facilitator answers: the same results and the same refusals', async () => {
      const requirements = accepted as never;
      const payload = payloads[0] as never;
      const cases: Array<Record<string, unknown>> = [
        { '/verify': { isValid: true, payer: auth.from }, '/settle': { success: true, transaction: '0xabc', network: 'eip155:84532', payer: auth.from } },
        {
          '/verify': { isValid: false, invalidReason: 'invalid_exact_evm_signature', payer: null, extra: null },
          '/settle': { success: false, errorReason: 'x', transaction: '', network: 'eip155:84532' },
        },
        { '/verify': { isValid: 'yes' }, '/settle': { success: true, network: 'eip155:84532' } },
        { '/verify': {}, '/settle': { success: true, transaction: '0xabc', network: 84532 } },
        // /supported: extensions and signers default to [] and {} when left out.
        { '/supported': { kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532', extra: null }] } },
        { '/supported': { kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }], extensions: ['bazaar'], signers: { 'eip155:*': ['0x1'] } } },
        { '/supported': { kinds: [{ x402Version: '2', scheme: 'exact', network: 'eip155:84532' }] } },
        { '/supported': { kinds: [], signers: { x: 'y' } } },
      ];
      const outcome = async (client: HTTPFacilitatorClient, op: 'verify' | 'settle' | 'getSupported') => {
        try {
          return { ok: op === 'getSupported' ? await client.getSupported() : await client[op](payload, requirements) };
        } catch (err) {
          return { failed: (err as Error).name };
        }
      };
      for (const c of cases) {
        Object.assign(answers, c);
        for (const [path, op] of [
          ['/verify', 'verify'],
          ['/settle', 'settle'],
          ['/supported', 'getSupported'],
        ] as const) {
          if (!(path in c)) continue;
          const z3 = await outcome(new HTTPFacilitatorClient({ url }), op);
          const mini = await outcome(new bundled.HTTPFacilitatorClient({ url }), op);
          expect(mini, `${op} ${JSON.stringify(c[path])}`).toEqual(z3);
        }
      }
    });
  });
});
