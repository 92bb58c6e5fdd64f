/**
 * Every route's output schema (the route table's `output`) validates the body that route serves,
 * over HTTP on the local stack with the replay seed (paid routes in demo mode). The cases cover
 * every route of the table and every request that changes a body's shape (bundle, paging,
 * resampling, each sector, each fundamentals commodity, the curve stub and the licensed curve),
 * and they are checked against the table: a new route without a case fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { COT_INSTRUMENTS } from '../../shared/catalog/cot-markets';
import { FUTURES_ROOTS, FX_PAIRS, SECTORS } from '../../shared/catalog/instruments';
import { INVENTORY_KEYS } from '../../shared/catalog/inventory';
import { findRoute, ROUTES, type RouteId } from '../../shared/routes/table';
import { registerCurveProvider, unregisterCurveProvider } from '../../shared/sources/curve-source';
import { FAKE_PROVIDER_ID, fakeCurveProvider } from '../helpers/fake-curve-provider';
import { getJson, startTestStack } from '../helpers/stack';

/** Requests per route; each must answer 200 with a body its route's output schema accepts. */
const CASES: Record<RouteId, string[]> = {
  'GET /v1/price/{code}': ['/v1/price/CL', '/v1/price/GC', '/v1/price/ZC', '/v1/price/IO'],
  'GET /v1/prices': ['/v1/prices?codes=CL,NG,GC,ZC', '/v1/prices?codes=CL,BZ,HO,RB,NG,GC,HG,SI,ZC,ZW,ZS,KC,CC,SB,CT,ZR'],
  'GET /v1/history/{code}': [
    '/v1/history/CL',
    '/v1/history/CL?limit=3',
    '/v1/history/CL?frequency=weekly',
    '/v1/history/CL?frequency=monthly&start=2020-01-01',
    '/v1/history/GC?start=2024-01-01&end=2024-03-31',
  ],
  'GET /v1/curve/{root}': FUTURES_ROOTS.map((r) => `/v1/curve/${r}`),
  'GET /v1/inventory/eia': ['/v1/inventory/eia'],
  'GET /v1/inventory/eia/{series}': INVENTORY_KEYS.map((k) => `/v1/inventory/eia/${k}`),
  'GET /v1/cot/{code}': COT_INSTRUMENTS.map((c) => `/v1/cot/${c}`),
  'GET /v1/spreads/crack': ['/v1/spreads/crack'],
  'GET /v1/spreads/crush': ['/v1/spreads/crush'],
  'GET /v1/spreads/basis': ['/v1/spreads/basis'],
  'GET /v1/spreads/calendar/{root}': FUTURES_ROOTS.map((r) => `/v1/spreads/calendar/${r}`),
  'GET /v1/fundamentals/wasde': ['/v1/fundamentals/wasde', '/v1/fundamentals/wasde?commodity=corn'],
  'GET /v1/fundamentals/crop-progress': ['/v1/fundamentals/crop-progress', '/v1/fundamentals/crop-progress?commodity=soybeans'],
  'GET /v1/fundamentals/export-sales': ['/v1/fundamentals/export-sales', '/v1/fundamentals/export-sales?commodity=wheat'],
  'GET /v1/fundamentals/usgs': ['/v1/fundamentals/usgs', '/v1/fundamentals/usgs?commodity=copper'],
  'GET /v1/fx/{pair}': FX_PAIRS.map((p) => `/v1/fx/${p}`),
  'GET /v1/snapshot/{sector}': SECTORS.map((s) => `/v1/snapshot/${s}`),
  'GET /v1/decision/{sector}': SECTORS.map((s) => `/v1/decision/${s}`),
  'GET /v1/snapshot/all': ['/v1/snapshot/all'],
  'GET /v1/decision/all': ['/v1/decision/all'],
  'GET /': ['/'],
  'GET /health': ['/health'],
  'GET /v1/catalog': ['/v1/catalog'],
  'GET /v1/calendar': ['/v1/calendar'],
  'GET /llms.txt': ['/llms.txt'],
  'GET /llms-full.txt': ['/llms-full.txt'],
  'GET /openapi.json': ['/openapi.json'],
  'GET /SKILL.md': ['/SKILL.md'],
  'GET /.well-known/agent-card.json': ['/.well-known/agent-card.json'],
  'GET /.well-known/agent.json': ['/.well-known/agent.json'],
  'GET /.well-known/x402.json': ['/.well-known/x402.json'],
  'GET /.well-known/x402': ['/.well-known/x402'],
  'GET /terms.txt': ['/terms.txt'],
  'GET /favicon.ico': ['/favicon.ico'],
  'GET /api/mcp': ['/api/mcp'],
  'POST /api/mcp': [],
  'DELETE /api/mcp': [],
  'GET /.well-known/mcp/server.json': ['/.well-known/mcp/server.json'],
  'GET /pro': ['/pro'],
  'POST /pro/checkout': [],
  'POST /pro/webhook': [],
  'GET /pro/success': [],
  'GET /v1/payments/{id}': [],
  'POST /v1/watches': [],
  'GET /v1/watches': [],
  'GET /v1/watches/{id}': [],
  'DELETE /v1/watches/{id}': [],
};

/** Routes whose 200 body is not exercised here, with why (each must say so). */
const NOT_HERE: Partial<Record<RouteId, string>> = {
  'POST /api/mcp': 'JSON-RPC over MCP Streamable HTTP: validated by the MCP tests with the SDK client',
  'DELETE /api/mcp': 'always 405 (no sessions in stateless mode): checked by the MCP tests',
  'POST /pro/checkout': 'needs Stripe: checked against a loopback fake Stripe API in the Pro checkout tests',
  'POST /pro/webhook': 'needs a signed Stripe event: checked in the Pro checkout tests',
  'GET /pro/success': 'needs a paid checkout: checked in the Pro checkout tests',
  'GET /v1/payments/{id}': 'needs an exact payment: checked against its output schema in the deferred-settlement tests',
  'POST /v1/watches': 'needs a Pro key: each watch body is checked against its schema in test/watches/watches.test.ts',
  'GET /v1/watches': 'needs a Pro key: checked in test/watches/watches.test.ts',
  'GET /v1/watches/{id}': 'needs a Pro key: checked in test/watches/watches.test.ts',
  'DELETE /v1/watches/{id}': 'needs a Pro key: checked in test/watches/watches.test.ts',
};

/**
 * Validates a 200 body; a catalog entry the replay seed holds no data for may answer NO_DATA instead
 * (503 while a release can fill it, 404 when only the samples were replayed). Returns whether it was a 200.
 */
const check = async (base: string, routeId: RouteId, path: string): Promise<boolean> => {
  const res = await getJson(base, path);
  if ((res.status === 503 || res.status === 404) && res.body?.error?.code === 'NO_DATA') return false;
  expect(res.status, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
  const parsed = findRoute(routeId)!.output.safeParse(res.body);
  expect(parsed.success ? [] : parsed.error.issues.slice(0, 5), path).toEqual([]);
  return true;
};

describe('output schemas validate every served body (replay seed, demo mode)', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    // A day on which every spread's legs share a recent date (the crack's products end 2025-06-16),
    // so that every spread answers a body to validate.
    stack = await startTestStack({ X402_ENFORCE: undefined }, true, { now: () => new Date('2025-06-17T15:00:00Z') });
  });
  afterAll(() => stack?.close());

  it('has a case for every route of the table, or says why not', () => {
    for (const r of ROUTES) expect(CASES[r.id].length > 0 || NOT_HERE[r.id] !== undefined, r.id).toBe(true);
  });

  for (const [routeId, paths] of Object.entries(CASES) as [RouteId, string[]][]) {
    if (paths.length === 0) continue;
    it(routeId, async () => {
      let served = 0;
      for (const path of paths) if (await check(stack.url, routeId, path)) served++;
      expect(served, 'at least one request of the route answers 200').toBeGreaterThan(0);
    });
  }

  it('a body that drifts from its schema is refused (the check is not vacuous)', async () => {
    const res = await getJson(stack.url, '/v1/price/CL');
    const output = findRoute('GET /v1/price/{code}')!.output;
    expect(output.safeParse({ ...res.body, extra: 1 }).success).toBe(false);
    expect(output.safeParse({ ...res.body, value: '72.5' }).success).toBe(false);
    const { unit: _dropped, ...withoutUnit } = res.body;
    expect(output.safeParse(withoutUnit).success).toBe(false);
  });
});

describe('output schemas of the curve family with indicative futures on (fake licensed provider)', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    registerCurveProvider(FAKE_PROVIDER_ID, fakeCurveProvider({ calls: [] }));
    stack = await startTestStack({ INDICATIVE_FUTURES: '1', CURVE_PROVIDER: FAKE_PROVIDER_ID, CURVE_PROVIDER_API_KEY: 'test-key' }, false);
  });
  afterAll(async () => {
    await stack?.close();
    unregisterCurveProvider(FAKE_PROVIDER_ID);
  });

  it('GET /v1/curve/{root} and GET /v1/spreads/calendar/{root} serve the licensed curve in their schemas', async () => {
    expect(await check(stack.url, 'GET /v1/curve/{root}', '/v1/curve/CL')).toBe(true);
    expect(await check(stack.url, 'GET /v1/spreads/calendar/{root}', '/v1/spreads/calendar/CL')).toBe(true);
  });
});
