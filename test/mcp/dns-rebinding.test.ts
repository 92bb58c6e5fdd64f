/**
 * DNS rebinding protection on POST /api/mcp (MCP Streamable HTTP transport: servers MUST validate
 * Origin; local servers SHOULD bind to loopback and check Host), over raw HTTP so the Host and
 * Origin headers are exactly what a rebinding page's browser would send.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { startTestStack } from '../helpers/stack';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rebinding-test', version: '1.0.0' } },
});

/** POSTs an initialize with the given headers (Host included: node:http sends it as given). */
const post = (url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/mcp`,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(INITIALIZE);
  });

describe('served from a loopback address (npm start)', () => {
  let stack: LocalStack;
  let hostPort: string;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: undefined }, false);
    hostPort = new URL(stack.url).host;
  });
  afterAll(async () => {
    await stack?.close();
  });

  it.each([
    ['the conformance suite’s rebinding request (foreign Host and Origin)', { host: 'evil.example.com', origin: 'http://evil.example.com' }],
    ['a foreign Origin to the right Host', { origin: 'http://evil.example.com' }],
    ['a foreign Host without Origin (a rebound name, fetched without CORS)', { host: 'evil.example.com' }],
    ['the opaque origin "null" (sandboxed frames, file: pages)', { origin: 'null' }],
  ])('refuses %s with 403 and a JSON-RPC error', async (_what, headers) => {
    const res = await post(stack.url, headers);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  });

  it.each([
    ['no Origin (an agent or a server)', {}],
    ['a page served from the same loopback address', { origin: 'http://127.0.0.1:5173' }],
    ['localhost', { origin: 'http://localhost:3000', host: 'localhost' }],
  ])('serves %s', async (_what, headers) => {
    const res = await post(stack.url, { host: hostPort, ...headers });
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body).result.serverInfo.name).toBe('commodity-data');
  });
});

describe('with a configured public origin', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: undefined, PUBLIC_BASE_URL: 'https://data.example.com' }, false);
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('serves a page of that origin and an agent without Origin; refuses any other origin, localhost included', async () => {
    expect((await post(stack.url, { origin: 'https://data.example.com' })).status).toBe(200);
    expect((await post(stack.url, {})).status).toBe(200);
    expect((await post(stack.url, { origin: 'https://evil.example.com' })).status).toBe(403);
    expect((await post(stack.url, { origin: 'http://localhost:3000' })).status).toBe(403);
  });
});
