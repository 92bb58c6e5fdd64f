/**
 * `npm run bench` (second part): the issue-14 targets, each a ratio or a figure measured in this
 * one run on this machine. `--check` exits non-zero when a target is missed.
 *
 *   throughput   cache-hit GET /v1/price/CL through the local runtime vs a bare node:http server
 *                answering the same bytes (the ceiling of the machine), same client, same concurrency
 *   pro debit    latency a Pro key adds to the in-process handler (one atomic debit + usage entry)
 *   bundles      every Lambda entry bundled as CDK does (esbuild, minified, AWS SDK external):
 *                size, and import time in a fresh Node process
 *   tails        p99 of /v1/snapshot/all and /v1/decision/all vs /v1/price/CL at 10 concurrent
 *   memory       RSS of the process serving after 10,000 mixed requests vs after start
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { build } = await import('esbuild');
const { startLocalStack } = await import('../../infra/local/stack');
const { priceHandlers } = await import('../../shared/families/price/handlers');
const { createFamilyHandler } = await import('../../shared/http/family-handler');
const { DynamoCreditLedger, newKeyRecord } = await import('../../shared/pro/credit-ledger');
const { generateKey, hashKey, keyHint } = await import('../../shared/pro/keys');
const { createDocumentClient } = await import('../../shared/store/client');

const CHECK = process.argv.includes('--check');
const results: Array<{ what: string; value: string; target: string; ok: boolean }> = [];
const record = (what: string, value: string, target: string, ok: boolean) => results.push({ what, value, target, ok });

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
/** One GET over a keep-alive agent; resolves with the latency in ms. */
const get = (port: number, path: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`${path}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });

/** `total` requests at `concurrency`; returns requests per second and the latencies. */
const load = async (port: number, paths: string[], total: number, concurrency: number) => {
  const latencies: number[] = [];
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        latencies.push(await get(port, paths[i % paths.length]!));
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return { rps: total / seconds, latencies };
};

const event = (headers: Record<string, string>): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: 'GET /v1/price/{code}',
    rawPath: '/v1/price/CL',
    rawQueryString: '',
    headers: { host: '127.0.0.1', ...headers },
    pathParameters: { code: 'CL' },
    requestContext: { requestId: `b-${Math.random()}`, domainName: '127.0.0.1', http: { method: 'GET', path: '/v1/price/CL' } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

const main = async () => {
  const id = Math.random().toString(36).slice(2, 8);
  // The per-key rate limit would refuse a benchmark's burst; it is not what is measured here.
  const stack = await startLocalStack({
    env: { OBSERVATIONS_TABLE: `bench-obs-${id}`, CREDITS_TABLE: `bench-cred-${id}`, PRO_RATE_LIMIT_PER_SECOND: '10000' },
  });
  const port = Number(new URL(stack.url).port);
  try {
    const rssAtStart = process.memoryUsage().rss;

    // Throughput: the same bytes from a bare server and from the runtime (cache hit after warm-up).
    const sample = await fetch(`${stack.url}/v1/price/CL`);
    const bytes = Buffer.from(await sample.arrayBuffer());
    const headers = Object.fromEntries(sample.headers);
    const bare = createServer((_req, res) => {
      res.writeHead(200, headers);
      res.end(bytes);
    });
    await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
    const barePort = (bare.address() as AddressInfo).port;
    await load(port, ['/v1/price/CL'], 500, 20);
    await load(barePort, ['/v1/price/CL'], 500, 20);
    const runtime = await load(port, ['/v1/price/CL'], 5000, 50);
    const ceiling = await load(barePort, ['/v1/price/CL'], 5000, 50);
    bare.close();
    const ratio = runtime.rps / ceiling.rps;
    record(
      'cache-hit /v1/price/CL throughput vs bare node:http',
      `${runtime.rps.toFixed(0)} / ${ceiling.rps.toFixed(0)} rps = ${ratio.toFixed(2)}x`,
      '>= 0.5x',
      ratio >= 0.5,
    );

    // Tails at 10 concurrent.
    const p99 = async (path: string) => quantile((await load(port, [path], 200, 10)).latencies, 0.99);
    await load(port, ['/v1/snapshot/all', '/v1/decision/all'], 20, 2);
    const priceP99 = await p99('/v1/price/CL');
    for (const path of ['/v1/snapshot/all', '/v1/decision/all']) {
      const p = await p99(path);
      record(
        `${path} p99 vs /v1/price/CL p99 (10 concurrent)`,
        `${p.toFixed(1)} / ${priceP99.toFixed(1)} ms = ${(p / priceP99).toFixed(1)}x`,
        '<= 10x',
        p / priceP99 <= 10,
      );
    }

    // Pro debit: added latency of the key lane in the in-process handler.
    const ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
    const key = generateKey();
    await ledger.put({ ...newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }), creditsLeft: 1_000_000 });
    const handler = createFamilyHandler('price', priceHandlers, () => stack.services);
    const ctx = { awsRequestId: 'bench' } as Context;
    const unpaid: number[] = [];
    const pro: number[] = [];
    for (let i = 0; i < 230; i++) {
      for (const [xs, h] of [
        [unpaid, {}],
        [pro, { authorization: `Bearer ${key}` }],
      ] as const) {
        const t0 = process.hrtime.bigint();
        const res = await handler(event(h), ctx);
        if (res.statusCode !== 200) throw new Error(`pro bench: ${res.statusCode} ${res.body}`);
        if (i >= 30) xs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }
    const added = quantile(pro, 0.5) - quantile(unpaid, 0.5);
    record('Pro-key call: median latency added (debit + usage entry, embedded store)', `${added.toFixed(2)} ms`, '<= 5 ms', added <= 5);

    // Memory after 10,000 mixed requests.
    const mixed = [
      '/v1/price/CL',
      '/v1/prices?codes=CL,NG,GC',
      '/v1/history/CL?limit=100',
      '/v1/inventory/eia',
      '/v1/cot/CL',
      '/v1/spreads/crack',
      '/v1/fx/EURUSD',
      '/health',
      '/v1/catalog',
      '/v1/snapshot/energy',
    ];
    await load(port, mixed, 10_000, 50);
    const rssRatio = process.memoryUsage().rss / rssAtStart;
    record(
      'RSS after 10,000 mixed requests vs after start',
      `${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} / ${(rssAtStart / 2 ** 20).toFixed(0)} MB = ${rssRatio.toFixed(2)}x`,
      '<= 1.5x',
      rssRatio <= 1.5,
    );
  } finally {
    await stack.close();
    agent.destroy();
  }

  // Bundles, as CDK builds them.
  // Inside node_modules so that the bundles resolve the AWS SDK (external, as on Lambda) from the project.
  const out = join(process.cwd(), 'node_modules', '.cache', 'bench-bundles');
  mkdirSync(out, { recursive: true });
  const entries = readdirSync('functions').filter((f) => f.endsWith('.ts'));
  const baseline = quantile(
    Array.from({ length: 3 }, () => {
      const t0 = process.hrtime.bigint();
      spawnSync(process.execPath, ['-e', '0']);
      return Number(process.hrtime.bigint() - t0) / 1e6;
    }),
    0.5,
  );
  for (const entry of entries) {
    const outfile = join(out, entry.replace(/\.ts$/, '.mjs'));
    await build({
      entryPoints: [join('functions', entry)],
      bundle: true,
      minify: true,
      platform: 'node',
      target: 'node24',
      format: 'esm',
      outfile,
      external: ['@aws-sdk/*'],
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
      logLevel: 'silent',
    });
    const kb = statSync(outfile).size / 1024;
    const t0 = process.hrtime.bigint();
    const imported = spawnSync(
      process.execPath,
      ['-e', `import(${JSON.stringify(outfile)}).then(() => 0, (e) => { console.error(e.message); process.exit(1); })`],
      {
        // What the function's environment holds on Lambda (the curve entry checks its configuration at import).
        env: { ...process.env, OBSERVATIONS_TABLE: 'observations', CREDITS_TABLE: 'credits' },
      },
    );
    const ms = Number(process.hrtime.bigint() - t0) / 1e6 - baseline;
    const limit = entry === 'mcp.ts' ? 800 : 300;
    record(
      `bundle ${entry} (minified; import in a fresh process)`,
      `${kb.toFixed(0)} KB; ${imported.status === 0 ? `${ms.toFixed(0)} ms` : `import failed: ${imported.stderr.toString().trim().slice(0, 60)}`}`,
      `<= ${limit} KB, <= 150 ms`,
      kb <= limit && imported.status === 0 && ms <= 150,
    );
  }
};

await main();
console.log(`\nTargets (issue 14), one run on this machine: node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
console.log('what'.padEnd(72), 'measured'.padEnd(40), 'target'.padEnd(22), 'met');
for (const r of results) console.log(r.what.padEnd(72), r.value.padEnd(40), r.target.padEnd(22), r.ok ? 'yes' : 'NO');
const missed = results.filter((r) => !r.ok).length;
console.log(`${results.length - missed} of ${results.length} targets met`);
if (CHECK && missed) process.exit(1);
