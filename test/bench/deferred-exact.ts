/**
 * Issue 38's benchmark (`npm run bench` runs it and tables its rows; alone: `npx tsx
 * test/bench/deferred-exact.ts`). One run on the local chain with Base's 2 s blocks, `npm start`'s
 * stack with its timers (the deferred settle worker every second), the official @x402/fetch client,
 * sequential calls (one buyer, no concurrency), interleaved with the reference so drift hits both:
 *
 *   deferred     GET /v1/price/CL (0.01 USD, deferred by the default policy): answered at /verify
 *   settle-first the same call on a second server over the same store, chain and facilitator with
 *                deferral off (X402_DEFER_MAX_USD=0): what a dearer route does
 *   reference    the official @x402/express middleware (test/bench/x402-paid-peer.ts) charging the same
 *                price through the same facilitator and chain, serving the same bytes
 *
 * Rows: the deferred p50 (< 150 ms, >= 10x faster than the reference); settle-first vs the reference
 * (median per-round ratio <= 1.05x); request-to-answer time of the paid request (what a Lambda bills)
 * deferred vs settle-first (<= 1/10); answer-to-settlement p95 from the claims (deferred_at to
 * settled_at; < 2 blocks + the worker's interval). With --json the last line is the rows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import { freePort } from '../helpers/ports';

process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { x402Client } = await import('@x402/core/client');
const { wrapFetchWithPayment } = await import('@x402/fetch');
const { registerExactEvmScheme } = await import('@x402/evm/exact/client');
const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
const { startLocalStack } = await import('../../infra/local/stack');
const { startLocalServer } = await import('../../infra/local/server');
const { createServices } = await import('../../shared/services');

const JSON_OUT = process.argv.includes('--json');
const BLOCK_TIME_S = Number(process.env.X402_LOCAL_BLOCK_TIME ?? 2);
const ROUNDS = Number(process.env.BENCH_DEFERRED_ROUNDS ?? 20);
const WARM_UP = 3;
/** The local worker's pass interval (infra/local/schedules.ts SETTLE_DEFERRED_EVERY_S). */
const SETTLE_INTERVAL_S = 1;
const PATH = '/v1/price/CL';

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const say = (line: string) => console.log(line);

const stack = await startLocalStack({
  env: {
    OBSERVATIONS_TABLE: 'bench-obs',
    CREDITS_TABLE: 'bench-credits',
    X402_ENFORCE: '1',
    X402_LOCAL_CHAIN: '1',
    X402_LOCAL_BLOCK_TIME: String(BLOCK_TIME_S),
  },
  schedules: true,
});
const net = stack.payments!;
const settleFirst = await startLocalServer(createServices({ ...stack.config, X402_DEFER_MAX_USD: '0' }), 0);

/** The official client; `paidMs` is the time of the request that carried the payment (probe excluded). */
const client = (account: (typeof net.chain.accounts)[number]) => {
  let paidMs = 0;
  const timed: typeof fetch = async (input, init) => {
    const req = new Request(input, init);
    const t0 = process.hrtime.bigint();
    const res = await fetch(req);
    const body = await res.arrayBuffer();
    if (req.headers.get('payment-signature')) paidMs = Number(process.hrtime.bigint() - t0) / 1e6;
    return new Response(body, { status: res.status, headers: res.headers });
  };
  const pay = wrapFetchWithPayment(timed, registerExactEvmScheme(new x402Client(), { signer: account }));
  return async (base: string) => {
    const t0 = process.hrtime.bigint();
    const res = await pay(`${base}${PATH}`);
    const body = await res.text();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const receipt = res.headers.get('payment-response');
    if (res.status !== 200 || !receipt) throw new Error(`${base}: ${res.status} ${body.slice(0, 200)}`);
    const settlement = JSON.parse(Buffer.from(receipt, 'base64').toString('utf8')) as { success: boolean; errorReason?: string; extra?: { status?: string } };
    return { ms, paidMs, body, settlement };
  };
};

const ours = client(net.chain.accounts[5]!);
const reference = client(net.chain.accounts[6]!);
const firstCalls = client(net.chain.accounts[7]!);
const bodyFile = join(mkdtempSync(join(tmpdir(), 'bench-body-')), 'price.json');
const peerPort = await freePort();
const peer = spawn(process.execPath, ['--import', 'tsx', 'test/bench/x402-paid-peer.ts', String(peerPort), net.facilitator.url, net.payTo, bodyFile], {
  env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  writeFileSync(bodyFile, (await ours(stack.url)).body);
  await new Promise<void>((resolve, reject) => {
    peer.stdout!.on('data', (d) => String(d).includes('listening on') && resolve());
    peer.once('exit', (code) => reject(new Error(`x402-paid-peer exited with ${code}`)));
  });
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  say(
    `deferred exact bench: local chain with a block every ${BLOCK_TIME_S} s, ${ROUNDS} rounds (deferred, settle-first, reference), one buyer each, sequential`,
  );
  say(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );

  const deferred: Array<{ ms: number; paidMs: number; id: string }> = [];
  const first: Array<{ ms: number; paidMs: number }> = [];
  const peerMs: number[] = [];
  for (let i = 0; i < ROUNDS + WARM_UP; i++) {
    const d = await ours(stack.url);
    if (d.settlement.errorReason !== 'settlement_pending') throw new Error('the deferred call was not deferred');
    const f = await firstCalls(settleFirst.url);
    if (!f.settlement.success) throw new Error('the settle-first call did not settle');
    const p = await reference(peerUrl);
    if (i < WARM_UP) continue;
    deferred.push({ ms: d.ms, paidMs: d.paidMs, id: d.settlement.extra!.status!.split('/').pop()! });
    first.push({ ms: f.ms, paidMs: f.paidMs });
    peerMs.push(p.ms);
  }

  // Answer to settlement, from the claims the worker closed (deferred_at -> settled_at).
  const deadline = Date.now() + 120_000;
  const lags: number[] = [];
  for (const d of deferred) {
    const [payer, nonce] = d.id.split('-') as [string, string];
    for (;;) {
      const item = (
        await stack.services.doc!.send(
          new GetCommand({ TableName: stack.config.CREDITS_TABLE, Key: { pk: `X402#${payer}`, sk: `NONCE#${nonce}` }, ConsistentRead: true }),
        )
      ).Item;
      if (item?.state === 'SETTLED') {
        lags.push(Date.parse(String(item.settled_at)) - Date.parse(String(item.deferred_at)));
        break;
      }
      if (Date.now() > deadline) throw new Error(`deferred claim ${d.id} not settled within 2 minutes (state ${item?.state})`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const dP50 = quantile(
    deferred.map((d) => d.ms),
    0.5,
  );
  const peerP50 = quantile(peerMs, 0.5);
  const firstRatio = quantile(
    first.map((f, i) => f.ms / peerMs[i]!),
    0.5,
  );
  const held = quantile(
    deferred.map((d) => d.paidMs),
    0.5,
  );
  const heldFirst = quantile(
    first.map((f) => f.paidMs),
    0.5,
  );
  const lagP95 = quantile(lags, 0.95);
  const lagTarget = (2 * BLOCK_TIME_S + SETTLE_INTERVAL_S) * 1000;
  const rows = [
    {
      what: `x402 exact deferred: paid /v1/price/CL p50 vs @x402/express (${BLOCK_TIME_S} s blocks, official client)`,
      value: `${dP50.toFixed(0)} vs ${peerP50.toFixed(0)} ms = ${(peerP50 / dP50).toFixed(1)}x faster`,
      target: '< 150 ms, >= 10x',
      ok: dP50 < 150 && peerP50 / dP50 >= 10,
    },
    {
      what: 'x402 exact settle-first: paid call vs @x402/express, median per-round ratio',
      value: `${quantile(
        first.map((f) => f.ms),
        0.5,
      ).toFixed(0)} / ${peerP50.toFixed(0)} ms p50; ${firstRatio.toFixed(3)}x`,
      target: '<= 1.05x',
      ok: firstRatio <= 1.05,
    },
    {
      what: 'x402 exact: request-to-answer of the paid request (Lambda time), deferred vs settle-first',
      value: `${held.toFixed(1)} / ${heldFirst.toFixed(1)} ms = ${(held / heldFirst).toFixed(3)}`,
      target: '<= 0.1',
      ok: held / heldFirst <= 0.1,
    },
    {
      what: 'x402 exact deferred: answer to on-chain settlement, p95 (local worker)',
      value: `${(lagP95 / 1000).toFixed(2)} s (p50 ${(quantile(lags, 0.5) / 1000).toFixed(2)} s, ${lags.length} calls)`,
      target: `< ${lagTarget / 1000} s (2 blocks + ${SETTLE_INTERVAL_S} s)`,
      ok: lagP95 < lagTarget,
    },
  ];
  for (const r of rows) say(`${r.ok ? 'met    ' : 'NOT met'}  ${r.what}: ${r.value}   target ${r.target}`);
  say(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  if (JSON_OUT) console.log(JSON.stringify(rows));
} finally {
  peer.kill('SIGTERM');
  await settleFirst.close();
  await stack.close();
  rmSync(dirname(bodyFile), { recursive: true, force: true });
}
