/**
 * `npm run bench` (second part): the issue-14 targets, each a ratio or a figure measured in this
 * one run on this machine. `--check` exits non-zero when a target is missed.
 *
 *   throughput   cache-hit GET /v1/price/CL through the local runtime vs a bare node:http server
 *                answering the same bytes (the ceiling of the machine), same client, same concurrency,
 *                in rounds alternating which goes first (the median of the rounds' ratios)
 *   pro debit    latency a Pro key adds to the in-process handler (one atomic debit + usage entry),
 *                as a ratio to one bare TransactWriteItems of the same two items on the same store
 *   receipts     (issue 36) the same Pro-key call's added latency with its signed receipt vs the
 *                same services without a receipt signer, a pair per round in alternating order (the
 *                pairs' median difference over the unsigned call's median added latency)
 *   bundles      (bundle-rows.ts) every Lambda entry bundled as CDK does (infra/bundle/options.ts: esbuild,
 *                minified, AWS SDK external): size, and import time in a fresh Node process
 *   tails        p99 of /v1/snapshot/all and /v1/decision/all vs /v1/price/CL at 10 concurrent, and
 *                the handler time of a warm /v1/snapshot/all
 *   x402 verify  latency our own work adds to a verify-only paid call (decode, terms, signature form,
 *                nonce claim and release; the signer is the facilitator's verdict) with a zero-latency
 *                facilitator stub, against the floor the issue set (one EIP-712 recovery + one put)
 *   402 peer     402 challenges per second vs the official @x402/express middleware on express
 *                answering the same challenge (same client, same concurrency)
 *   ingestion    observations parsed and upserted per second for a 10,000-row history vs a bare
 *                BatchWrite loop writing the same items
 *   as_known_at  (issue 25) p50 of a year of /v1/history/CL at a past instant vs the same window
 *                without it, on an `npm start` whose store holds vintages (a run revised WTI's 2026
 *                points); the throughput row runs on that same server
 *   memory       RSS of an `npm start` process after 10,000 mixed requests vs after start (the
 *                server in its own process, as a user runs it; the load comes from this one)
 *   deferred     issue 38's rows from test/bench/deferred-exact.ts (its own process): deferred exact
 *                p50 vs @x402/express on 2 s blocks, settle-first vs the reference, Lambda time
 *                deferred vs settle-first, answer-to-settlement p95
 *   x402 lanes   issue 23's rows from test/bench/batch-lane.ts (its own process): batch vs exact
 *                repeat-call p50 with 2 s blocks, on-chain transactions per 1,000 calls, and our
 *                own work per voucher
 *   news         issue 37's rows from test/bench/news.ts (its own process): a 304 with a payment
 *                attached vs a free GET, ingestion -> webhook 2xx with 100 watches, 10,000 watches
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { BENCH_BUNDLES, bundleRows } = await import('./bundle-rows');
const { startLocalStack } = await import('../../infra/local/stack');
const { priceHandlers } = await import('../../shared/families/price/handlers');
const { createFamilyHandler } = await import('../../shared/http/family-handler');
const { PRICE_ROUTES, SNAPSHOT_ROUTES } = await import('../../shared/routes/table');
const { DynamoCreditLedger, newKeyRecord } = await import('../../shared/pro/credit-ledger');
const { generateKey, hashKey, keyHint } = await import('../../shared/pro/keys');
const { createDocumentClient } = await import('../../shared/store/client');
const { FAMILY_HANDLERS } = await import('../../shared/families');
const { eiaSpot } = await import('../../shared/sources/eia-spot');
const { findSource } = await import('../../shared/sources/registry');
const { BatchWriteCommand, PutCommand, TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
const { authorizationTypes } = await import('@x402/evm');
const { recoverTypedDataSigner } = await import('../../shared/payment/signer');
const { privateKeyToAccount, generatePrivateKey } = await import('viem/accounts');
const { b64, nowS, signAuthorization, USDC, v1Payload } = await import('../payment/helpers');
const { startTestStore } = await import('../helpers/store');
const { mapLimit } = await import('../../shared/concurrency/map-limit');
const { loadConfig } = await import('../../shared/config');
const { runSource } = await import('../../shared/sources/runner');
const { DynamoObservationStore } = await import('../../shared/store/observation-store');
const { addDays } = await import('../../shared/dates');

const CHECK = process.argv.includes('--check');
/**
 * `--only <names>` (comma-separated) runs just those parts, so one row can be measured alone:
 * `inproc` (tails, Pro debit, signed receipts, x402 verify), `throughput` (as_known_at and cache-hit
 * rows on one `npm start`), `challenge`, `paid`, `ingestion`, `memory`, `sub` (the sub-benches),
 * `bundles`; `hotpath` is `inproc,throughput`. Without it, everything runs.
 * @example tsx test/bench/targets.ts --only hotpath
 */
const ONLY = ((): ReadonlySet<string> | null => {
  const i = process.argv.indexOf('--only');
  if (i < 0) return null;
  const names = (process.argv[i + 1] ?? '').split(',').flatMap((n) => (n === 'hotpath' ? ['inproc', 'throughput'] : [n]));
  return new Set(names);
})();
const runs = (part: string): boolean => ONLY === null || ONLY.has(part);
const results: Array<{ what: string; value: string; target: string; ok: boolean }> = [];
const record = (what: string, value: string, target: string, ok: boolean) => results.push({ what, value, target, ok });

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
/** One GET over a keep-alive agent; resolves with the latency in ms. */
const get = (port: number, path: string, status = 200): Promise<number> =>
  new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === status ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`${path}: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });

/** `total` requests at `concurrency`; returns requests per second and the latencies. */
const load = async (port: number, paths: string[], total: number, concurrency: number, status = 200) => {
  const latencies: number[] = [];
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        latencies.push(await get(port, paths[i % paths.length]!, status));
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return { rps: total / seconds, latencies };
};

const event = (
  headers: Record<string, string>,
  path = '/v1/price/CL',
  routeKey = 'GET /v1/price/{code}',
  pathParameters: Record<string, string> | undefined = { code: 'CL' },
): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: { host: '127.0.0.1', ...headers },
    pathParameters,
    requestContext: { requestId: `b-${Math.random()}`, domainName: '127.0.0.1', http: { method: 'GET', path } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
};
const close = (server: Server) => new Promise<void>((r) => server.close(() => r()));

/** A free loopback port. */
const freePort = async (): Promise<number> => {
  const s = createServer();
  const port = await listen(s);
  await close(s);
  return port;
};

/** Resident set size of a process (Linux /proc), in bytes. */
const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

/** A server in its own process (node with tsx, as `npm start` runs), ready once it prints "listening on". */
const startChild = async (args: string[], env: Record<string, string> = {}) => {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${out}`)));
  });
  return {
    pid: child.pid!,
    /** What the process printed up to "listening on". */
    output: out,
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
};

/** `npm start` on free ports and a fresh data folder, with extra settings. */
const startServerProcess = async (env: Record<string, string> = {}) => {
  const [port, dynamoPort] = [await freePort(), await freePort()];
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-data-'));
  const child = await startChild(['infra/local/start.ts'], { PORT: String(port), DYNAMODB_PORT: String(dynamoPort), LOCAL_DATA_DIR: dataDir, ...env });
  return {
    port,
    dynamoPort,
    pid: child.pid,
    output: child.output,
    close: async () => {
      await child.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

/**
 * Vintages in the store an `npm start` serves, written the way production writes them: an EIA spot
 * run through the runner whose WTI figures of 2026 are the replayed ones plus 0.01 USD/bbl (bench
 * values, not a publication), so each of them keeps its replayed value as a vintage.
 * @returns how many vintages the run wrote
 */
const reviseServedWti = async (dynamoPort: number): Promise<number> => {
  const config = loadConfig({
    OBSERVATIONS_TABLE: 'observations',
    CREDITS_TABLE: 'credits',
    DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamoPort}`,
    AWS_REGION: 'us-east-1',
    EIA_API_KEY: 'bench',
  });
  const doc = createDocumentClient(config);
  try {
    const samples = await eiaSpot.samples();
    const fetch = async (url: string) => {
      const id = decodeURIComponent(/seriesid\/([^?]+)/.exec(url)![1]!);
      const text = new TextDecoder().decode(samples.find((p) => p.name.endsWith(`/${id}.json`))!.body);
      const revised =
        id === 'PET.RWTC.D'
          ? text.replace(
              /"period":"(2026-[^"]+)","series":"RWTC","value":"([^"]+)"/g,
              (_m, d: string, v: string) => `"period":"${d}","series":"RWTC","value":"${(Number(v) + 0.01).toFixed(2)}"`,
            )
          : text;
      return new Response(revised);
    };
    const r = await runSource(eiaSpot, { mode: 'live', store: new DynamoObservationStore(doc, config.OBSERVATIONS_TABLE), config, fetch: fetch as never });
    if (r.status !== 'ok') throw new Error(`bench revision run: ${r.message}`);
    return Number(/(\d+) revision/.exec(r.message)?.[1] ?? 0);
  } finally {
    doc.destroy();
  }
};

const MIXED = [
  '/v1/price/CL',
  '/v1/prices?codes=CL,NG,GC',
  '/v1/history/CL?limit=100',
  '/v1/inventory/eia',
  '/v1/cot/CL',
  '/v1/fundamentals/wasde',
  '/v1/fx/EURUSD',
  '/health',
  '/v1/catalog',
  '/v1/snapshot/energy',
];

const PAY_TO = '0x1111111111111111111111111111111111111111';
/**
 * A Pro call adds its debit transaction plus the read-back of the key for the budget headers (a
 * consistent GetItem) and the lane's own work: within two bare transactions. A ratio to the store's
 * own transaction holds on a loaded machine, where a figure in ms does not.
 */
const PRO_DEBIT_RATIO = 2;
/** Issue 36: signing a Pro call's receipt (one Ed25519 signature, one SHA-256 of the body) adds at most 10 % to the call's own work. */
const RECEIPT_SIGNING_RATIO = 1.1;
/** Measured rounds of the in-process calls (after 30 warm-up rounds): a signed/unsigned pair is a few percent apart, within a loaded machine's noise over fewer. */
const IN_PROCESS_ROUNDS = Number(process.env.BENCH_IN_PROCESS_ROUNDS ?? 401);

/** In-process rows on one local stack: tails, snapshot handler time, Pro debit, signed receipts, x402 verify-only. */
const inProcessRows = async () => {
  const id = Math.random().toString(36).slice(2, 8);
  // Demo mode serves unpaid calls and still verifies a payment that is sent; the facilitator is a
  // zero-latency stub, so the verify-only figure is our own work. The per-key rate limit would
  // refuse a benchmark's burst; it is not what is measured here.
  const stubFacilitator = {
    verify: async (p: { payload: { authorization: { from: string } } }) => ({ isValid: true, payer: p.payload.authorization.from }),
    settle: async () => Promise.reject(new Error('verify-only bench: no settlement')),
    getSupported: async () => ({ kinds: [], extensions: [], signers: {} }),
  };
  const stack = await startLocalStack({
    env: { OBSERVATIONS_TABLE: `bench-obs-${id}`, CREDITS_TABLE: `bench-cred-${id}`, PRO_RATE_LIMIT_PER_SECOND: '10000', X402_PAY_TO: PAY_TO },
    overrides: { payment: { facilitator: stubFacilitator as never } },
  });
  const port = Number(new URL(stack.url).port);
  try {
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
    const snapshot = createFamilyHandler(SNAPSHOT_ROUTES, FAMILY_HANDLERS.snapshot, () => stack.services);
    const snapshotMs: number[] = [];
    for (let i = 0; i < 60; i++) {
      const t0 = process.hrtime.bigint();
      const res = await snapshot(event({}, '/v1/snapshot/all', 'GET /v1/snapshot/all', undefined), { awsRequestId: 'bench' } as Context);
      if (res.statusCode !== 200) throw new Error(`snapshot bench: ${res.statusCode}`);
      if (i >= 10) snapshotMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const snapMedian = quantile(snapshotMs, 0.5);
    record('/v1/snapshot/all handler time, warm cache (median, in-process)', `${snapMedian.toFixed(2)} ms`, '< 20 ms', snapMedian < 20);

    // Pro debit and x402 verify-only: latency added to the unpaid in-process handler call.
    const ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
    const key = generateKey();
    await ledger.put({ ...newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }), creditsLeft: 1_000_000 });
    const handler = createFamilyHandler(PRICE_ROUTES, priceHandlers, () => stack.services);
    // The same services without a receipt signer: what a Pro call costs unsigned.
    const unsignedServices = { ...stack.services, payment: { ...stack.services.payment, receipts: undefined } };
    const unsigned = createFamilyHandler(PRICE_ROUTES, priceHandlers, () => unsignedServices);
    const ROUTE = 'GET /v1/price/{code}' as const;
    const uncharged = createFamilyHandler(
      PRICE_ROUTES,
      {
        ...priceHandlers,
        [ROUTE]: async (req: Parameters<(typeof priceHandlers)[typeof ROUTE]>[0]) => ({ ...(await priceHandlers[ROUTE](req)), charge: false }),
      },
      () => stack.services,
    );
    const buyer = privateKeyToAccount(generatePrivateKey());
    const ctx = { awsRequestId: 'bench' } as Context;
    const times = { unpaid: [] as number[], pro: [] as number[], proUnsigned: [] as number[], verify: [] as number[], bare: [] as number[] };
    // The floor of a debit: one TransactWriteItems of the same two items (the key's PLAN update under
    // the debit's condition, a usage entry put) on the same store, through the same client settings.
    const doc = createDocumentClient(stack.config);
    const bareKey = generateKey();
    const bareHash = hashKey(bareKey);
    await ledger.put({ ...newKeyRecord({ hash: bareHash, hint: keyHint(bareKey), plan: 'monthly', now: new Date() }), creditsLeft: 1_000_000 });
    const bareDebit = (i: number) => {
      const at = new Date().toISOString();
      return doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: stack.config.CREDITS_TABLE,
                Key: { pk: `KEY#${bareHash}`, sk: 'PLAN' },
                UpdateExpression: 'SET credits_left = credits_left - :c',
                ConditionExpression: '#status = :active AND period_end > :now AND credits_left >= :c',
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: { ':c': 1, ':active': 'active', ':now': at },
              },
            },
            {
              Put: {
                TableName: stack.config.CREDITS_TABLE,
                Item: {
                  pk: `KEY#${bareHash}`,
                  sk: `USAGE#${at.slice(0, 7)}#${at}#bare-${i}`,
                  hash: bareHash,
                  call_id: `bare-${i}`,
                  request_id: 'bench',
                  route: ROUTE,
                  credits: 1,
                  at,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
    };
    for (let i = 0; i < IN_PROCESS_ROUNDS + 30; i++) {
      // Signing is the client's cost: done before the timer starts.
      const payment = b64(v1Payload(await signAuthorization(buyer, { payTo: PAY_TO, validAfter: nowS() - 600n })));
      // The signed and the unsigned Pro call run next to each other, in alternating order (a pair per round).
      const signedPair = [
        [times.pro, { authorization: `Bearer ${key}` }, handler],
        [times.proUnsigned, { authorization: `Bearer ${key}` }, unsigned],
      ] as const;
      for (const [xs, h, call] of [
        [times.unpaid, {}, handler],
        ...(i % 2 === 0 ? signedPair : [signedPair[1], signedPair[0]]),
        [times.verify, { 'x-payment': payment }, uncharged],
      ] as const) {
        const t0 = process.hrtime.bigint();
        const res = await call(event(h), ctx);
        if (res.statusCode !== 200) throw new Error(`in-process bench: ${res.statusCode} ${res.body}`);
        if (i >= 30) xs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      const t0 = process.hrtime.bigint();
      await bareDebit(i);
      if (i >= 30) times.bare.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const unpaidMedian = quantile(times.unpaid, 0.5);
    const added = quantile(times.pro, 0.5) - unpaidMedian;
    const bareMedian = quantile(times.bare, 0.5);
    record(
      'Pro-key call: median latency added vs one bare TransactWriteItems of the same two items (embedded store)',
      `${added.toFixed(2)} / ${bareMedian.toFixed(2)} ms = ${(added / bareMedian).toFixed(2)}x`,
      `<= ${PRO_DEBIT_RATIO}x`,
      added / bareMedian <= PRO_DEBIT_RATIO,
    );
    const unsignedAdded = quantile(times.proUnsigned, 0.5) - unpaidMedian;
    // Paired: each round's signed call minus its unsigned neighbour (a load that comes and goes weighs
    // on both calls of a pair alike), the median of those differences added to the unsigned call's
    // median added latency. A ratio per pair would divide by one noisy call; a difference does not.
    const pairedExtra = quantile(
      times.pro.map((signed, i) => signed - times.proUnsigned[i]!),
      0.5,
    );
    const receiptRatio = (unsignedAdded + pairedExtra) / unsignedAdded;
    record(
      'Pro-key call with its signed receipt: median latency added vs the same call unsigned (in-process)',
      `${(unsignedAdded + pairedExtra).toFixed(2)} / ${unsignedAdded.toFixed(2)} ms (paired median ${pairedExtra >= 0 ? '+' : ''}${pairedExtra.toFixed(3)} ms) = ${receiptRatio.toFixed(3)}x; medians alone ${added.toFixed(2)} / ${unsignedAdded.toFixed(2)} ms`,
      `<= ${RECEIPT_SIGNING_RATIO}x`,
      receiptRatio <= RECEIPT_SIGNING_RATIO,
    );
    const verifyAdded = quantile(times.verify, 0.5) - unpaidMedian;
    // The floor of a verify: one EIP-712 recovery and one conditional put on the same store, timed here.
    const floorMs: number[] = [];
    for (let i = 0; i < 200; i++) {
      const signed = await signAuthorization(buyer, { payTo: PAY_TO });
      const typed = {
        domain: { name: USDC.eip712.name, version: USDC.eip712.version, chainId: USDC.chainId, verifyingContract: USDC.address },
        types: authorizationTypes,
        primaryType: 'TransferWithAuthorization' as const,
        message: {
          ...signed.authorization,
          value: BigInt(signed.authorization.value),
          validAfter: BigInt(signed.authorization.validAfter),
          validBefore: BigInt(signed.authorization.validBefore),
        },
      };
      const t0 = process.hrtime.bigint();
      recoverTypedDataSigner(typed, signed.signature);
      await stack.services.doc!.send(
        new PutCommand({
          TableName: stack.config.CREDITS_TABLE,
          Item: { pk: `BENCH#${i}`, sk: signed.authorization.nonce },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      if (i >= 20) floorMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const floor = quantile(floorMs, 0.5);
    record(
      'x402 verify-only: our work (facilitator stub) vs one EIP-712 recovery + one conditional put',
      `${verifyAdded.toFixed(2)} / ${floor.toFixed(2)} ms = ${(verifyAdded / floor).toFixed(2)}x`,
      '<= 2x',
      verifyAdded / floor <= 2,
    );
  } finally {
    await stack.close();
  }
};

/** Rows of `npm start` processes under load from this one. */
const serverRows = async () => {
  // Throughput, each server in its own process and this one as the client: a cache-hit
  // /v1/price/CL from `npm start` vs a bare node:http server answering the same bytes; then the
  // 402 challenge of `npm start` with X402_ENFORCE=1 vs the official express middleware answering
  // the same challenge (it is configured from ours: test/bench/x402-express-peer.ts).
  /** Bytes of one answer to /v1/price/CL: header lines (names, values) and body, as the client receives them. */
  const answerBytes = async (port: number): Promise<number> => {
    const res = await fetch(`http://127.0.0.1:${port}/v1/price/CL`);
    const body = Buffer.byteLength(await res.text());
    return [...res.headers].reduce((n, [k, v]) => n + k.length + v.length + 4, body);
  };
  const compare = async (
    what: string,
    target: number,
    status: number,
    ours: { port: number; close(): Promise<void> },
    peerArgs: (port: number) => string[],
  ) => {
    const peerPort = await freePort();
    const peer = await startChild(peerArgs(peerPort));
    try {
      // Steady state: both servers are warmed up (JIT, caches) with as many calls as are then measured.
      for (const port of [ours.port, peerPort]) await load(port, ['/v1/price/CL'], 20_000, 50, status);
      // About the same 20,000 calls each, in an odd number of rounds that alternate which server goes
      // first: the figure is the median of the rounds' ratios, so a load that comes and goes on the
      // machine weighs on both.
      const ROUNDS = 9;
      const rps = { ours: [] as number[], peer: [] as number[] };
      for (let i = 0; i < ROUNDS; i++) {
        for (const [port, xs] of i % 2 === 0
          ? ([
              [ours.port, rps.ours],
              [peerPort, rps.peer],
            ] as const)
          : ([
              [peerPort, rps.peer],
              [ours.port, rps.ours],
            ] as const)) {
          xs.push((await load(port, ['/v1/price/CL'], Math.round(20_000 / ROUNDS), 50, status)).rps);
        }
      }
      const ratio = quantile(
        rps.ours.map((r, i) => r / rps.peer[i]!),
        0.5,
      );
      const [a, b] = [quantile(rps.ours, 0.5), quantile(rps.peer, 0.5)];
      const [sizeA, sizeB] = await Promise.all([answerBytes(ours.port), answerBytes(peerPort)]);
      record(
        what,
        `${a.toFixed(0)} / ${b.toFixed(0)} rps, per-round median ${ratio.toFixed(2)}x (answers ${sizeA} / ${sizeB} B)`,
        `>= ${target}x`,
        ratio >= target,
      );
    } finally {
      await peer.close();
      await ours.close();
    }
  };
  if (runs('throughput')) {
    const ours = await startServerProcess();
    const vintages = await reviseServedWti(ours.dynamoPort);
    // A year of WTI at a past instant (inside the revised points' old interval, so vintages answer) vs
    // the same year without it. Same request repeated (each answered from its cache after the first),
    // then a walk a day apart per call, as a backtest steps (every call reads the store): with
    // as_known_at a new instant per call, without it a new window end per call.
    const instant = (daysBack: number) => new Date(Date.parse('2026-08-19T15:00:00Z') - daysBack * 86_400_000).toISOString();
    // Without start and end the window is the year before the latest figure (known at the instant): ~250 points each.
    const plainPath = '/v1/history/CL';
    const atPath = (i: number) => `${plainPath}?as_known_at=${encodeURIComponent(instant(i))}`;
    const endPath = (i: number) => `${plainPath}?end=${instant(i).slice(0, 10)}`;
    await load(ours.port, [plainPath, atPath(0)], 400, 1);
    const p50 = async (paths: string[]) => quantile((await load(ours.port, paths, paths.length, 1)).latencies, 0.5);
    const plain = await p50(Array.from({ length: 300 }, () => plainPath));
    const same = await p50(Array.from({ length: 300 }, () => atPath(0)));
    const walkingPlain = await p50(Array.from({ length: 200 }, (_, i) => endPath(i + 1)));
    const walking = await p50(Array.from({ length: 200 }, (_, i) => atPath(i + 1)));
    record(
      `/v1/history/CL?as_known_at vs without, one year, same request, p50 (${vintages} vintages stored)`,
      `${same.toFixed(2)} / ${plain.toFixed(2)} ms = ${(same / plain).toFixed(2)}x`,
      '<= 2x',
      same / plain <= 2,
    );
    record(
      '/v1/history/CL one year, walking a day per call (store read each), as_known_at vs end, p50',
      `${walking.toFixed(2)} / ${walkingPlain.toFixed(2)} ms = ${(walking / walkingPlain).toFixed(2)}x`,
      '<= 2x',
      walking / walkingPlain <= 2,
    );
    await compare(`cache-hit /v1/price/CL throughput (${vintages} vintages stored), npm start vs bare node:http`, 0.5, 200, ours, (p) => [
      'test/bench/bare-server.ts',
      String(p),
      `http://127.0.0.1:${ours.port}/v1/price/CL`,
    ]);
  }
  if (runs('challenge')) {
    // The peer configures the official middleware from our own 402 (same accepts, extensions and body).
    const ours = await startServerProcess({ X402_ENFORCE: '1', X402_PAY_TO: PAY_TO });
    await compare('402 challenge throughput, npm start vs @x402/express on express (same challenge)', 1.5, 402, ours, (p) => [
      'test/bench/x402-express-peer.ts',
      String(p),
      `http://127.0.0.1:${ours.port}/v1/price/CL`,
    ]);
  }

  // A paid call with the official client, `npm start` (X402_LOCAL_CHAIN=1) vs the reference
  // @x402/express middleware charging the same price through the same local facilitator and chain,
  // serving the same bytes; interleaved, the order alternating each round. Our work on top of the
  // reference: the signature check, the claim (both beside /verify) and the settlement's one write.
  if (runs('paid')) {
    // Settle-first (issue 38's settle-first row): the deferred path has its own rows (deferred-exact.ts).
    const ours = await startServerProcess({ X402_ENFORCE: '1', X402_LOCAL_CHAIN: '1', X402_LOCAL_CHAIN_PORT: '0', X402_DEFER_MAX_USD: '0' });
    const facilitatorUrl = /x402 local facilitator at (\S+?);/.exec(ours.output)?.[1];
    const payTo = /payments go to (0x[0-9a-fA-F]{40})/.exec(ours.output)?.[1];
    if (!facilitatorUrl || !payTo) throw new Error(`paid bench: the local chain did not start:\n${ours.output}`);
    const { wrapFetchWithPayment, x402Client } = await import('@x402/fetch');
    const { registerExactEvmScheme } = await import('@x402/evm/exact/client');
    const { mnemonicToAccount } = await import('viem/accounts');
    const buyer = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 9 });
    const pay = wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: buyer }));
    const paidOnce = async (port: number): Promise<{ ms: number; body: string }> => {
      const t0 = process.hrtime.bigint();
      const res = await pay(`http://127.0.0.1:${port}/v1/price/CL`);
      const body = await res.text();
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (res.status !== 200 || !res.headers.get('payment-response')) throw new Error(`paid bench: ${port} answered ${res.status} ${body.slice(0, 200)}`);
      return { ms, body };
    };
    const bodyFile = join(mkdtempSync(join(tmpdir(), 'bench-body-')), 'price.json');
    writeFileSync(bodyFile, (await paidOnce(ours.port)).body);
    const peerPort = await freePort();
    const peer = await startChild(['test/bench/x402-paid-peer.ts', String(peerPort), facilitatorUrl, payTo, bodyFile]);
    try {
      // 180 rounds: with 60, the median of the per-round ratios of the same code moved from 1.006x to
      // 1.054x between back-to-back runs (a paid call is ~70 ms, its noise a few ms); with 180, 1.032-1.045x.
      const rounds = Number(process.env.BENCH_ROUNDS ?? 180);
      const oursMs: number[] = [];
      const peerMs: number[] = [];
      for (let i = 0; i < rounds + 8; i++) {
        const order = i % 2 === 0 ? [ours.port, peerPort] : [peerPort, ours.port];
        const byPort = new Map<number, number>();
        for (const port of order) byPort.set(port, (await paidOnce(port)).ms);
        if (i < 8) continue; // warm-up
        oursMs.push(byPort.get(ours.port)!);
        peerMs.push(byPort.get(peerPort)!);
      }
      const perRound = quantile(
        oursMs.map((o, i) => o / peerMs[i]!),
        0.5,
      );
      record(
        'paid /v1/price/CL (official client, local chain), npm start vs @x402/express: median per-round ratio',
        `${quantile(oursMs, 0.5).toFixed(0)} / ${quantile(peerMs, 0.5).toFixed(0)} ms p50; ${perRound.toFixed(3)}x`,
        '<= 1.05x',
        perRound <= 1.05,
      );
    } finally {
      await peer.close();
      await ours.close();
      rmSync(dirname(bodyFile), { recursive: true, force: true });
    }
  }

  // Ingestion: a 10,000-row EIA history parsed and upserted, vs writing the same items bare.
  if (runs('ingestion')) {
    const store = await startTestStore();
    try {
      // Synthetic rows (bench only): real wire format, made-up but plausible WTI values.
      const data = Array.from({ length: 10_000 }, (_, i) => ({
        period: addDays('2026-08-18', -i),
        series: 'RWTC',
        'series-description': 'Cushing, OK WTI Spot Price FOB (Dollars per Barrel)',
        value: (70 + 5 * Math.sin(i / 30)).toFixed(2),
        units: '$/BBL',
      }));
      const payload = {
        name: 'PET.RWTC.D (synthetic, 10,000 rows)',
        body: Buffer.from(JSON.stringify({ response: { total: String(data.length), dateFormat: 'YYYY-MM-DD', frequency: 'daily', data } })),
        retrievedAt: new Date().toISOString(),
      };
      const t0 = process.hrtime.bigint();
      const items = eiaSpot.toItems(payload, { def: findSource('eia-spot')!, nextReleaseAt: null, now: new Date() });
      await store.store.upsertMany(items);
      const ours = items.length / (Number(process.hrtime.bigint() - t0) / 1e9);
      // The same items, already built, written 25 per BatchWrite with the store's 4 batches in flight.
      const requests = items.map(({ seriesKey, observation }) => ({
        PutRequest: { Item: { pk: `${seriesKey}#bare`, sk: observation.as_of, ...observation } },
      }));
      const batches = Array.from({ length: Math.ceil(requests.length / 25) }, (_, i) => requests.slice(i * 25, (i + 1) * 25));
      const t1 = process.hrtime.bigint();
      await mapLimit(batches, 4, (batch) => store.doc.send(new BatchWriteCommand({ RequestItems: { [store.config.OBSERVATIONS_TABLE]: batch } })));
      const bareRate = requests.length / (Number(process.hrtime.bigint() - t1) / 1e9);
      record(
        'ingestion: 10,000-row history parsed + upserted vs bare BatchWrite loop',
        `${ours.toFixed(0)} / ${bareRate.toFixed(0)} obs/s = ${(ours / bareRate).toFixed(2)}x`,
        'report',
        true,
      );
    } finally {
      await store.close();
    }
  }

  // Memory: an `npm start` process, 10,000 mixed requests from here.
  if (runs('memory')) {
    const server = await startServerProcess();
    try {
      const atStart = rssOf(server.pid);
      await load(server.port, MIXED, 10_000, 50);
      const after = rssOf(server.pid);
      record(
        'npm start RSS after 10,000 mixed requests vs after start',
        `${(after / 2 ** 20).toFixed(0)} / ${(atStart / 2 ** 20).toFixed(0)} MB = ${(after / atStart).toFixed(2)}x`,
        '<= 1.5x',
        after / atStart <= 1.5,
      );
    } finally {
      await server.close();
    }
  }
  agent.destroy();

  // Benches with a stack (and chain, or receivers) of their own, each in its own process: their rows join the table.
  const subBench = (script: string, name: string) => {
    const r = spawnSync(join('node_modules', '.bin', 'tsx'), [script, '--json'], { encoding: 'utf8', maxBuffer: 2 ** 24 });
    const lines = r.stdout.trimEnd().split('\n');
    const rows = r.status === 0 ? (JSON.parse(lines.pop()!) as typeof results) : [];
    console.log(lines.join('\n'));
    if (r.status !== 0) record(`${name} (${script})`, `failed: ${r.stderr.trim().slice(-60)}`, 'runs', false);
    for (const row of rows) record(row.what, row.value, row.target, row.ok);
  };
  if (runs('sub')) {
    subBench('test/bench/batch-lane.ts', 'x402 batch bench'); // issue 23: the x402 lanes on the local chain, 2 s blocks
    subBench('test/bench/deferred-exact.ts', 'x402 deferred exact bench'); // issue 38
    subBench('test/bench/deferred-1000.ts', 'x402 deferred exact, 1,000 calls through npm start'); // issue 38's done-when
    subBench('test/bench/news.ts', 'news bench'); // issue 37: 304s and webhook deliveries
  }
};

/** Bundles, as CDK builds them (bundle-rows.ts; `tsx test/bench/bundle-rows.ts` prints these rows alone). */
const bundles = async () => {
  for (const row of await bundleRows({ outdir: BENCH_BUNDLES })) record(row.what, row.value, row.target, row.ok);
};

const main = async () => {
  if (runs('inproc')) await inProcessRows();
  await serverRows();
  if (runs('bundles')) await bundles();
};

await main();
console.log(`\nTargets (issue 14), one run on this machine: node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
console.log('what'.padEnd(72), 'measured'.padEnd(40), 'target'.padEnd(22), 'met');
for (const r of results) console.log(r.what.padEnd(72), r.value.padEnd(40), r.target.padEnd(22), r.ok ? 'yes' : 'NO');
const missed = results.filter((r) => !r.ok).length;
console.log(`${results.length - missed} of ${results.length} targets met`);
if (CHECK && missed) process.exit(1);
