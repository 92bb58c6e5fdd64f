/**
 * `npm run bench` rows of issue 37 ("pay only for news"), in their own process (`tsx test/bench/news.ts
 * [--json]`): one local stack (embedded store, replayed samples, enforcement on, a facilitator URL
 * nobody listens on: a payment that reached it would fail), its in-process watch fan-out and
 * deliveries, and a loopback receiver.
 *
 *   304        GET /v1/price/CL with If-None-Match (current tag) and a signed x402 payment attached,
 *              p50 vs a free discovery GET (/v1/catalog), interleaved over keep-alive HTTP; charged:
 *              the key's credits and the facilitator never reached
 *   100        100 watches on /v1/inventory/eia (100 keys, one agent each): a simulated WPSR release written by the real
 *              runner, then each delivery's time from the end of the write to the receiver's 2xx
 *   10,000     10,000 watches on /v1/inventory/eia (10,000 keys): a second release, all delivered within
 *              60 s; double charges = credits taken beyond one delivery per watch, and repeated webhook-ids
 */
import { createServer, request, Agent } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';

process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { startLocalStack } = await import('../../infra/local/stack');
const { withPayloadFiles } = await import('../../infra/local/payload-files');
const { DynamoCreditLedger, newKeyRecord } = await import('../../shared/pro/credit-ledger');
const { generateKey, hashKey, keyHint } = await import('../../shared/pro/keys');
const { createDocumentClient } = await import('../../shared/store/client');
const { ADAPTERS } = await import('../../shared/sources/adapters');
const { runSource } = await import('../../shared/sources/runner');
const { WatchStore } = await import('../../shared/watches/watch-store');
const { mapLimit } = await import('../../shared/concurrency/map-limit');
const { b64, signAuthorization, acceptedFor, v2Payload } = await import('../payment/helpers');
const { privateKeyToAccount, generatePrivateKey } = await import('viem/accounts');
const { simulatedWpsrRelease } = await import('../helpers/simulated-release');

const JSON_OUT = process.argv.includes('--json');
const say = (line: string) => console.log(line);
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;
const PAY_TO = privateKeyToAccount(generatePrivateKey()).address;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);
/** Watches of the big row (10,000 is the target's; fewer to compare code quickly). */
const MANY = Number(process.env.BENCH_WATCHES ?? 10_000);
const rows: Array<{ what: string; value: string; target: string; ok: boolean }> = [];

// The receiver: answers 200 and notes when (the 2xx leaves as the request ends).
const arrivals = new Map<string, number>();
let duplicates = 0;
/** The watch ids whose arrivals are counted, and how many of them arrived (webhook-id = msg_<watch id>_<tag>). */
let counted: { ids: Set<string>; n: number } = { ids: new Set(), n: 0 };
const arrivedOf = (ids: Set<string>) => (counted.ids === ids ? counted.n : [...arrivals.keys()].filter((k) => ids.has(k.split('_')[1]!)).length);
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const id = String(req.headers['webhook-id']);
    if (arrivals.has(id)) duplicates++;
    else if (counted.ids.has(id.split('_')[1]!)) counted.n++;
    arrivals.set(id, performance.now());
    res.writeHead(200);
    res.end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const stack = await startLocalStack({
  env: {
    OBSERVATIONS_TABLE: `bench-obs-${randomUUID().slice(0, 8)}`,
    CREDITS_TABLE: `bench-credits-${randomUUID().slice(0, 8)}`,
    X402_ENFORCE: '1',
    X402_PAY_TO: PAY_TO,
    X402_FACILITATOR_URL: 'http://127.0.0.1:9/',
    PRO_RATE_LIMIT_PER_SECOND: '10000',
  },
  watches: { concurrency: 64 },
  // As npm start: the store on its own thread (BENCH_STORE_THREAD=0: on this one, to compare).
  storeThread: process.env.BENCH_STORE_THREAD !== '0',
});
const doc = createDocumentClient(stack.config);
// The stack's own store calls (API, fan-out, deliveries, credits; not this bench's set-up and checks): each send is one
// DynamoDB request on AWS (a TransactWriteItems is one, though the embedded store applies its writes as more).
let storeCalls = 0;
stack.services.doc!.middlewareStack.add(
  (next) => async (args) => {
    storeCalls++;
    return next(args);
  },
  { step: 'initialize', name: 'benchStoreCallCount' },
);
const ledger = new DynamoCreditLedger(doc, stack.config.CREDITS_TABLE);
const watchStore = new WatchStore(doc, stack.config.CREDITS_TABLE);
const port = Number(new URL(stack.url).port);
const agent = new Agent({ keepAlive: true, maxSockets: 8 });
const get = (path: string, headers: Record<string, string> = {}): Promise<{ ms: number; status: number; headers: Record<string, unknown> }> =>
  new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });

const newKey = async () => {
  const key = generateKey();
  await ledger.put(newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }));
  return key;
};

try {
  // 1. The 304 with a payment attached vs a free discovery GET.
  {
    const key = await newKey();
    const first = await get('/v1/price/CL', { authorization: `Bearer ${key}` });
    const etag = String(first.headers.etag);
    const signed = await signAuthorization(privateKeyToAccount(generatePrivateKey()), { payTo: PAY_TO });
    const payment = b64(v2Payload(signed, acceptedFor(PAY_TO)));
    const conditional: number[] = [];
    const free: number[] = [];
    let not304 = 0;
    for (let i = 0; i < 20 + ROUNDS; i++) {
      const c = await get('/v1/price/CL', { 'if-none-match': etag, 'payment-signature': payment });
      const f = await get('/v1/catalog');
      if (c.status !== 304) not304++;
      if (i >= 20) {
        conditional.push(c.ms);
        free.push(f.ms);
      }
    }
    const left = (await ledger.get(hashKey(key)))!.creditsLeft;
    const charged = 3000 - 1 - left;
    const ratio = quantile(conditional, 0.5) / quantile(free, 0.5);
    say(
      `304 with payment attached: p50 ${ms(quantile(conditional, 0.5))} (p95 ${ms(quantile(conditional, 0.95))}); free GET /v1/catalog p50 ${ms(quantile(free, 0.5))}; ratio ${ratio.toFixed(2)}x; not 304: ${not304}; charged ${charged}`,
    );
    rows.push({
      what: '304 (If-None-Match, paid route, payment attached) vs free discovery GET, p50',
      value: `${ratio.toFixed(2)}x, ${charged} charged`,
      target: '<= 1.2x, 0 charged',
      ok: ratio <= 1.2 && charged === 0 && not304 === 0,
    });
  }

  const adapter = ADAPTERS['eia-petroleum']!;
  const ingest = async (change: number) => {
    const release = simulatedWpsrRelease(change);
    await runSource(withPayloadFiles(adapter, [release.path]), { mode: 'replay', store: stack.services.store, config: stack.config });
    return performance.now();
  };
  /** Creates `perKey` watches on each of `keys` new keys, straight into the store (the HTTP route's checks are tested elsewhere). */
  const createWatches = async (keys: number, perKey: number) => {
    await stack.watches!.idle();
    const baseline = (await get('/v1/inventory/eia', { authorization: `Bearer ${await newKey()}` })).headers.etag as string;
    const hashes = await mapLimit(Array.from({ length: keys }), 16, async () => hashKey(await newKey()));
    const ids: string[] = [];
    await mapLimit(
      hashes.flatMap((h) => Array.from({ length: perKey }, () => h)),
      16,
      async (keyHash) => {
        const id = `w${randomBytes(10).toString('hex')}`;
        ids.push(id);
        const at = new Date().toISOString();
        await watchStore.create(
          {
            id,
            keyHash,
            path: '/v1/inventory/eia',
            routeId: 'GET /v1/inventory/eia',
            url: receiverUrl,
            state: 'active',
            reason: null,
            createdAt: at,
            deliveries: 0,
            failures: 0,
            deadInRow: 0,
            lastDeliveredAt: null,
            lastEtag: baseline,
            creditsCharged: 0,
          },
          `whsec_${randomBytes(24).toString('base64')}`,
          baseline,
        );
      },
    );
    return { hashes, ids: new Set(ids) };
  };
  // Counted as they arrive: recounting 10,000 arrivals every poll took CPU from the stack it measures.
  const waitFor = async (ids: Set<string>, budgetMs: number) => {
    const t0 = performance.now();
    while (arrivedOf(ids) < ids.size && performance.now() - t0 < budgetMs) await new Promise((r) => setTimeout(r, 50));
    return arrivedOf(ids);
  };

  // 2. 100 watches on one series: ingestion write -> receiver's 2xx.
  {
    const { ids } = await createWatches(100, 1);
    arrivals.clear();
    counted = { ids, n: 0 };
    const written = await ingest(1234);
    const delivered = await waitFor(ids, 30_000);
    const lat = [...arrivals.entries()].filter(([k]) => ids.has(k.split('_')[1]!)).map(([, t]) => t - written);
    const p50 = quantile(lat, 0.5);
    const p99 = quantile(lat, 0.99);
    say(`100 watches: ${delivered} delivered; ingestion write -> receiver 2xx p50 ${ms(p50)}, p99 ${ms(p99)} (poll every 250 ms)`);
    rows.push({
      what: 'ingestion write -> receiver 2xx, 100 watches on one series',
      value: `p50 ${ms(p50)}, p99 ${ms(p99)}`,
      target: 'p50 < 1 s, p99 < 5 s',
      ok: delivered === 100 && p50 < 1000 && p99 < 5000,
    });
  }

  // 3. 10,000 watches on one series.
  {
    const { hashes, ids } = await createWatches(MANY, 1);
    await stack.watches!.idle();
    arrivals.clear();
    counted = { ids, n: 0 };
    duplicates = 0;
    // Everything runs in this process (store, fan-out, deliveries, receiver): its CPU time per
    // delivery is the cost, whatever else the machine is doing; the wall time is the target's.
    const cpu0 = process.cpuUsage();
    const calls0 = storeCalls;
    const written = await ingest(2345);
    const delivered = await waitFor(ids, 120_000 * Math.max(1, MANY / 10_000));
    const cpu = process.cpuUsage(cpu0);
    const cpuMsPer = (cpu.user + cpu.system) / 1000 / Math.max(1, delivered);
    const seconds = (Math.max(...[...arrivals.entries()].filter(([k]) => ids.has(k.split('_')[1]!)).map(([, t]) => t)) - written) / 1000;
    await stack.watches!.idle();
    // Counted once every delivery ended (its last writes follow the receiver's 2xx).
    const callsPer = (storeCalls - calls0) / Math.max(1, arrivedOf(ids));
    const left = await mapLimit(hashes, 16, async (h) => (await ledger.get(h))!.creditsLeft);
    // Each key: one delivery of 3 credits; anything more is a double charge.
    const overcharged = left.filter((l) => l < 3000 - 3).length;
    say(
      `${MANY} watches: ${delivered} delivered in ${seconds.toFixed(1)} s (${(delivered / seconds).toFixed(0)}/s; process CPU ${cpuMsPer.toFixed(2)} ms, ${callsPer.toFixed(2)} store calls per delivery); keys charged more than once per delivery: ${overcharged}; repeated webhook-ids: ${duplicates}`,
    );
    rows.push({
      what: `${MANY.toLocaleString('en-US')} watches on one series, all delivered`,
      value: `${delivered} in ${seconds.toFixed(1)} s, ${overcharged + duplicates} double`,
      target: '< 60 s, 0 double charges',
      ok: MANY === 10_000 && delivered === MANY && seconds < 60 && overcharged === 0 && duplicates === 0,
    });
  }
  say(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  if (JSON_OUT) console.log(JSON.stringify(rows));
  else for (const r of rows) console.log(`${r.what.padEnd(80)} ${r.value.padEnd(30)} ${r.target.padEnd(26)} ${r.ok ? 'yes' : 'NO'}`);
} finally {
  agent.destroy();
  doc.destroy();
  await stack.close();
  await new Promise<void>((r) => receiver.close(() => r()));
}
