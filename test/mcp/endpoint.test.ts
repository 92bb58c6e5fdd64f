/**
 * The MCP endpoint driven by the official SDK clients over HTTP against the local runtime (the v1
 * client speaks 2025-11-25; the v2 client, pinned to 2026-07-28, where the payment lanes are run
 * again): discovery, every tool in demo mode (the client itself validates structuredContent against
 * each tool's outputSchema), bad and undeclared arguments, the methods a stateless endpoint refuses,
 * and the x402 lane on the local chain paid by the official x402 client.
 */
import { validateDiscoveryExtension } from '@x402/extensions';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020 from 'ajv/dist/2020.js';
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { TOOLS } from '../../shared/mcp/tools';
import { WATCH_TOOLS } from '../../shared/mcp/watch-tools';
import { DynamoCreditLedger, newKeyRecord } from '../../shared/pro/credit-ledger';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { createDocumentClient } from '../../shared/store/client';
import { usdToAtomic } from '../../shared/routes/pricing';
import { findRoute, PAID_ROUTES } from '../../shared/routes/table';
import { getJson, startTestStack } from '../helpers/stack';
import { argsFor, connect as connectEra, ERAS, type Era, type McpClient } from './clients';

const connect = async (url: string, headers: Record<string, string> = {}) => {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), { requestInit: { headers } }));
  return client;
};

describe('MCP endpoint, demo mode (SDK client over HTTP)', () => {
  let stack: LocalStack;
  let client: Client;
  beforeAll(async () => {
    // A day on which every spread's legs share a recent date (the crack's products end 2025-06-16).
    stack = await startTestStack({ X402_ENFORCE: undefined }, true, { now: () => new Date('2025-06-17T15:00:00Z') });
    client = await connect(stack.url);
  });
  afterAll(async () => {
    await client?.close();
    await stack?.close();
  });

  it('initializes and names the server', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'commodity-data', version: '0.1.0' });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
  });

  it('lists one tool per paid route, with price, annotations and object schemas, plus the free tools', async () => {
    const { tools } = await client.listTools();
    const byRoute = new Map(tools.map((t) => [t._meta?.route, t]));
    for (const r of PAID_ROUTES) {
      const tool = byRoute.get(r.id);
      expect(tool, r.id).toBeDefined();
      expect(tool!.name).toMatch(/^[a-z0-9_]{1,64}$/);
      expect(tool!.title).toBeTruthy();
      expect(tool!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });
      expect(tool!.inputSchema.type).toBe('object');
      expect(tool!.outputSchema?.type).toBe('object');
      // The curve stubs are free while indicative futures are off; every other paid tool states its price.
      if (!r.freeWhen) expect(tool!.description).toContain(`${r.priceUsd} USD per call`);
    }
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['get_catalog', 'get_release_calendar', 'get_health']));
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
  });

  it('calls a free tool', async () => {
    const res = await client.callTool({ name: 'get_catalog', arguments: {} });
    expect(res.isError).toBeFalsy();
    expect((res.structuredContent as any).instruments.length).toBeGreaterThan(20);
    expect(JSON.parse((res.content as any)[0].text)).toEqual(res.structuredContent);
  });

  it('calls every tool in demo mode: structuredContent is the route body and passes its output schema', async () => {
    for (const tool of TOOLS) {
      const res = await client.callTool({ name: tool.name, arguments: argsFor(tool.name) });
      expect(res.isError, `${tool.name}: ${JSON.stringify(res.structuredContent).slice(0, 200)}`).toBeFalsy();
      const parsed = findRoute(tool.route.id)!.output.safeParse(res.structuredContent);
      expect(parsed.success ? [] : parsed.error.issues.slice(0, 3), tool.name).toEqual([]);
    }
  });

  it('answers the same body as the HTTP route', async () => {
    const [viaMcp, viaHttp] = await Promise.all([client.callTool({ name: 'get_price', arguments: { code: 'CL' } }), getJson(stack.url, '/v1/price/CL')]);
    const { provenance: _a, ...mcpObs } = viaMcp.structuredContent as any;
    const { provenance: _b, ...httpObs } = viaHttp.body;
    expect(mcpObs).toEqual(httpObs);
  });

  it('bad arguments are tool errors that name the argument and the valid values; an unknown tool is a JSON-RPC error', async () => {
    const unknown = await client.callTool({ name: 'get_price', arguments: { code: 'XX' } });
    expect(unknown.isError).toBe(true);
    expect(unknown.structuredContent).toMatchObject({ error: { code: 'UNKNOWN_INSTRUMENT', details: { valid: expect.arrayContaining(['CL', 'NG']) } } });
    const missing = await client.callTool({ name: 'get_price', arguments: {} });
    expect(missing.structuredContent).toMatchObject({ error: { code: 'INVALID_PARAMETER', details: { issues: [expect.objectContaining({ path: 'code' })] } } });
    const badLimit = await client.callTool({ name: 'get_history', arguments: { code: 'CL', limit: 100_000 } });
    expect(badLimit.structuredContent).toMatchObject({ error: { code: 'INVALID_PARAMETER' } });
    await expect(client.callTool({ name: 'get_everything', arguments: {} })).rejects.toBeInstanceOf(McpError);
  });

  it('an argument the input schema does not list is an INVALID_PARAMETER tool error naming it, for every tool and both eras', async () => {
    for (const era of ERAS) {
      const c = era === '2025-11-25' ? client : await connectEra(stack.url, era);
      try {
        for (const tool of TOOLS) {
          const res = await c.callTool({ name: tool.name, arguments: { ...argsFor(tool.name), colour: 'blue' } });
          expect(res.isError, `${era} ${tool.name}`).toBe(true);
          expect(res.structuredContent, `${era} ${tool.name}`).toMatchObject({
            error: { code: 'INVALID_PARAMETER', details: { issues: [expect.objectContaining({ message: expect.stringContaining('"colour"') })] } },
          });
        }
      } finally {
        if (c !== client) await c.close();
      }
    }
  });

  it('a plain GET lists the tools; an event-stream GET and DELETE get 405 with Allow: POST', async () => {
    const list = await getJson(stack.url, '/api/mcp');
    expect(list.status).toBe(200);
    expect(list.body.tools.length).toBe(TOOLS.length + WATCH_TOOLS.length);
    for (const init of [{ headers: { accept: 'text/event-stream' } }, { method: 'DELETE' }]) {
      const res = await fetch(`${stack.url}/api/mcp`, init);
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      await res.text();
    }
  });

  it('malformed JSON-RPC is a JSON-RPC parse error, never a 500', async () => {
    const res = await fetch(`${stack.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{not json',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
  });

  it('serves an MCP Registry server.json naming the endpoint', async () => {
    const res = await getJson(stack.url, '/.well-known/mcp/server.json');
    expect(res.body).toMatchObject({
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
      remotes: [{ type: 'streamable-http', url: `${stack.url}/api/mcp` }],
    });
    expect(res.body.name).toMatch(/^[a-zA-Z0-9.-]+\/commodity-data$/);
  });
});

describe('MCP x402 lane on the local chain (enforced; official x402 client builds the payment), both protocol eras', () => {
  let stack: LocalStack;
  let clients: Record<Era, McpClient>;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: '1', X402_LOCAL_CHAIN: '1' });
    clients = { '2025-11-25': await connectEra(stack.url, '2025-11-25'), '2026-07-28': await connectEra(stack.url, '2026-07-28') };
  });
  afterAll(async () => {
    for (const c of Object.values(clients ?? {})) await c.close();
    await stack?.close();
  });
  /** A buyer of its own per era and test (n = 0..2), so that balances are the test's alone; accounts 0 and 1 are the facilitator and payTo. */
  const buyerFor = (era: Era, n: number) => stack.payments!.chain.accounts[2 + n + (era === '2025-11-25' ? 0 : 3)]!;

  it.each(ERAS)('%s: discovery and free tools cost nothing under enforcement', async (era) => {
    expect((await clients[era].listTools()).tools.length).toBe(TOOLS.length + WATCH_TOOLS.length);
    expect((await clients[era].callTool({ name: 'get_health', arguments: {} })).isError).toBeFalsy();
  });

  it.each(ERAS)('%s: an unpaid call returns the PaymentRequired object as the tool result (HTTP 200), valid against the listed outputSchema', async (era) => {
    const client = clients[era];
    const res = await client.callTool({ name: 'get_price', arguments: { code: 'CL' } });
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toMatchObject({
      x402Version: 2,
      resource: { url: 'mcp://tool/get_price' },
      // The spec's exact option first; the local facilitator offers batch-settlement too.
      accepts: [
        { scheme: 'exact', network: 'eip155:84532', amount: '10000', payTo: stack.payments!.payTo },
        { scheme: 'batch-settlement', network: 'eip155:84532', amount: '10000', payTo: stack.payments!.payTo },
      ],
    });
    const bazaar = (res.structuredContent as any).extensions.bazaar;
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(bazaar.info.input).toMatchObject({ type: 'mcp', toolName: 'get_price', transport: 'streamable-http' });
    expect(JSON.parse((res.content as any)[0].text)).toEqual(res.structuredContent);
    // Every priced tool's refusal passes its own listed output schema (the v1 client checks it on isError too).
    const listed = new Map((await client.listTools()).tools.map((t) => [t.name, t.outputSchema]));
    const ajv = new Ajv2020({ strict: true, strictRequired: false });
    for (const tool of TOOLS.filter((t) => t.route.priceKey && !t.route.freeWhen)) {
      const refused = await client.callTool({ name: tool.name, arguments: argsFor(tool.name) });
      expect(refused.structuredContent, tool.name).toMatchObject({ x402Version: 2 });
      const validate = ajv.compile(listed.get(tool.name));
      expect(validate(refused.structuredContent) ? [] : validate.errors, tool.name).toEqual([]);
    }
  });

  it.each(ERAS)('%s: a call paid in _meta["x402/payment"] returns the data and the receipt; the chain moves exactly the price once', async (era) => {
    const client = clients[era];
    const net = stack.payments!;
    const buyer = buyerFor(era, 0);
    const payer = registerExactEvmScheme(new x402Client(), { signer: buyer });
    const unpaid = await client.callTool({ name: 'get_price', arguments: { code: 'CL' } });
    const payload = await payer.createPaymentPayload(unpaid.structuredContent as any);
    const before = { buyer: await net.chain.balanceOf(buyer.address), payTo: await net.chain.balanceOf(net.payTo) };

    const paid = await client.callTool({ name: 'get_price', arguments: { code: 'CL' }, _meta: { 'x402/payment': payload } });
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent).toMatchObject({ instrument: 'CL', unit: 'USD/bbl' });
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true, network: 'eip155:84532', payer: buyer.address });

    expect(await net.chain.balanceOf(buyer.address)).toBe(before.buyer - 10_000n);
    expect(await net.chain.balanceOf(net.payTo)).toBe(before.payTo + 10_000n);

    // The same payment again is refused (no data for a spent authorization) and moves nothing.
    const again = await client.callTool({ name: 'get_price', arguments: { code: 'CL' }, _meta: { 'x402/payment': payload } });
    expect(again.structuredContent).not.toMatchObject({ instrument: 'CL' });
    expect(await net.chain.balanceOf(buyer.address)).toBe(before.buyer - 10_000n);
  });

  it.each(ERAS)('%s: a paid call with an undeclared argument is refused before its payment is taken; the same payment then buys the call', async (era) => {
    const client = clients[era];
    const net = stack.payments!;
    const buyer = buyerFor(era, 1);
    const payer = registerExactEvmScheme(new x402Client(), { signer: buyer });
    const unpaid = await client.callTool({ name: 'get_price', arguments: { code: 'CL' } });
    const payload = await payer.createPaymentPayload(unpaid.structuredContent as any);
    const before = await net.chain.balanceOf(buyer.address);

    const typo = await client.callTool({ name: 'get_price', arguments: { code: 'CL', cod: 'NG' }, _meta: { 'x402/payment': payload } });
    expect(typo.isError).toBe(true);
    expect(typo.structuredContent).toMatchObject({ error: { code: 'INVALID_PARAMETER' } });
    expect(typo._meta?.['x402/payment-response']).toBeUndefined();
    expect(await net.chain.balanceOf(buyer.address)).toBe(before);

    const paid = await client.callTool({ name: 'get_price', arguments: { code: 'CL' }, _meta: { 'x402/payment': payload } });
    expect(paid.structuredContent).toMatchObject({ instrument: 'CL' });
    expect(await net.chain.balanceOf(buyer.address)).toBe(before - 10_000n);
  });

  it.each(ERAS)('%s: a Pro key on the POST pays each paid tool call once (credits debited by the route price); an unusable key is HTTP 401', async (era) => {
    const ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
    const key = generateKey();
    await ledger.put(newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }));
    const pro = await connectEra(stack.url, era, { authorization: `Bearer ${key}` });
    try {
      const res = await pro.callTool({ name: 'get_price', arguments: { code: 'CL' } });
      expect(res.isError).toBeFalsy();
      expect(res.structuredContent).toMatchObject({ instrument: 'CL' });
      expect(res._meta?.['commodity-data/credits']).toMatchObject({ 'credits-charged': '1', 'credits-remaining': '2999' });
      expect((await pro.callTool({ name: 'get_catalog', arguments: {} })).isError).toBeFalsy();
      // An undeclared argument costs nothing.
      expect((await pro.callTool({ name: 'get_price', arguments: { code: 'CL', foo: 1 } })).isError).toBe(true);
      expect((await ledger.get(hashKey(key)))!.creditsLeft).toBe(2999);
    } finally {
      await pro.close();
    }
    await expect(connectEra(stack.url, era, { authorization: `Bearer ${generateKey()}` })).rejects.toThrow(/INVALID_API_KEY|401/);
    const raw = await fetch(`${stack.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer cds_live_typo', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toContain('Bearer');
  });

  it.each(ERAS)('%s: a payment for a cheaper tool does not buy a dearer one', async (era) => {
    const client = clients[era];
    const net = stack.payments!;
    const buyer = buyerFor(era, 2);
    const payer = registerExactEvmScheme(new x402Client(), { signer: buyer });
    const cheap = await client.callTool({ name: 'get_price', arguments: { code: 'CL' } });
    const payload = await payer.createPaymentPayload(cheap.structuredContent as any);
    const before = await net.chain.balanceOf(buyer.address);
    const res = await client.callTool({ name: 'get_decision_pack', arguments: { sector: 'energy' }, _meta: { 'x402/payment': payload } });
    expect(res.isError).toBe(true);
    const dear = usdToAtomic(findRoute('GET /v1/decision/{sector}')!.priceUsd!);
    expect(res.structuredContent).toMatchObject({
      x402Version: 2,
      accepts: [
        { scheme: 'exact', amount: dear },
        { scheme: 'batch-settlement', amount: dear },
      ],
    });
    expect(await net.chain.balanceOf(buyer.address)).toBe(before);
  });
});
