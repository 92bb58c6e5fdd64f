/**
 * Issue 37, managing watches over HTTP: Pro keys only; paths checked against the route table (paid
 * GET routes, valid parameters, no as_known_at); receivers checked (no internal address); at most
 * MAX_WATCHES_PER_KEY per key, also when created at once; a key sees and deletes only its own; the
 * bodies match their schemas. And the fan-out delivers news only: an unchanged answer is never sent.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type LocalStack } from '../../infra/local/stack';
import { DynamoCreditLedger, newKeyRecord } from '../../shared/pro/credit-ledger';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { createDocumentClient } from '../../shared/store/client';
import { MAX_WATCHES_PER_KEY, WatchCreatedBody, WatchDeletedBody, WatchDetailBody, WatchListBody } from '../../shared/schemas/watches';
import { expectError } from '../helpers/contract';
import { getJson } from '../helpers/stack';
import { syntheticObservation } from '../helpers/synthetic-observation';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver';

let stack: LocalStack;
let receiver: Receiver;
let ledger: DynamoCreditLedger;

beforeAll(async () => {
  const id = randomUUID().slice(0, 8);
  // A long poll: these tests start fan-outs themselves.
  stack = await startLocalStack({ env: { OBSERVATIONS_TABLE: `test-obs-${id}`, CREDITS_TABLE: `test-credits-${id}` }, watches: { pollMs: 60_000 } });
  receiver = await startReceiver();
  ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

const newKey = async () => {
  const key = generateKey();
  await ledger.put(newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }));
  return key;
};
const create = (key: string | null, body: unknown) =>
  getJson(stack.url, '/v1/watches', {
    method: 'POST',
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('/v1/watches', () => {
  it('needs an active Pro key', async () => {
    expectError(await create(null, { path: '/v1/price/CL', url: receiver.url }), 401, 'INVALID_API_KEY');
    expectError(await getJson(stack.url, '/v1/watches'), 401, 'INVALID_API_KEY');
    expectError(await getJson(stack.url, '/v1/watches', { headers: { authorization: `Bearer ${generateKey()}` } }), 401, 'INVALID_API_KEY');
  });

  it('watches only paid GET paths with valid parameters, and never an internal receiver', async () => {
    const key = await newKey();
    expectError(await create(key, { path: '/v1/catalog', url: receiver.url }), 400, 'INVALID_PARAMETER');
    expectError(await create(key, { path: '/v1/nope', url: receiver.url }), 400, 'INVALID_PARAMETER');
    expectError(await create(key, { path: 'https://evil.example/v1/price/CL', url: receiver.url }), 400, 'INVALID_PARAMETER');
    expectError(await create(key, { path: '/v1/price/CL?as_known_at=2026-01-01T00:00:00Z', url: receiver.url }), 400, 'INVALID_PARAMETER');
    expectError(await create(key, { path: '/v1/price/NOPE', url: receiver.url }), 404, 'UNKNOWN_INSTRUMENT');
    expectError(await create(key, { path: '/v1/price/CL', url: 'http://169.254.169.254/latest/meta-data/' }), 400, 'INVALID_PARAMETER');
    expectError(await create(key, { path: '/v1/price/CL', url: 'http://10.0.0.1/hook' }), 400, 'INVALID_PARAMETER');
    expectError(await create(key, { path: '/v1/price/CL' }), 400, 'INVALID_PARAMETER');
    expect((await getJson(stack.url, '/v1/watches', { headers: { authorization: `Bearer ${key}` } })).body.watches).toEqual([]);
  });

  it(`holds at most ${MAX_WATCHES_PER_KEY} watches per key, also when created at once; deleting one frees a place`, async () => {
    const key = await newKey();
    const results = await Promise.all(Array.from({ length: MAX_WATCHES_PER_KEY + 5 }, () => create(key, { path: '/v1/fx/EURUSD', url: receiver.url })));
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(MAX_WATCHES_PER_KEY);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 409, 'WATCH_LIMIT');
    WatchCreatedBody.parse(created[0]!.body);

    const auth = { headers: { authorization: `Bearer ${key}` } };
    const list = await getJson(stack.url, '/v1/watches', auth);
    expect(WatchListBody.parse(list.body).watches).toHaveLength(MAX_WATCHES_PER_KEY);
    // The secret is shown once: never in a list or a read.
    expect(JSON.stringify(list.body)).not.toContain('whsec_');

    const id = created[0]!.body.id;
    const other = await newKey();
    expectError(await getJson(stack.url, `/v1/watches/${id}`, { headers: { authorization: `Bearer ${other}` } }), 404, 'NOT_FOUND');
    expectError(await getJson(stack.url, `/v1/watches/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${other}` } }), 404, 'NOT_FOUND');

    WatchDetailBody.parse((await getJson(stack.url, `/v1/watches/${id}`, auth)).body);
    const deleted = await getJson(stack.url, `/v1/watches/${id}`, { method: 'DELETE', ...auth });
    expect(WatchDeletedBody.parse(deleted.body)).toEqual({ id, deleted: true });
    expectError(await getJson(stack.url, `/v1/watches/${id}`, auth), 404, 'NOT_FOUND');
    expect((await create(key, { path: '/v1/fx/EURUSD', url: receiver.url })).status).toBe(201);
  });

  it('delivers news only: no delivery while the answer is unchanged, one when a figure lands', async () => {
    const key = await newKey();
    const created = await create(key, { path: '/v1/price/BZ', url: receiver.url });
    expect(created.status).toBe(201);
    const before = receiver.received.length;
    await stack.watches!.fanOutNow();
    await stack.watches!.idle();
    expect(receiver.received.length).toBe(before);

    const latest = await stack.services.store.latest('PRICE#BZ');
    const next = new Date(Date.parse(`${latest!.as_of}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    await stack.services.store.upsertMany([{ seriesKey: 'PRICE#BZ', observation: { ...syntheticObservation(next, 70.01), instrument: 'BZ' } }]);
    const result = await stack.watches!.fanOutNow();
    expect(result.changed).toContain('/v1/price/BZ');
    await stack.watches!.idle();
    const mine = receiver.received.slice(before).filter((r) => JSON.parse(r.body).watch_id === created.body.id);
    expect(mine).toHaveLength(1);
    expect(JSON.parse(mine[0]!.body).data).toMatchObject({ instrument: 'BZ', value: 70.01, as_of: next });
    // The same state fanned out again: nothing.
    await stack.watches!.fanOutNow();
    await stack.watches!.idle();
    expect(receiver.received.slice(before).filter((r) => JSON.parse(r.body).watch_id === created.body.id)).toHaveLength(1);
  });
});
