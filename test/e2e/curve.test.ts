import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { loadConfig } from '../../shared/config';
import { findRoute, isChargeable } from '../../shared/routes';
import { registerCurveProvider, unregisterCurveProvider } from '../../shared/sources/curve-source';
import { expectError, expectObservation } from '../helpers/contract';
import { FAKE_PROVIDER_ID, FAKE_RETRIEVED_AT, fakeCurveProvider } from '../helpers/fake-curve-provider';
import { getJson, startTestStack } from '../helpers/stack';

/** Whether the route table charges a curve-family route under these settings. */
const charged = (routeId: string, env: Record<string, string> = {}) =>
  isChargeable(findRoute(routeId)!, loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', ...env }));

describe('curve family with INDICATIVE_FUTURES off (default): explicit free stub', () => {
  let stack: LocalStack;
  const get = (path: string, init?: RequestInit) => getJson(stack.url, path, init);
  beforeAll(async () => {
    stack = await startTestStack({ INDICATIVE_FUTURES: undefined }, false);
  });
  afterAll(async () => stack?.close());

  it.each(['/v1/curve/CL', '/v1/spreads/calendar/CL'])('GET %s answers 200 with a stub body and no observations', async (path) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ stub: true, root: 'CL', charged: false, observations: [] });
    expect(res.body.reason).toMatch(/EIA stopped its NYMEX futures contract 1-4 price series in April 2024/);
    expect(res.body.enable).toMatch(/INDICATIVE_FUTURES=on and CURVE_PROVIDER=/);
    expect(res.body.alternatives[0]).toMatch(/^GET \/v1\/price\/CL/);
  });

  it('normalises the root and still validates it for the stub', async () => {
    expect((await get('/v1/curve/ng')).body).toMatchObject({ stub: true, root: 'NG' });
    const res = await get('/v1/curve/XX');
    expectError(res, 404, 'UNKNOWN_ROOT');
    expect(res.body.error.details.valid).toContain('CL');
    expect(res.body.error.details.valid).not.toContain('AL'); // aluminium is sold without a futures root
    expectError(await get('/v1/spreads/calendar/EURUSD'), 404, 'UNKNOWN_ROOT');
    expectError(await get(`/v1/curve/${encodeURIComponent('CL;DROP')}`), 400, 'INVALID_PARAMETER');
  });

  it('is free by the route table while indicative futures are off, and priced when on', () => {
    expect(charged('GET /v1/curve/{root}')).toBe(false);
    expect(charged('GET /v1/spreads/calendar/{root}')).toBe(false);
    const on = { INDICATIVE_FUTURES: '1', CURVE_PROVIDER: FAKE_PROVIDER_ID };
    expect(charged('GET /v1/curve/{root}', on)).toBe(true);
    expect(charged('GET /v1/spreads/calendar/{root}', on)).toBe(true);
  });
});

describe('curve family with INDICATIVE_FUTURES on and a (fake) licensed provider', () => {
  let stack: LocalStack;
  const calls: string[] = [];
  const get = (path: string) => getJson(stack.url, path);
  const env = { INDICATIVE_FUTURES: '1', CURVE_PROVIDER: FAKE_PROVIDER_ID, CURVE_PROVIDER_API_KEY: 'test-key' };
  beforeAll(async () => {
    registerCurveProvider(FAKE_PROVIDER_ID, fakeCurveProvider({ calls }));
    stack = await startTestStack(env, false);
  });
  afterAll(async () => {
    await stack?.close();
    unregisterCurveProvider(FAKE_PROVIDER_ID);
  });

  it('GET /v1/curve/CL serves the curve as indicative, delayed observations, front first', async () => {
    const res = await get('/v1/curve/CL');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      stub: false,
      root: 'CL',
      unit: 'USD/bbl',
      as_of: '2025-06-16',
      quality: 'indicative',
      freshness_class: 'delayed',
      count: 3,
    });
    res.body.observations.forEach(expectObservation);
    expect(res.body.observations.map((o: any) => [o.instrument, o.value, o.attributes.position])).toEqual([
      ['CLN25', 71.77, 1],
      ['CLQ25', 70.52, 2],
      ['CLU25', 69.4, 3],
    ]);
    expect(res.body.observations[0]).toMatchObject({
      quality: 'indicative',
      freshness_class: 'delayed',
      derived: false,
      source: { name: 'Fake Licensed Futures Data (test double)', series_id: 'CLN25' },
      provenance: { retrieved_at: FAKE_RETRIEVED_AT, cache_hit: false, cache_ttl_s: 60 },
      attributes: { root: 'CL', contract_month: '2025-07', position: 1 },
    });
  });

  it('GET /v1/spreads/calendar/CL is front minus second, from the cached curve', async () => {
    const before = calls.length;
    const res = await get('/v1/spreads/calendar/CL');
    expect(res.status).toBe(200);
    [res.body.observation, ...res.body.legs.map((l: any) => l.observation)].forEach(expectObservation);
    // CLN25 71.77 - CLQ25 70.52 = 1.25 (backwardation)
    expect(res.body.observation).toMatchObject({
      instrument: 'CL_CAL_1_2',
      value: 1.25,
      unit: 'USD/bbl',
      as_of: '2025-06-16',
      quality: 'derived',
      freshness_class: 'delayed',
      derived: true,
      provenance: { cache_hit: true, cache_ttl_s: 60 },
      attributes: { legs_quality: 'indicative' },
    });
    expect(res.body.method.formula).toBe('CLN25 - CLQ25');
    expect(calls.length).toBe(before); // the curve read above is still cached
  });

  it('is charged at the listed price: a forced challenge asks for 0.03 USD', async () => {
    const res = await getJson(stack.url, '/v1/curve/CL', { headers: { 'X-Force-402': '1' } });
    expect(res.status).toBe(402);
    expect(res.body.accepts[0]).toMatchObject({ maxAmountRequired: '30000', resource: '/v1/curve/CL' });
  });

  it('missing or broken provider data is a clear 503 or 502, never a 500', async () => {
    expectError(await get('/v1/curve/HG'), 503, 'NO_DATA'); // the provider has no HG curve
    expectError(await get('/v1/spreads/calendar/NG'), 503, 'NO_DATA'); // one contract only
    const failed = await get('/v1/curve/GC');
    expectError(failed, 502, 'UPSTREAM_ERROR');
    expect(failed.body.error.details).toEqual({ provider: FAKE_PROVIDER_ID, root: 'GC' });
    expectError(await get('/v1/curve/SI'), 502, 'UPSTREAM_ERROR'); // wrong unit
    expectError(await get('/v1/curve/XX'), 404, 'UNKNOWN_ROOT');
  });
});
