/**
 * One endpoint, both protocol eras (shared/mcp/server.ts): the 2025-11-25 revision today's clients
 * negotiate with `initialize`, and the stateless 2026-07-28 revision (no `initialize`; version and
 * capabilities in each request's `_meta`; `server/discover`; `ttlMs`/`cacheScope` on lists;
 * `Mcp-Method`/`Mcp-Name` headers), driven by the official SDK clients (v1 for 2025-11-25, v2 pinned
 * to 2026-07-28) and by raw POSTs for what the clients do not show.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { getJson, startTestStack } from '../helpers/stack';
import { rawRpc } from './clients';

describe('MCP protocol eras on POST /api/mcp', () => {
  let stack: LocalStack;
  let endpoint: URL;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: undefined });
    endpoint = new URL(`${stack.url}/api/mcp`);
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('the v1 SDK client negotiates 2025-11-25 with initialize and calls a tool', async () => {
    const client = new ClientV1({ name: 'v1', version: '1.0.0' });
    const transport = new TransportV1(endpoint);
    await client.connect(transport);
    try {
      expect(transport.protocolVersion).toBe('2025-11-25');
      expect(client.getServerVersion()).toMatchObject({ name: 'commodity-data', version: '0.1.0' });
      const res = await client.callTool({ name: 'get_price', arguments: { code: 'CL' } });
      expect(res.structuredContent).toMatchObject({ instrument: 'CL', unit: 'USD/bbl' });
    } finally {
      await client.close();
    }
  });

  it.each([[{ pin: '2026-07-28' }], ['auto']] as const)('the v2 SDK client (negotiation %j) speaks 2026-07-28 and gets the same body as HTTP', async (mode) => {
    const client = new ClientV2({ name: 'v2', version: '2.0.0' }, { versionNegotiation: { mode } });
    await client.connect(new TransportV2(endpoint));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(client.getServerVersion()).toMatchObject({ name: 'commodity-data', version: '0.1.0' });
      const list = await client.listTools();
      expect(list).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'public' });
      const [viaMcp, viaHttp] = await Promise.all([client.callTool({ name: 'get_price', arguments: { code: 'CL' } }), getJson(stack.url, '/v1/price/CL')]);
      const { provenance: _a, ...mcpObs } = viaMcp.structuredContent as Record<string, unknown>;
      const { provenance: _b, ...httpObs } = viaHttp.body;
      expect(mcpObs).toEqual(httpObs);
    } finally {
      await client.close();
    }
  });

  it('server/discover names 2026-07-28, the tools capability, the server and a public cache hint', async () => {
    const res = await rawRpc(stack.url, '2026-07-28', 'server/discover');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {} },
      ttlMs: 3_600_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'commodity-data' } },
    });
  });

  it('a 2026-07-28 tools/list carries resultType, ttlMs and cacheScope; a 2025-11-25 one does not', async () => {
    const modern = JSON.parse((await rawRpc(stack.url, '2026-07-28', 'tools/list')).text).result;
    expect(modern).toMatchObject({ resultType: 'complete', ttlMs: 3_600_000, cacheScope: 'public' });
    const legacy = JSON.parse((await rawRpc(stack.url, '2025-11-25', 'tools/list')).text).result;
    expect(Object.keys(legacy)).toEqual(['tools']);
    expect(legacy.tools).toEqual(modern.tools);
  });

  it('initialize (2025 era) is answered with the version asked for, or the newest 2025 revision', async () => {
    const init = (protocolVersion: string) =>
      rawRpc(stack.url, '2025-11-25', 'initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
    expect(JSON.parse((await init('2025-06-18')).text).result.protocolVersion).toBe('2025-06-18');
    expect(JSON.parse((await init('2026-07-28')).text).result.protocolVersion).toBe('2025-11-25');
  });

  it('2026-07-28 headers must agree with the body: a wrong Mcp-Method or Mcp-Name, or no MCP-Protocol-Version, is HTTP 400 -32020', async () => {
    const wrongMethod = await rawRpc(stack.url, '2026-07-28', 'tools/list', {}, { 'mcp-method': 'tools/call' });
    const wrongName = await rawRpc(stack.url, '2026-07-28', 'tools/call', { name: 'get_price', arguments: { code: 'CL' } }, { 'mcp-name': 'get_fx' });
    for (const res of [wrongMethod, wrongName]) {
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32020 } });
    }
    const noVersion = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-method': 'tools/list' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({ error: { code: -32020 } });
  });

  it('a 2026-07-28 request for a revision the server does not serve is refused with the ones it does', async () => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2099-01-01',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01', 'io.modelcontextprotocol/clientCapabilities': {} } },
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'], requested: '2099-01-01' } });
  });

  it('subscriptions/listen is acknowledged with nothing to send and closed at once (a Lambda holds no stream)', async () => {
    const res = await rawRpc(stack.url, '2026-07-28', 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const messages = res.text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)));
    expect(messages).toEqual([
      expect.objectContaining({ method: 'notifications/subscriptions/acknowledged', params: expect.objectContaining({ notifications: {} }) }),
      expect.objectContaining({ id: 1, result: expect.objectContaining({ resultType: 'complete' }) }),
    ]);
  });

  it('ping and initialize do not exist in 2026-07-28; an unknown tool is JSON-RPC -32602 in both eras', async () => {
    for (const method of ['ping', 'initialize']) {
      const res = JSON.parse((await rawRpc(stack.url, '2026-07-28', method)).text);
      expect(res.error?.code, method).toBe(-32601);
    }
    for (const era of ['2025-11-25', '2026-07-28'] as const) {
      const res = JSON.parse((await rawRpc(stack.url, era, 'tools/call', { name: 'get_everything', arguments: {} })).text);
      expect(res.error, era).toMatchObject({ code: -32602, message: expect.stringContaining('get_everything') });
    }
  });
});
