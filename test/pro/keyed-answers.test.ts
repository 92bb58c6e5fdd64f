/**
 * The Pro lane as a peer of x402 behind the one charge step: a key wins over a payment (nothing is
 * charged twice), a key out of credits can pay that one call with x402 (the official v2 client reads
 * the QUOTA_EXCEEDED answer's PAYMENT-REQUIRED header), every answer to a keyed request that reaches
 * the key states its budget (errors included), the per-key rate limit is exact, and each tool call
 * of an MCP batch is its own paid call.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { loadConfig } from '../../shared/config';
import { charge } from '../../shared/payment/charge';
import type { PaidCall, PaymentDeps } from '../../shared/payment/lane';
import { MemoryPaymentLedger } from '../../shared/payment/memory-ledger';
import { DynamoCreditLedger, newKeyRecord, type KeyRecord } from '../../shared/pro/credit-ledger';
import type { CreditLedger } from '../../shared/pro/credit-port';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { findRoute } from '../../shared/routes';
import { createDocumentClient } from '../../shared/store/client';
import { acceptedFor, b64, signAuthorization, startFakeFacilitator, unb64, v2Payload, type FakeFacilitator } from '../payment/helpers';
import { expectError } from '../helpers/contract';
import { getJson, startTestStack } from '../helpers/stack';

const payTo = privateKeyToAccount(generatePrivateKey()).address;

describe('the per-key rate limit is exact (one process, a fixed clock)', () => {
  it.each([1, 5, 50])('%i calls per second are granted within one second; the next one is 429', async (perSecond) => {
    const key = generateKey();
    const record = newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date('2026-11-26T00:00:00Z') });
    const credits = {
      debit: async (_h: string, c: number, u: { requestId: string; route: string }, at: Date) => ({
        ok: true as const,
        record,
        usage: { hash: record.hash, requestId: u.requestId, route: u.route, credits: c, at: at.toISOString() },
      }),
    } as unknown as CreditLedger;
    const config = loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', X402_ENFORCE: '1', PRO_RATE_LIMIT_PER_SECOND: String(perSecond) });
    const at = new Date('2026-11-26T10:00:00.250Z');
    const deps = { config, ledger: new MemoryPaymentLedger(), credits, facilitator: {}, now: () => at, log: console } as unknown as PaymentDeps;
    const call = (i: number): PaidCall => ({
      route: findRoute('GET /v1/price/{code}')!,
      resource: { path: '/v1/price/CL', url: 'https://api.example.com/v1/price/CL' },
      callId: `c${i}`,
      requestId: `r${i}`,
      timeLeftMs: () => 25_000,
    });
    const outcomes = [];
    for (let i = 0; i <= perSecond; i++) outcomes.push(await charge({ kind: 'pro', key }, call(i), deps));
    expect(outcomes.slice(0, perSecond).every((o) => o.type === 'granted')).toBe(true);
    const last = outcomes[perSecond]!;
    expect(last.type === 'refused' && last.refusal.error).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED' });
  });
});

describe('keyed requests over HTTP (enforced, fake facilitator)', () => {
  let stack: LocalStack;
  let fake: FakeFacilitator;
  let ledger: DynamoCreditLedger;
  const newKey = async (patch: Partial<KeyRecord> = {}) => {
    const key = generateKey();
    await ledger.put({ ...newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }), ...patch });
    return key;
  };
  const call = (path: string, key: string, headers: Record<string, string> = {}) =>
    getJson(stack.url, path, { headers: { authorization: `Bearer ${key}`, ...headers } });

  beforeAll(async () => {
    fake = await startFakeFacilitator();
    stack = await startTestStack({ X402_ENFORCE: '1', X402_PAY_TO: payTo, X402_FACILITATOR_URL: fake.url, PRO_RATE_LIMIT_PER_SECOND: '10000' });
    ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
  });
  afterAll(async () => {
    await stack?.close();
    await fake?.close();
  });

  it('a key wins over a valid x402 payment: credits are debited and the facilitator is never called', async () => {
    fake.reset();
    const key = await newKey();
    const signed = await signAuthorization(privateKeyToAccount(generatePrivateKey()), { payTo });
    const res = await call('/v1/price/CL', key, { 'payment-signature': b64(v2Payload(signed, acceptedFor(payTo))) });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-credits-charged')).toBe('1');
    expect(res.headers.get('payment-response')).toBeNull();
    expect(fake.calls.verify).toHaveLength(0);
    expect(fake.calls.settle).toHaveLength(0);
    expect((await ledger.get(hashKey(key)))!.creditsLeft).toBe(2999);
  });

  it('QUOTA_EXCEEDED carries the x402 challenge in PAYMENT-REQUIRED and the budget; the official client pays that one call with x402', async () => {
    fake.reset();
    const key = await newKey({ creditsLeft: 0 });
    const refused = await call('/v1/price/CL', key);
    expectError(refused, 402, 'QUOTA_EXCEEDED');
    const challenge = unb64(refused.headers.get('payment-required'));
    expect(challenge).toMatchObject({ x402Version: 2, accepts: [{ scheme: 'exact', amount: '10000', payTo }] });
    expect(refused.headers.get('x-credits-remaining')).toBe('0');
    expect(refused.headers.get('x-credits-limit')).toBe('3000');

    const buyer = privateKeyToAccount(generatePrivateKey());
    const pay = wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: buyer }));
    const res = await pay(`${stack.url}/v1/price/CL`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { instrument: string }).instrument).toBe('CL');
    expect(res.headers.get('payment-response')).not.toBeNull();
    expect(fake.calls.settle).toHaveLength(1);
    expect((await ledger.get(hashKey(key)))!.creditsLeft).toBe(0);
  });

  it('every answer that reaches the key states its budget: a refunded error and a refused parameter too', async () => {
    const key = await newKey();
    // No real corn export sales exist to replay: 404 NO_DATA after the debit, refunded.
    const refunded = await call('/v1/fundamentals/export-sales?commodity=corn', key);
    expectError(refunded, 404, 'NO_DATA');
    expect(refunded.headers.get('x-credits-charged')).toBe('0');
    expect(refunded.headers.get('x-credits-remaining')).toBe('3000');
    // A bad parameter is refused before the payment step: the budget is still told.
    const bad = await call('/v1/history/CL?limit=0', key);
    expectError(bad, 400, 'INVALID_PARAMETER');
    expect(bad.headers.get('x-credits-remaining')).toBe('3000');
    expect(bad.headers.get('ratelimit')).toMatch(/^"credits";r=3000;t=\d+$/);
  });

  it('an MCP batch of 30 paid tool calls on one key: 30 answers, 30 usage entries, 30 credits', async () => {
    const key = await newKey();
    const body = Array.from({ length: 30 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'get_price', arguments: { code: 'CL' } },
    }));
    const init = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    await fetch(`${stack.url}/api/mcp`, { method: 'POST', headers, body: JSON.stringify(init) });
    const res = await fetch(`${stack.url}/api/mcp`, {
      method: 'POST',
      headers: { ...headers, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const answers = (await res.json()) as Array<{ id: number; result?: { isError?: boolean; structuredContent?: { instrument?: string } } }>;
    expect(answers).toHaveLength(30);
    for (const a of answers) {
      expect(a.result?.isError, JSON.stringify(a)).toBeFalsy();
      expect(a.result?.structuredContent?.instrument).toBe('CL');
    }
    expect((await ledger.get(hashKey(key)))!.creditsLeft).toBe(2970);
    expect(await ledger.usage(hashKey(key), new Date().toISOString().slice(0, 7))).toHaveLength(30);
  });

  it('one MCP POST starts at most 32 paid calls: the rest of a batch is refused with a JSON-RPC error, nothing charged', async () => {
    fake.reset();
    const client = new Client({ name: 'batch', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.url}/api/mcp`)));
    const unpaid = await client.callTool({ name: 'get_price', arguments: { code: 'CL' } });
    await client.close();
    const buyers = Array.from({ length: 40 }, () => privateKeyToAccount(generatePrivateKey()));
    const payloads = await Promise.all(
      buyers.map(async (b) => {
        const payer = registerExactEvmScheme(new x402Client(), { signer: b });
        return payer.createPaymentPayload(unpaid.structuredContent as never);
      }),
    );
    const body = payloads.map((p, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'get_price', arguments: { code: 'CL' }, _meta: { 'x402/payment': p } },
    }));
    const res = await fetch(`${stack.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify(body),
    });
    const answers = (await res.json()) as Array<{ id: number; result?: { isError?: boolean }; error?: { code: number; message: string } }>;
    expect(answers).toHaveLength(40);
    const refused = answers.filter((a) => a.error);
    expect(refused).toHaveLength(8);
    for (const a of refused) expect(a.error!.message).toMatch(/at most 32 paid tool calls/);
    expect(answers.filter((a) => a.result && !a.result.isError)).toHaveLength(32);
    expect(fake.calls.settle).toHaveLength(32);
  });
});
