import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { examplePath } from '../../shared/docs/text';
import { DynamoCreditLedger, newKeyRecord } from '../../shared/pro/credit-ledger';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { FREE_ROUTES, PAID_ROUTES, findRoute, isChargeable, ROUTES, usdToAtomic, usdToCredits } from '../../shared/routes';
import { createDocumentClient } from '../../shared/store/client';
import { SOURCES } from '../../shared/sources/registry';
import { expectError } from '../helpers/contract';
import { getJson, startTestStack } from '../helpers/stack';

describe('free discovery routes over HTTP', () => {
  let stack: LocalStack;
  const get = (path: string, init?: RequestInit) => getJson(stack.url, path, init);
  beforeAll(async () => {
    // X402_ENFORCE on: free routes must still never challenge.
    stack = await startTestStack({ X402_ENFORCE: '1' });
  });
  afterAll(async () => stack?.close());

  it('answers every free route with 200 and no challenge, even with X-Force-402', async () => {
    for (const r of FREE_ROUTES) {
      const res = await get(r.path, { headers: { 'X-Force-402': '1' } });
      expect(res.status, r.path).toBe(200);
      expect(res.headers.get('payment-required'), r.path).toBeNull();
    }
  });

  it('/health reports per-source freshness and an overall status', async () => {
    const res = await get('/health');
    expect(res.body.sources.map((s: any) => s.id)).toEqual(SOURCES.map((s) => s.id));
    const spot = res.body.sources.find((s: any) => s.id === 'eia-spot');
    // Its run just succeeded, but its data is old: the newest EIA spot figure is WTI/Brent/Henry Hub of
    // 2026-08-18 (daily.*.2024-01-02_2026-08-18.csv), and a daily price may lag 10 days (8 for the run).
    expect(spot).toMatchObject({ stale: true, last_error: null, max_age_h: 192, newest_as_of: '2026-08-18' });
    expect(spot.stale_reason).toBe('its newest figure is dated 2026-08-18, more than 10 days ago (eod data)');
    expect(spot.age_s).toBeGreaterThanOrEqual(0);
    // USGS publishes once a year (runs allowed 400 days apart): its 2025 figures are not stale.
    expect(res.body.sources.find((s: any) => s.id === 'usgs-mcs')).toMatchObject({ stale: false, stale_reason: null });
    const stale = res.body.sources.filter((s: any) => s.stale).map((s: any) => s.id);
    expect(res.body.stale_sources).toEqual(stale);
    expect(res.body.status).toBe(stale.length === 0 ? 'ok' : stale.length === res.body.sources.length ? 'down' : 'degraded');
  });

  it('/v1/catalog lists all 27 instruments with live flags and pricing_usd from the route table', async () => {
    const res = await get('/v1/catalog');
    expect(res.body.instruments).toHaveLength(27);
    const cl = res.body.instruments.find((i: any) => i.code === 'CL');
    expect(cl).toMatchObject({ live: true, unit: 'USD/bbl', source: 'eia-spot' });
    expect(cl.pricing_usd).toEqual({ 'GET /v1/price/{code}': '0.01', 'GET /v1/history/{code}': '0.02', 'GET /v1/cot/{code}': '0.02' });
    expect(res.body.instruments.find((i: any) => i.code === 'PA')).toMatchObject({ live: false, not_live_reason: expect.stringMatching(/palladium/) });
    expect(res.body.instruments.find((i: any) => i.code === 'EURUSD').pricing_usd['GET /v1/fx/{pair}']).toBe('0.01');
    expect(res.body.routes).toHaveLength(PAID_ROUTES.length);
    expect(res.body.routes.find((r: any) => r.id === 'GET /v1/decision/all')).toMatchObject({
      price_usd: '0.25',
      price_credits: 25,
      price_usdc_atomic: '250000',
      charged: true,
    });
    expect(res.body.routes.find((r: any) => r.id === 'GET /v1/curve/{root}')).toMatchObject({ price_usd: '0.03', charged: false });
  });

  it('/v1/calendar lists every source with its next release, soonest first', async () => {
    const res = await get('/v1/calendar');
    expect(res.body.releases.map((r: any) => r.source).sort()).toEqual(SOURCES.map((s) => s.id).sort());
    const times = res.body.releases.map((r: any) => r.next_release_at);
    expect(times.every((t: string) => Date.parse(t) > Date.parse(res.body.as_of))).toBe(true);
    expect(times).toEqual([...times].sort());
    // Each date says whether it is on the publisher's verified schedule or a rule's estimate.
    expect(res.body.releases.every((r: any) => typeof r.estimated === 'boolean' && 'shifted_by' in r)).toBe(true);
  });

  it('serves the generated documents with their media types', async () => {
    const llms = await fetch(`${stack.url}/llms.txt`);
    expect(llms.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await llms.text();
    for (const r of PAID_ROUTES) expect(text).toContain(r.path);
    const openapi = await get('/openapi.json');
    expect(openapi.body.openapi).toBe('3.1.0');
    expect(openapi.body.info.version).toBe('0.1.0');
    expect(openapi.body.paths['/v1/history/{code}'].get['x-price-usd']).toBe('0.02');
    expect(openapi.body.paths['/v1/history/{code}'].get.parameters.map((p: any) => p.name)).toEqual([
      'code',
      'start',
      'end',
      'limit',
      'frequency',
      'cursor',
      'as_known_at',
      // The header by which an x402 v1 client asks for the v1 402 body.
      'X402-Version',
      'If-None-Match', // issue 37: the conditional request header of paid routes
    ]);
    const skill = await fetch(`${stack.url}/SKILL.md`);
    expect(skill.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const x402 = await get('/.well-known/x402.json');
    // 18 chargeable routes; curve and calendar spread are free stubs while INDICATIVE_FUTURES is off.
    expect(x402.body.resources).toHaveLength(PAID_ROUTES.filter((r) => isChargeable(r, stack.config)).length);
    expect(x402.body.free_while_stubbed).toEqual(['GET /v1/curve/{root}', 'GET /v1/spreads/calendar/{root}']);
    const price = x402.body.resources.find((r: any) => r.url.endsWith('/v1/price/{code}'));
    expect(price.accepts[0]).toMatchObject({
      scheme: 'exact',
      network: 'eip155:84532',
      amount: '10000',
      maxAmountRequired: '10000',
      asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      extra: { name: 'USDC', version: '2' },
    });
  });

  it('answers unknown paths with a JSON 404, a wrong method with 405, an over-long URL with 414, an oversized body with 413', async () => {
    expectError(await get('/v2/price/CL'), 404, 'NOT_FOUND');
    expectError(await get('/v1'), 404, 'NOT_FOUND');
    expectError(await get('/v1/price/CL', { method: 'DELETE' }), 405, 'METHOD_NOT_ALLOWED');
    expectError(await get(`/v1/price/${'x'.repeat(9000)}`), 414, 'URI_TOO_LONG');
    expectError(await get('/api/mcp', { method: 'POST', body: 'x'.repeat(1024 * 1024 + 1) }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it("server.json's registry name is the configured one (default: the registry's anonymous namespace), never the reversed host", async () => {
    const name = (await get('/.well-known/mcp/server.json')).body.name;
    expect(name).toBe('io.modelcontextprotocol.anonymous/commodity-data');
    expect(name).not.toContain('127');
  });

  it('GET /api/mcp lists one tool per paid route plus the free catalog, calendar and health tools and the four watch tools', async () => {
    const res = await get('/api/mcp');
    expect(res.body.tools).toHaveLength(PAID_ROUTES.length + 3 + 4);
    expect(res.body.tools.map((t: any) => t.name)).toEqual(
      expect.arrayContaining([
        'get_crack_spread',
        'get_catalog',
        'get_release_calendar',
        'get_health',
        'create_watch',
        'list_watches',
        'get_watch',
        'delete_watch',
      ]),
    );
  });
});

describe('HEAD, path words and small things (enforced)', () => {
  let stack: LocalStack;
  const key = generateKey();
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: '1', MCP_REGISTRY_NAME: 'io.github.alice/commodity-data' });
    const ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
    await ledger.put({ ...newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }), creditsLeft: 10_000 });
  });
  afterAll(async () => stack?.close());

  it('answers HEAD on every GET route as the GET without a body, and free (no challenge, no debit)', async () => {
    const ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
    const before = (await ledger.get(hashKey(key)))!.creditsLeft;
    let chargedByGets = 0;
    for (const r of ROUTES.filter((x) => x.method === 'GET')) {
      const path = r.id === 'GET /pro/success' ? '/pro/success?session_id=cs_test_unknown' : examplePath(r);
      const head = await fetch(`${stack.url}${path}`, { method: 'HEAD', headers: { authorization: `Bearer ${key}` } });
      expect(await head.text(), r.id).toBe('');
      expect(head.headers.get('payment-required'), r.id).toBeNull();
      expect(head.headers.get('x-credits-charged'), r.id).toBeNull();
      // The GET it stands for: free routes as they are, paid ones paid with the Pro key.
      const get = await fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      const body = await get.text();
      chargedByGets += Number(get.headers.get('x-credits-charged') ?? 0);
      expect(head.status, r.id).toBe(get.status);
      expect(head.headers.get('content-type'), r.id).toBe(get.headers.get('content-type'));
      // Bodies that do not change from one call to the next: the same length.
      if (['/llms.txt', '/openapi.json', '/SKILL.md', '/terms.txt', '/.well-known/agent-card.json', '/.well-known/x402'].includes(r.path))
        expect(Number(head.headers.get('content-length')), r.id).toBe(Buffer.byteLength(body));
    }
    expect(chargedByGets).toBeGreaterThan(0);
    expect((await ledger.get(hashKey(key)))!.creditsLeft).toBe(before - chargedByGets);
    // An unknown path and a POST-only path: their GET statuses, no body.
    const unknown = await fetch(`${stack.url}/v2/nowhere`, { method: 'HEAD' });
    expect([unknown.status, await unknown.text()]).toEqual([404, '']);
    const postOnly = await fetch(`${stack.url}/pro/checkout`, { method: 'HEAD' });
    expect([postOnly.status, await postOnly.text()]).toEqual([405, '']);
  });

  it('folds the case of every path word: /v1/decision/All and /v1/snapshot/ALL are the all-sector routes', async () => {
    const challenge = async (path: string) => {
      const res = await getJson(stack.url, path);
      expect(res.status, path).toBe(402);
      return res.body.accepts[0].amount as string;
    };
    const decisionAll = await challenge('/v1/decision/all');
    expect(decisionAll).toBe(usdToAtomic(findRoute('GET /v1/decision/all')!.priceUsd!));
    expect(await challenge('/v1/decision/All')).toBe(decisionAll);
    expect(await challenge('/v1/decision/ALL')).toBe(decisionAll);
    expect(await challenge('/v1/snapshot/ALL')).toBe(usdToAtomic(findRoute('GET /v1/snapshot/all')!.priceUsd!));
    expect(await challenge('/v1/decision/Energy')).toBe(usdToAtomic(findRoute('GET /v1/decision/{sector}')!.priceUsd!));
    const paid = await getJson(stack.url, '/v1/decision/All', { headers: { authorization: `Bearer ${key}` } });
    expect(paid.status).toBe(200);
    expect(paid.headers.get('x-credits-charged')).toBe(String(usdToCredits(findRoute('GET /v1/decision/all')!.priceUsd!)));
    expectError(await getJson(stack.url, '/v1/decision/mars'), 404, 'UNKNOWN_SECTOR');
  });

  it("server.json's registry name comes from configuration, not from the host", async () => {
    expect((await getJson(stack.url, '/.well-known/mcp/server.json')).body.name).toBe('io.github.alice/commodity-data');
  });

  it('llms.txt says "1 credit" and "3 credits"', async () => {
    const text = await (await fetch(`${stack.url}/llms.txt`)).text();
    expect(text).toContain('(1 credit, 10000 USDC atomic units)');
    expect(text).toContain('(3 credits, 30000 USDC atomic units)');
    expect(text).not.toMatch(/\b1 credits\b/);
  });
});

describe('local start-up configuration checks', () => {
  it('refuses to start with indicative futures on and no curve provider, naming what to set', async () => {
    await expect(startTestStack({ INDICATIVE_FUTURES: '1', CURVE_PROVIDER: undefined }, false)).rejects.toThrow(/CURVE_PROVIDER/);
  });

  it('refuses to start with a malformed setting, listing the problem', async () => {
    await expect(startTestStack({ X402_NETWORK: 'eip155:1' }, false)).rejects.toThrow(/X402_NETWORK/);
  });
});

describe('llms-full.txt', () => {
  it('states the method of every derived family, taken from the code that computes it', async () => {
    const { buildLlmsFullTxt } = await import('../../shared/docs/text');
    const { INVENTORY_METHOD } = await import('../../shared/analytics/inventory');
    const { RULES_VERSION } = await import('../../shared/analytics/decision');
    const text = buildLlmsFullTxt('https://api.example', { INDICATIVE_FUTURES: false, X402_NETWORK: 'eip155:84532' });
    const headings = text.split('\n').filter((l) => l.startsWith('### '));
    for (const path of [
      '/v1/history/{code}',
      '/v1/inventory/eia',
      '/v1/cot/{code}',
      '/v1/spreads/crack',
      '/v1/spreads/basis',
      '/v1/fundamentals/wasde',
      '/v1/fundamentals/crop-progress',
      '/v1/fundamentals/export-sales',
      '/v1/fundamentals/usgs',
      '/v1/decision/all',
    ]) {
      // One methods section per derived family (route sections are headed by their method and path).
      expect(headings.filter((h) => h.includes(path) && !/^### (GET|POST|DELETE) /.test(h))).toHaveLength(1);
    }
    expect(text).toContain(INVENTORY_METHOD.surprise);
    expect(text).toContain('(2 x RB x 42 + 1 x HO x 42 - 3 x CL) / 3');
    expect(text).toContain(RULES_VERSION);
  });
});
