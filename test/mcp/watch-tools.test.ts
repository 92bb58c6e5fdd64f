/**
 * Issue 37, webhook watches as MCP tools, with the official SDK clients of both protocol eras on the
 * local stack: the same rules as /v1/watches (they run its handlers): a Pro key on the connection,
 * paths checked by the route table, internal receivers refused, the limit per key, the secret shown
 * once; create -> list -> get -> delete, and what MCP creates is what HTTP lists.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { buildLlmsFullTxt, buildSkillMd } from '../../shared/docs/text';
import { WATCH_TOOLS } from '../../shared/mcp/watch-tools';
import { DynamoCreditLedger, newKeyRecord } from '../../shared/pro/credit-ledger';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { MAX_WATCHES_PER_KEY, WatchCreatedBody, WatchDeletedBody, WatchDetailBody, WatchListBody } from '../../shared/schemas/watches';
import { createDocumentClient } from '../../shared/store/client';
import { getJson, startTestStack } from '../helpers/stack';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver';
import { connect, ERAS, type McpClient } from './clients';

let stack: LocalStack;
let receiver: Receiver;
let ledger: DynamoCreditLedger;
const clients: McpClient[] = [];

beforeAll(async () => {
  // Empty store: a watch needs no data to exist (its first figure is news).
  stack = await startTestStack({ X402_ENFORCE: undefined }, false);
  receiver = await startReceiver();
  ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await stack?.close();
  await receiver?.close();
});

const newKey = async () => {
  const key = generateKey();
  await ledger.put(newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }));
  return key;
};
const connectWith = async (era: (typeof ERAS)[number], key: string | null) => {
  const client = await connect(stack.url, era, key ? { authorization: `Bearer ${key}` } : {});
  clients.push(client);
  return client;
};
/** Each answer and refusal passes the tool's listed outputSchema (Ajv 2020, strict, as in tool-list.test.ts). */
const checkedAgainstListed = async (client: McpClient) => {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  addFormats(ajv);
  const validators = new Map((await client.listTools()).tools.map((t) => [t.name, ajv.compile(t.outputSchema)]));
  return async (name: string, args: Record<string, unknown>) => {
    const res = await client.callTool({ name, arguments: args });
    const validate = validators.get(name)!;
    expect(validate(res.structuredContent) ? [] : validate.errors, name).toEqual([]);
    return res;
  };
};
const errorCodeOf = (res: Record<string, any>) => {
  expect(res.isError, JSON.stringify(res.structuredContent)).toBe(true);
  return res.structuredContent?.error?.code as string;
};

describe('webhook watch tools', () => {
  it('are listed with strict input schemas and no price', async () => {
    const tools = (await (await connectWith('2026-07-28', null)).listTools()).tools;
    const listed = tools.filter((t) => WATCH_TOOLS.some((w) => w.name === t.name));
    expect(listed.map((t) => t.name)).toEqual(['create_watch', 'list_watches', 'get_watch', 'delete_watch']);
    const create = listed[0]!;
    expect(create.inputSchema).toMatchObject({ type: 'object', required: ['path', 'url'], additionalProperties: false });
    expect(create._meta).toEqual({ route: 'POST /v1/watches', price_usd: null });
    expect(create.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    expect(listed[3]!.annotations).toMatchObject({ destructiveHint: true });
  });

  it('are documented for agents: llms-full.txt and SKILL.md name every one', () => {
    const config = { INDICATIVE_FUTURES: false, X402_NETWORK: 'eip155:84532' } as const;
    const docs = [buildLlmsFullTxt('https://data.example', config), buildSkillMd('https://data.example', config)];
    for (const doc of docs) for (const tool of WATCH_TOOLS) expect(doc).toContain(tool.name);
  });

  it.each(ERAS)('%s: without a Pro key every watch tool is refused INVALID_API_KEY (a tool error, the body HTTP answers)', async (era) => {
    const anonymous = await connectWith(era, null);
    expect(errorCodeOf(await anonymous.callTool({ name: 'create_watch', arguments: { path: '/v1/inventory/eia', url: receiver.url } }))).toBe(
      'INVALID_API_KEY',
    );
    expect(errorCodeOf(await anonymous.callTool({ name: 'list_watches', arguments: {} }))).toBe('INVALID_API_KEY');
    expect(errorCodeOf(await anonymous.callTool({ name: 'get_watch', arguments: { id: 'w0123456789abcdef0123' } }))).toBe('INVALID_API_KEY');
    expect(errorCodeOf(await anonymous.callTool({ name: 'delete_watch', arguments: { id: 'w0123456789abcdef0123' } }))).toBe('INVALID_API_KEY');
  });

  it.each(ERAS)('%s: create -> list -> get -> delete; the secret is shown once; HTTP sees the same watches', async (era) => {
    const key = await newKey();
    const client = await connectWith(era, key);
    const auth = { headers: { authorization: `Bearer ${key}` } };

    const call = await checkedAgainstListed(client);
    const created = await call('create_watch', { path: '/v1/inventory/eia?view=compact', url: receiver.url });
    expect(created.isError, JSON.stringify(created.structuredContent)).toBeFalsy();
    const watch = WatchCreatedBody.parse(created.structuredContent);
    expect(watch).toMatchObject({ path: '/v1/inventory/eia?view=compact', url: receiver.url, state: 'active', deliveries: 0, limit: MAX_WATCHES_PER_KEY });
    expect(watch.secret).toMatch(/^whsec_/);
    expect(JSON.parse(created.content[0].text)).toEqual(created.structuredContent);

    const listed = await call('list_watches', {});
    expect(WatchListBody.parse(listed.structuredContent).watches.map((w) => w.id)).toEqual([watch.id]);
    expect(JSON.stringify(listed)).not.toContain(watch.secret);
    // The HTTP route lists what the tool created: one store, one set of rules.
    expect((await getJson(stack.url, '/v1/watches', auth)).body).toEqual(listed.structuredContent);

    const read = await call('get_watch', { id: watch.id });
    expect(WatchDetailBody.parse(read.structuredContent)).toMatchObject({ id: watch.id, recent_deliveries: [] });
    expect(JSON.stringify(read)).not.toContain(watch.secret);

    // Another key sees nothing of it and cannot delete it.
    const other = await connectWith(era, await newKey());
    expect(errorCodeOf(await other.callTool({ name: 'get_watch', arguments: { id: watch.id } }))).toBe('NOT_FOUND');
    expect(errorCodeOf(await other.callTool({ name: 'delete_watch', arguments: { id: watch.id } }))).toBe('NOT_FOUND');

    const deleted = await call('delete_watch', { id: watch.id });
    expect(WatchDeletedBody.parse(deleted.structuredContent)).toEqual({ id: watch.id, deleted: true });
    expect(errorCodeOf(await call('get_watch', { id: watch.id }))).toBe('NOT_FOUND');
    expect((await call('list_watches', {})).structuredContent).toEqual({ watches: [], limit: MAX_WATCHES_PER_KEY });
  });

  it('checks paths by the route table, receivers and ids as HTTP does', async () => {
    const client = await connectWith('2025-11-25', await newKey());
    const create = (args: Record<string, unknown>) => client.callTool({ name: 'create_watch', arguments: args });
    expect(errorCodeOf(await create({ path: '/v1/catalog', url: receiver.url }))).toBe('INVALID_PARAMETER');
    expect(errorCodeOf(await create({ path: 'https://evil.example/v1/price/CL', url: receiver.url }))).toBe('INVALID_PARAMETER');
    expect(errorCodeOf(await create({ path: '/v1/price/CL?as_known_at=2026-01-01T00:00:00Z', url: receiver.url }))).toBe('INVALID_PARAMETER');
    expect(errorCodeOf(await create({ path: '/v1/price/NOPE', url: receiver.url }))).toBe('UNKNOWN_INSTRUMENT');
    expect(errorCodeOf(await create({ path: '/v1/price/CL', url: 'http://169.254.169.254/latest/meta-data/' }))).toBe('INVALID_PARAMETER');
    expect(errorCodeOf(await create({ path: '/v1/price/CL', url: null }))).toBe('INVALID_PARAMETER');
    expect(errorCodeOf(await create({ path: '/v1/price/CL', url: receiver.url, colour: 'blue' }))).toBe('INVALID_PARAMETER');
    expect(errorCodeOf(await client.callTool({ name: 'get_watch', arguments: { id: '../v1/price/CL' } }))).toBe('INVALID_PARAMETER');
    expect((await client.callTool({ name: 'list_watches', arguments: {} })).structuredContent).toMatchObject({ watches: [] });
  });

  it(`holds at most ${MAX_WATCHES_PER_KEY} watches per key, the ones made over HTTP counted`, async () => {
    const key = await newKey();
    const made = await Promise.all(
      Array.from({ length: MAX_WATCHES_PER_KEY }, () =>
        getJson(stack.url, '/v1/watches', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ path: '/v1/fx/EURUSD', url: receiver.url }),
        }),
      ),
    );
    expect(made.map((r) => r.status)).toEqual(made.map(() => 201));
    const client = await connectWith('2026-07-28', key);
    const refused = await client.callTool({ name: 'create_watch', arguments: { path: '/v1/fx/EURUSD', url: receiver.url } });
    expect(errorCodeOf(refused)).toBe('WATCH_LIMIT');
    expect(refused.structuredContent).toMatchObject({ error: { details: { limit: MAX_WATCHES_PER_KEY } } });
  });
});
