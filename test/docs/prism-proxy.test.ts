/**
 * /openapi.json as a validating proxy reads it: Stoplight Prism (`prism proxy --errors`) in front of
 * the local service (x402 enforced), over every documented route with good inputs and bad ones.
 * Good inputs: Prism finds no violation and forwards, so the answer is the server's own (its 402
 * included: x402 starts with an unpaid request). Bad inputs: either Prism refuses them itself (the
 * document says they are invalid, as the server does) or it forwards them and the server's refusal
 * is a documented answer. Prism reports a response that breaks the document in its `sl-violations`
 * header, or answers its own problem+json instead.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { examplePath } from '../../shared/docs/text';
import { newKeyRecord, DynamoCreditLedger } from '../../shared/pro/credit-ledger';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { ROUTES } from '../../shared/routes/table';
import { createDocumentClient } from '../../shared/store/client';
import { startTestStack } from '../helpers/stack';
import { freePort } from '../helpers/ports';

const PRISM = resolve('node_modules/.bin/prism');

/** Starts `prism proxy --errors` and resolves once it listens (its own log line says so). */
const startPrism = (spec: string, upstream: string, port: number): Promise<ChildProcess> =>
  new Promise((done, fail) => {
    const child = spawn(PRISM, ['proxy', spec, upstream, '--errors', '-h', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    const onData = (c: Buffer) => {
      log += c;
      if (log.includes('Prism is listening')) done(child);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => fail(new Error(`prism exited ${code}: ${log.slice(-2000)}`)));
  });

interface Call {
  /** Sent with the test's Pro key: the route is a Pro key's own (webhook watches). */
  proKey?: boolean;
  what: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

const MCP_INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'prism-test', version: '1.0.0' } },
});

/** One request with good inputs per documented operation. */
const goodCalls = (): Call[] =>
  ROUTES.map((r) => {
    const call: Call = { what: `${r.id} (good)`, method: r.method, path: examplePath(r), ...(r.proKey && !r.priceKey ? { proKey: true } : {}) };
    if (r.id === 'POST /api/mcp')
      return { ...call, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: MCP_INIT };
    if (r.id === 'GET /pro/success') return { ...call, path: '/pro/success?session_id=cs_test_123' };
    // A watch id of the documented form (none such exists: the server's 404), and a watch the route table takes.
    if (r.path === '/v1/watches/{id}') return { ...call, path: '/v1/watches/w0123456789abcdef0123' };
    if (r.id === 'POST /v1/watches')
      return { ...call, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: '/v1/price/CL', url: 'https://agent.example/hook' }) };
    if (r.method === 'POST') return { ...call, headers: { 'content-type': 'application/json' }, body: '{}' };
    return call;
  });

/** Bad inputs: a value no parameter takes, a bound broken, and each payment lane's malformed credential. */
const badCalls = (): Call[] => [
  ...ROUTES.filter((r) => r.path.includes('{')).map((r) => ({
    what: `${r.id} (unknown value)`,
    method: r.method,
    path: r.path.replace(/\{\w+\}/, 'NOPE1'),
    ...(r.proKey && !r.priceKey ? { proKey: true } : {}),
  })),
  { what: 'history limit 0', method: 'GET', path: '/v1/history/CL?limit=0' },
  { what: 'history start not a date', method: 'GET', path: '/v1/history/CL?start=yesterday' },
  { what: 'prices without codes', method: 'GET', path: '/v1/prices' },
  { what: 'as_known_at not an instant', method: 'GET', path: '/v1/price/CL?as_known_at=soon' },
  { what: 'a malformed Pro key', method: 'GET', path: '/v1/price/CL', headers: { authorization: 'Bearer cds_live_nope' } },
  { what: 'a malformed v2 payment', method: 'GET', path: '/v1/price/CL', headers: { 'payment-signature': 'bm90IGpzb24=' } },
  { what: 'a malformed v1 payment', method: 'GET', path: '/v1/price/CL', headers: { 'x-payment': 'bm90IGpzb24=' } },
  {
    what: 'MCP with a body that is not JSON-RPC',
    method: 'POST',
    path: '/api/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: '{"x":1}',
  },
  {
    what: 'MCP from a foreign Origin',
    method: 'POST',
    path: '/api/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'http://evil.example.com' },
    body: MCP_INIT,
  },
  { what: 'MCP accepting only HTML', method: 'POST', path: '/api/mcp', headers: { 'content-type': 'application/json', accept: 'text/html' }, body: MCP_INIT },
  {
    what: 'MCP with a text body',
    method: 'POST',
    path: '/api/mcp',
    headers: { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' },
    body: MCP_INIT,
  },
];

/** The x402 flow's own answers, which a proxy must pass through untouched. */
const laneCalls = (): Call[] => [
  { what: 'an unpaid call (402, v2 body)', method: 'GET', path: '/v1/price/CL' },
  { what: 'an unpaid call asking for the v1 body (X402-Version: 1)', method: 'GET', path: '/v1/price/CL', headers: { 'x402-version': '1' } },
  { what: 'a code in lower case (served as CL)', method: 'GET', path: '/v1/price/cl' },
  { what: 'a sector in upper case (served as energy)', method: 'GET', path: '/v1/snapshot/ENERGY' },
  { what: 'the curve stub (free while indicative futures are off)', method: 'GET', path: '/v1/curve/CL' },
];

/** The Pro key of the watch routes' calls (issued in beforeAll). */
let proKey = '';
const send = (base: string, c: Call) =>
  fetch(`${base}${c.path}`, {
    method: c.method,
    headers: { ...c.headers, ...(c.proKey ? { authorization: `Bearer ${proKey}` } : {}) },
    body: c.body,
    redirect: 'manual',
  });

describe('Stoplight Prism as a validating proxy (prism proxy --errors) over /openapi.json', () => {
  let stack: LocalStack;
  let prism: ChildProcess;
  let proxy: string;
  let dir: string;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: '1' });
    proKey = generateKey();
    await new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE).put(
      newKeyRecord({ hash: hashKey(proKey), hint: keyHint(proKey), plan: 'monthly', now: new Date() }),
    );
    dir = mkdtempSync(join(tmpdir(), 'prism-'));
    const spec = join(dir, 'openapi.json');
    writeFileSync(spec, await (await fetch(`${stack.url}/openapi.json`)).text());
    const port = await freePort();
    prism = await startPrism(spec, stack.url, port);
    proxy = `http://127.0.0.1:${port}`;
  }, 120_000);
  afterAll(async () => {
    prism?.kill();
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** What Prism did with a call: forwarded it with no violation (status as the server's), or answered it itself. */
  const through = async (c: Call) => {
    const [viaProxy, direct] = [await send(proxy, c), await send(stack.url, c)];
    const body = await viaProxy.text();
    return {
      status: viaProxy.status,
      serverStatus: direct.status,
      violations: viaProxy.headers.get('sl-violations'),
      prismOwn: (viaProxy.headers.get('content-type') ?? '').includes('problem+json') ? body.slice(0, 600) : null,
      body,
    };
  };

  it.each([...goodCalls(), ...laneCalls()].map((c) => [c.what, c] as const))('%s: forwarded with no violation', async (_what, call) => {
    const r = await through(call);
    expect(r.prismOwn).toBeNull();
    expect(r.violations).toBeNull();
    expect(r.status).toBe(r.serverStatus);
  });

  it.each(badCalls().map((c) => [c.what, c] as const))('%s: refused by Prism as the document says, or forwarded and documented', async (_what, call) => {
    const r = await through(call);
    expect(r.serverStatus).toBeGreaterThanOrEqual(400);
    if (r.prismOwn !== null) {
      expect(r.status, r.prismOwn).toBe(422);
    } else {
      expect(r.violations).toBeNull();
      expect(r.status).toBe(r.serverStatus);
    }
  });

  it('the v1 402 body and a lower-case code were forwarded as the server answered them', async () => {
    const v1 = await through(laneCalls()[1]!);
    expect(v1.status).toBe(402);
    expect(JSON.parse(v1.body)).toMatchObject({ x402Version: 1, accepts: [expect.objectContaining({ scheme: 'exact', maxAmountRequired: '10000' })] });
    const lower = await through(laneCalls()[2]!);
    expect(JSON.parse(lower.body)).toMatchObject({ x402Version: 2, resource: { url: expect.stringContaining('/v1/price/cl') } });
  });
});
