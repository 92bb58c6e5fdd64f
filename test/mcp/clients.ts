/**
 * The MCP clients the tests drive the endpoint with: the official SDK's v1 Client (what today's
 * clients run; it negotiates 2025-11-25 with `initialize`) and its v2 Client pinned to 2026-07-28
 * (`server/discover`, the per-request `_meta` envelope, Mcp-Method / Mcp-Name headers); plus raw
 * JSON-RPC POSTs of either era for what the clients hide (bytes, headers, cache fields).
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isOptionalInput } from '../../shared/mcp/tool-schemas';
import { TOOLS } from '../../shared/mcp/tools';

const ERAS = ['2025-11-25', '2026-07-28'] as const;
type Era = (typeof ERAS)[number];

/** What both SDK clients offer that the tests use. */
interface McpClient {
  listTools(): Promise<{ tools: Array<Record<string, any> & { name: string }> } & Record<string, unknown>>;
  callTool(params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> }): Promise<Record<string, any>>;
  close(): Promise<void>;
}

/**
 * Connects an official SDK client of the given era to the endpoint.
 * @param headers sent on every POST (a Pro key: `{ authorization: 'Bearer …' }`)
 */
const connect = async (url: string, era: Era, headers: Record<string, string> = {}): Promise<McpClient> => {
  const endpoint = new URL(`${url}/api/mcp`);
  if (era === '2025-11-25') {
    const client = new ClientV1({ name: 'mcp-test', version: '1.0.0' });
    await client.connect(new TransportV1(endpoint, { requestInit: { headers } }));
    return client as unknown as McpClient;
  }
  const client = new ClientV2({ name: 'mcp-test', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new TransportV2(endpoint, { requestInit: { headers } }));
  return client as unknown as McpClient;
};

/** A value every catalog parameter accepts, by argument name. */
const SAMPLE_ARGS: Readonly<Record<string, unknown>> = { code: 'CL', root: 'CL', pair: 'EURUSD', series: 'crude_ex_spr', sector: 'energy', codes: 'CL,NG' };

/** The arguments a tool cannot do without (those its strict input schema does not let be null), with sample values. */
const argsFor = (name: string): Record<string, unknown> => {
  const tool = TOOLS.find((t) => t.name === name)!;
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(properties)
      .filter(([, prop]) => !isOptionalInput(prop))
      .map(([k]) => [k, SAMPLE_ARGS[k]]),
  );
};

/** The values an enum argument takes, whether the argument is required or nullable. */
const enumOf = (prop: unknown): string[] | undefined => {
  const p = prop as { enum?: string[]; anyOf?: Array<{ enum?: string[] }> } | undefined;
  return p?.enum ?? p?.anyOf?.find((b) => b.enum)?.enum;
};

/** Every call worth validating: each tool with its required arguments, and each view of a tool that has views. */
const sampleCalls = (): Array<{ name: string; arguments: Record<string, unknown> }> =>
  TOOLS.flatMap((t) => {
    const views: Array<string | undefined> = enumOf((t.inputSchema.properties as Record<string, unknown> | undefined)?.view) ?? [undefined];
    return views.map((view) => ({ name: t.name, arguments: { ...argsFor(t.name), ...(view ? { view } : {}) } }));
  });

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/**
 * One JSON-RPC request POSTed as a client of `era` would: a 2025-era request as the v1 client sends
 * it after `initialize`, a 2026-07-28 one with the `_meta` envelope and the standard headers.
 * @returns the HTTP answer, its body as text
 */
const rawRpc = async (url: string, era: Era, method: string, params: Record<string, unknown> = {}, extraHeaders: Record<string, string> = {}) => {
  const modern = era === '2026-07-28';
  const name = typeof params.name === 'string' ? params.name : undefined;
  const res = await fetch(`${url}/api/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': era,
      ...(modern ? { 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) } : {}),
      ...extraHeaders,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: modern ? { ...params, _meta: { ...ENVELOPE, ...(params._meta as object) } } : params }),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

export { ERAS, connect, argsFor, sampleCalls, rawRpc };
export type { Era, McpClient };
