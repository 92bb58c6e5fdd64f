/**
 * Issue 37, conditional requests: every paid answer carries a keyed ETag of its data; If-None-Match
 * with the current tag is a 304 with no body and charges nothing in any lane (Pro credits, an
 * attached x402 payment of either scheme, MCP), with or without payment; the tag is unguessable
 * (a tag computed for the true answer without the server's secret does not match); answers as known
 * at a past instant have their own tags; a new figure changes the tag.
 */
import { createHash, createHmac } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { canonicalJson } from '../../shared/analytics/digest';
import { dataOf, etagOf, ifNoneMatches, jsonOf } from '../../shared/http/conditional';
import { DynamoCreditLedger, newKeyRecord } from '../../shared/pro/credit-ledger';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { findRoute } from '../../shared/routes';
import { createDocumentClient } from '../../shared/store/client';
import { acceptedFor, b64, signAuthorization, startFakeFacilitator, v2Payload, type FakeFacilitator } from '../payment/helpers';
import { syntheticObservation } from '../helpers/synthetic-observation';
import { getJson, startTestStack } from '../helpers/stack';

const payTo = privateKeyToAccount(generatePrivateKey()).address;

describe('etagOf and If-None-Match (pure)', () => {
  const route = findRoute('GET /v1/price/{code}')!;
  const body = { instrument: 'CL', value: 61.5, as_of: '2026-08-18', provenance: { cache_hit: false, cache_ttl_s: 300, retrieved_at: '2026-08-19T00:00:00Z' } };
  const key = Buffer.alloc(32, 7);

  it('the tag covers the data and not the per-call provenance', () => {
    const hit = { ...body, provenance: { cache_hit: true, cache_ttl_s: 120, retrieved_at: '2026-08-20T00:00:00Z' } };
    expect(etagOf(key, route, { code: 'CL' }, {}, hit)).toBe(etagOf(key, route, { code: 'CL' }, {}, body));
    expect(etagOf(key, route, { code: 'CL' }, {}, { ...body, value: 61.51 })).not.toBe(etagOf(key, route, { code: 'CL' }, {}, body));
    expect(etagOf(key, route, { code: 'CL' }, { as_known_at: '2026-08-01T00:00:00Z' }, body)).not.toBe(etagOf(key, route, { code: 'CL' }, {}, body));
    expect(etagOf(Buffer.alloc(32, 8), route, { code: 'CL' }, {}, body)).not.toBe(etagOf(key, route, { code: 'CL' }, {}, body));
  });

  // The oracle: the HMAC over the route input and the canonical JSON of the answer without its volatile fields.
  const expected = (k: Uint8Array, params: object, query: object, data: object) =>
    `"${createHmac('sha256', k)
      .update(`${route.id}\n${canonicalJson(params)}\n${canonicalJson(query)}\n`)
      .update(canonicalJson(data))
      .digest('base64url')
      .slice(0, 32)}"`;
  const deepFrozen = <T>(v: T): T => {
    if (v && typeof v === 'object') for (const m of Object.values(v)) deepFrozen(m);
    return Object.freeze(v);
  };

  it('a frozen (cached) answer keeps its own tag per input and per secret, each the HMAC of its data', () => {
    const cached = deepFrozen(structuredClone(body));
    const { provenance: _p, ...data } = body;
    const past = { as_known_at: '2026-08-01T00:00:00Z' };
    // Twice each, so the second of each is answered from what the first remembered.
    for (let i = 0; i < 2; i++) {
      expect(etagOf(key, route, { code: 'CL' }, {}, cached)).toBe(expected(key, { code: 'CL' }, {}, data));
      expect(etagOf(key, route, { code: 'CL' }, past, cached)).toBe(expected(key, { code: 'CL' }, past, data));
      expect(etagOf(Buffer.alloc(32, 8), route, { code: 'CL' }, {}, cached)).toBe(expected(Buffer.alloc(32, 8), { code: 'CL' }, {}, data));
    }
  });

  it('an answer frozen only on top is hashed again each call: a change below it changes the tag', () => {
    const partly = Object.freeze({ instrument: 'CL', figure: { value: 61.5 } });
    const before = etagOf(key, route, { code: 'CL' }, {}, partly);
    partly.figure.value = 61.51;
    expect(etagOf(key, route, { code: 'CL' }, {}, partly)).not.toBe(before);
    expect(etagOf(key, route, { code: 'CL' }, {}, partly)).toBe(expected(key, { code: 'CL' }, {}, { instrument: 'CL', figure: { value: 61.51 } }));
  });

  it("an answer's JSON is kept only while nothing in it can change: frozen all the way down, plain objects and arrays", () => {
    const cached = deepFrozen(structuredClone(body));
    expect(jsonOf(cached)).toBe(JSON.stringify(body));
    expect(jsonOf(cached)).toBe(JSON.stringify(body));
    const partly = Object.freeze({ figure: { value: 61.5 } });
    expect(jsonOf(partly)).toBe('{"figure":{"value":61.5}}');
    partly.figure.value = 61.51;
    expect(jsonOf(partly)).toBe('{"figure":{"value":61.51}}');
    // A frozen Date still changes (its time is not a property).
    const dated = deepFrozen({ at: new Date(0) });
    expect(jsonOf(dated)).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
    dated.at.setTime(86_400_000);
    expect(jsonOf(dated)).toBe('{"at":"1970-01-02T00:00:00.000Z"}');
  });

  it('the data text is JSON of the sorted members: integer-like keys first, as an object built from them orders them', () => {
    expect(dataOf({ b: 3, 10: 1, a: [2, undefined], 9: 2, x: undefined, provenance: {} })).toBe('{"9":2,"10":1,"a":[2,null],"b":3}');
    // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested
    expect(dataOf([1, , 3])).toBe('[1,null,3]');
  });

  it('If-None-Match: a list, weak prefixes and * match; anything else does not', () => {
    const tag = etagOf(key, route, { code: 'CL' }, {}, body);
    expect(ifNoneMatches(`"x", ${tag}`, tag)).toBe(true);
    expect(ifNoneMatches(`W/${tag}`, tag)).toBe(true);
    expect(ifNoneMatches('*', tag)).toBe(true);
    expect(ifNoneMatches(`${tag.slice(0, -2)}A"`, tag)).toBe(false);
    expect(ifNoneMatches('', tag)).toBe(false);
  });
});

describe('conditional requests on paid routes (enforced, fake facilitator)', () => {
  let stack: LocalStack;
  let fake: FakeFacilitator;
  let ledger: DynamoCreditLedger;
  const newKey = async () => {
    const key = generateKey();
    await ledger.put(newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }));
    return key;
  };
  const creditsOf = async (key: string) => (await ledger.get(hashKey(key)))!.creditsLeft;
  const usageOf = async (key: string) => ledger.usage(hashKey(key), new Date().toISOString().slice(0, 7));
  const keyed = (key: string, headers: Record<string, string> = {}) => ({ headers: { authorization: `Bearer ${key}`, ...headers } });

  beforeAll(async () => {
    fake = await startFakeFacilitator();
    stack = await startTestStack({ X402_ENFORCE: '1', X402_PAY_TO: payTo, X402_FACILITATOR_URL: fake.url, PRO_RATE_LIMIT_PER_SECOND: '10000' });
    ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await fake?.close();
  });

  it('Pro lane: the paid answer has a tag; If-None-Match with it is a 304, no body, no credits, no usage entry', async () => {
    const key = await newKey();
    const first = await getJson(stack.url, '/v1/inventory/eia', keyed(key));
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]{32}"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-store');
    expect(first.headers.get('vary')).toMatch(/If-None-Match/);
    expect(await creditsOf(key)).toBe(3000 - 3);

    // A second paid read is a cache hit (provenance differs): the same data, the same tag.
    const second = await getJson(stack.url, '/v1/inventory/eia', keyed(key));
    expect(second.headers.get('etag')).toBe(etag);
    expect(await creditsOf(key)).toBe(3000 - 6);

    const res = await fetch(`${stack.url}/v1/inventory/eia`, keyed(key, { 'if-none-match': etag }));
    expect(res.status).toBe(304);
    expect(await res.text()).toBe('');
    expect(res.headers.get('etag')).toBe(etag);
    expect(res.headers.get('x-credits-charged')).toBeNull();
    expect(await creditsOf(key)).toBe(3000 - 6);
    expect(await usageOf(key)).toHaveLength(2);
  });

  it('without any payment, and with an x402 payment of either scheme attached: 304, the facilitator never asked', async () => {
    const key = await newKey();
    const etag = (await getJson(stack.url, '/v1/price/CL', keyed(key))).headers.get('etag')!;
    fake.reset();
    const unpaid = await fetch(`${stack.url}/v1/price/CL`, { headers: { 'if-none-match': etag } });
    expect(unpaid.status).toBe(304);

    const signed = await signAuthorization(privateKeyToAccount(generatePrivateKey()), { payTo });
    const exact = await fetch(`${stack.url}/v1/price/CL`, {
      headers: { 'if-none-match': etag, 'payment-signature': b64(v2Payload(signed, acceptedFor(payTo))) },
    });
    expect(exact.status).toBe(304);
    // A batch-settlement voucher is never decoded either: the decision comes before every lane.
    const voucher = {
      x402Version: 2,
      accepted: { scheme: 'batch-settlement', network: 'eip155:84532' },
      payload: { voucher: { channelId: '0x01', maxClaimableAmount: '10000' } },
    };
    const batch = await fetch(`${stack.url}/v1/price/CL`, { headers: { 'if-none-match': etag, 'payment-signature': b64(voucher) } });
    expect(batch.status).toBe(304);
    expect(fake.calls.verify).toHaveLength(0);
    expect(fake.calls.settle).toHaveLength(0);

    // The same exact payment with a stale tag pays for the answer: verified, settled, 200 with the current tag.
    const paid = await fetch(`${stack.url}/v1/price/CL`, {
      headers: { 'if-none-match': '"stale"', 'payment-signature': b64(v2Payload(signed, acceptedFor(payTo))) },
    });
    expect(paid.status).toBe(200);
    expect(paid.headers.get('etag')).toBe(etag);
    expect(fake.calls.settle).toHaveLength(1);
  });

  it('a tag guessed for the true answer without the server secret does not match: 402, nothing learned', async () => {
    const key = await newKey();
    const res = await getJson(stack.url, '/v1/price/CL', keyed(key));
    const route = findRoute('GET /v1/price/{code}')!;
    // What a caller who knows (or guesses) the figure can compute: plain hashes of the answer, and HMACs with guessable keys.
    const text = JSON.stringify(res.body);
    const guesses = [
      `"${createHash('sha256').update(text).digest('base64url').slice(0, 32)}"`,
      `"${createHash('sha256').update(dataOf(res.body)).digest('base64url').slice(0, 32)}"`,
      `"${createHmac('sha256', '')
        .update(`${route.id}\n${canonicalJson({ code: 'CL' })}\n{}\n`)
        .update(dataOf(res.body))
        .digest('base64url')
        .slice(0, 32)}"`,
      etagOf(Buffer.alloc(32), route, { code: 'CL' }, {}, res.body),
    ];
    for (const guess of guesses) {
      const r = await fetch(`${stack.url}/v1/price/CL`, { headers: { 'if-none-match': guess } });
      expect(r.status).toBe(402);
      await r.text();
    }
  });

  it('as_known_at answers have their own tags, and 304 on their own', async () => {
    const key = await newKey();
    const latest = (await getJson(stack.url, '/v1/price/CL', keyed(key))).headers.get('etag');
    const pastPath = '/v1/price/CL?as_known_at=2026-08-01T00:00:00Z';
    const past = await getJson(stack.url, pastPath, keyed(key));
    expect(past.status).toBe(200);
    const pastTag = past.headers.get('etag')!;
    expect(pastTag).not.toBe(latest);
    const before = await creditsOf(key);
    expect((await fetch(`${stack.url}${pastPath}`, keyed(key, { 'if-none-match': pastTag }))).status).toBe(304);
    const withLatest = await fetch(`${stack.url}${pastPath}`, keyed(key, { 'if-none-match': latest! }));
    expect(withLatest.status).toBe(200);
    await withLatest.text();
    expect(await creditsOf(key)).toBe(before - 1);
  });

  it('a new figure changes the tag: the old tag pays for the new answer', async () => {
    const key = await newKey();
    const first = await getJson(stack.url, '/v1/fx/EURUSD', keyed(key));
    const old = first.headers.get('etag')!;
    const next = new Date(Date.parse(`${first.body.as_of}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    await stack.services.store.upsertMany([
      {
        seriesKey: 'PRICE#EURUSD',
        observation: { ...syntheticObservation(next, 1.2345), instrument: 'EURUSD', unit: first.body.unit, freshness_class: first.body.freshness_class },
      },
    ]);
    stack.services.cache.clear();
    const res = await getJson(stack.url, '/v1/fx/EURUSD', keyed(key, { 'if-none-match': old }));
    expect(res.status).toBe(200);
    expect(res.body.value).toBe(1.2345);
    expect(res.headers.get('etag')).not.toBe(old);
    expect(await creditsOf(key)).toBe(3000 - 2);
  });

  it('MCP: a paid tool answer names its etag; if_none_match with it answers not_modified and charges nothing', async () => {
    const key = await newKey();
    const post = async (args: Record<string, unknown>) => {
      const res = await fetch(`${stack.url}/api/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-03-26',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_price', arguments: args } }),
      });
      return ((await res.json()) as { result: Record<string, any> }).result;
    };
    const first = await post({ code: 'CL', if_none_match: null });
    expect(first.structuredContent.instrument).toBe('CL');
    const etag = first._meta['commodity-data/etag'];
    // The same data over HTTP has the same tag.
    expect((await getJson(stack.url, '/v1/price/CL', keyed(key))).headers.get('etag')).toBe(etag);
    const credits = await creditsOf(key);
    const again = await post({ code: 'CL', if_none_match: etag });
    expect(again.isError).toBeUndefined();
    expect(again.structuredContent).toEqual({ not_modified: true, etag });
    expect(await creditsOf(key)).toBe(credits);
    const stale = await post({ code: 'CL', if_none_match: '"stale"' });
    expect(stale.structuredContent.instrument).toBe('CL');
    expect(await creditsOf(key)).toBe(credits - 1);
  });
});
