import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { expectError, expectObservation } from '../helpers/contract';
import { monthlySeries, priceObs, seed } from '../helpers/seed-observations';
import { getJson, startTestStack } from '../helpers/stack';

/** Every observation of a spread body: the spread and each leg. */
const observationsOf = (body: any): unknown[] => [body.observation, ...body.legs.map((l: any) => l.observation)];

describe('spreads over HTTP (replayed EIA spot samples)', () => {
  let stack: LocalStack;
  /** The service's clock, set per test after the replay seed ran (the samples end 2025-06-16 / 2026-08-18). */
  let day = new Date('2026-08-19T15:00:00Z');
  const get = (path: string, init?: RequestInit) => getJson(stack.url, path, init);
  beforeAll(async () => {
    stack = await startTestStack({}, true, { now: () => day });
  });
  afterAll(async () => stack?.close());

  it('GET /v1/spreads/crack on 2026-08-19: no value, because its legs share no date within 10 days (never a mix of 2025 products and 2026 crude)', async () => {
    day = new Date('2026-08-19T15:00:00Z');
    const res = await get('/v1/spreads/crack');
    // The real ULSD and gasoline samples end 2025-06-16 and WTI runs to 2026-08-18; the old answer
    // mixed them into 7.628 "as of 2025-06-16". The legs are replayed samples, which no release
    // changes: 404, not retryable.
    expectError(res, 404, 'NO_DATA');
    expect(res.body.error.retryable).toBe(false);
    expect(res.body.error.message).toMatch(
      /no date from 2026-08-09 to 2026-08-19 \(eod: 10 days\) that every leg shares \(newest: RB 2025-06-16, HO 2025-06-16, CL 2026-08-18\)/,
    );
    expect(res.body.error.details).toMatchObject({
      spread: 'crack',
      stale: true,
      legs: [
        { instrument: 'RB', newest_as_of: '2025-06-16' },
        { instrument: 'HO', newest_as_of: '2025-06-16' },
        { instrument: 'CL', newest_as_of: '2026-08-18' },
      ],
    });
    expect(JSON.stringify(res.body)).not.toMatch(/7\.628/);
  });

  it('GET /v1/spreads/crack on 2025-06-17: the legs of the date they share, 21.578', async () => {
    day = new Date('2025-06-17T15:00:00Z');
    const res = await get('/v1/spreads/crack');
    expect(res.status).toBe(200);
    observationsOf(res.body).forEach(expectObservation);
    // EIA 2025-06-16: RB 2.162 and HO 2.398 USD/gal, CL 72.53 USD/bbl (the samples' rows of that day):
    // (2 x 2.162 x 42 + 2.398 x 42 - 3 x 72.53) / 3 = (181.608 + 100.716 - 217.59) / 3 = 64.734 / 3 = 21.578
    expect(res.body).toMatchObject({ spread: 'crack', instrument: 'CRACK_3_2_1', unit: 'USD/bbl', as_of: '2025-06-16' });
    expect(res.body).not.toHaveProperty('aligned');
    expect(res.body.observation).toMatchObject({
      instrument: 'CRACK_3_2_1',
      value: 21.578,
      as_of: '2025-06-16',
      derived: true,
      freshness_class: 'eod',
      license_tag: 'public-domain (US government work)',
      attributes: { RB: 2.162, HO: 2.398, CL: 72.53 },
    });
    expect(res.body.observation.provenance).toMatchObject({ stale: false, expected_next_as_of: '2025-06-17', retrieval: 'replay' });
    expect(res.body.legs.map((l: any) => [l.instrument, l.observation.value, l.observation.as_of])).toEqual([
      ['RB', 2.162, '2025-06-16'],
      ['HO', 2.398, '2025-06-16'],
      ['CL', 72.53, '2025-06-16'],
    ]);
    expect(res.body.method.formula).toBe('(2 x RB x 42 + 1 x HO x 42 - 3 x CL) / 3');
    expect(res.body.method.rules.quality).toMatch(/weakest/);
    expect(res.body.method.rules.as_of).toMatch(/stale and has no value/);
  });

  it('GET /v1/spreads/basis: WTI - Brent on the same date', async () => {
    day = new Date('2026-08-19T15:00:00Z');
    const res = await get('/v1/spreads/basis');
    expect(res.status).toBe(200);
    observationsOf(res.body).forEach(expectObservation);
    // EIA 2026-08-18 (last rows of daily.RWTC / daily.RBRTE): WTI 86.48 - Brent 95.29 = -8.81
    expect(res.body.observation).toMatchObject({ instrument: 'BASIS_WTI_BRENT', value: -8.81, as_of: '2026-08-18', unit: 'USD/bbl' });
    expect(res.body.method.legs).toEqual([
      { instrument: 'CL', role: 'WTI Cushing (USD/bbl)', coefficient: 1, as_of: '2026-08-18' },
      { instrument: 'BZ', role: 'Brent (USD/bbl)', coefficient: -1, as_of: '2026-08-18' },
    ]);
  });

  it('reports a cache hit only when every leg was served from the cache', async () => {
    const again = await get('/v1/spreads/basis');
    // retrieved_at is when this stack replayed the EIA samples: the time of that ingestion run
    const replayed = (await stack.services.store.getRunStatus('eia-spot'))!.last_success_at;
    expect(again.body.observation.provenance).toMatchObject({ cache_hit: true, cache_ttl_s: 300, retrieved_at: replayed });
    expect(again.body.legs.every((l: any) => l.observation.provenance.cache_hit === true)).toBe(true);
  });

  it('challenges in demo mode only when forced', async () => {
    day = new Date('2025-06-17T15:00:00Z');
    expect((await get('/v1/spreads/crack', { headers: { 'X-Force-402': '1' } })).status).toBe(402);
  });
});

describe('spreads over HTTP (store seeded by the test)', () => {
  let stack: LocalStack;
  let day = new Date('2025-10-15T12:00:00Z');
  const get = (path: string) => getJson(stack.url, path);
  beforeAll(async () => {
    stack = await startTestStack({}, false, { now: () => day });
  });
  afterAll(async () => stack?.close());

  it('a spread whose legs have no data is a 503 NO_DATA naming them, not a 500 or NaN', async () => {
    const res = await get('/v1/spreads/crush');
    expectError(res, 503, 'NO_DATA');
    expect(res.body.error.retryable).toBe(true);
    expect(res.body.error.details.missing.map((m: any) => m.instrument)).toEqual(['ZM', 'ZL', 'ZS']);
  });

  it('one missing leg is named alone', async () => {
    await seed(stack.services.store, [priceObs('RB', '2025-06-16', 2.162), priceObs('HO', '2025-06-16', 2.398)]);
    stack.services.cache.clear();
    const res = await get('/v1/spreads/crack');
    expectError(res, 503, 'NO_DATA');
    expect(res.body.error.details).toMatchObject({ spread: 'crack', missing: [{ instrument: 'CL' }] });
    expect(res.body.error.message).toMatch(/CL missing/);
  });

  it('the crush of monthly derived legs says monthly and derived, aligned on the month all legs share', async () => {
    await seed(stack.services.store, [
      ...monthlySeries('ZM', '2025-09', [300, 305, 310]),
      ...monthlySeries('ZL', '2025-09', [0.5, 0.51, 0.52]),
      // soybeans already have October; meal and oil do not, so September is the latest shared month
      ...monthlySeries('ZS', '2025-10', [10, 10.2, 10.5, 10.9]),
    ]);
    stack.services.cache.clear();
    const res = await get('/v1/spreads/crush');
    expect(res.status).toBe(200);
    observationsOf(res.body).forEach(expectObservation);
    // 310 x 0.022 + 0.52 x 11 - 10.50 = 6.82 + 5.72 - 10.50 = 2.04
    expect(res.body.observation).toMatchObject({
      instrument: 'SOY_CRUSH',
      value: 2.04,
      unit: 'USD/bu',
      as_of: '2025-09-01',
      quality: 'derived',
      freshness_class: 'monthly',
      derived: true,
      license_tag: 'CC BY 4.0',
    });
    expect(res.body.legs.map((l: any) => l.observation.as_of)).toEqual(['2025-09-01', '2025-09-01', '2025-09-01']);
    expect(res.body.method.formula).toBe('ZM x 0.022 + ZL x 11 - ZS');
  });

  it('an indicative leg stays visible: the crush is derived with legs_quality indicative', async () => {
    await seed(stack.services.store, [priceObs('ZL', '2025-09-01', 0.52, { quality: 'indicative', derived: false })]);
    stack.services.cache.clear();
    const res = await get('/v1/spreads/crush');
    expect(res.body.observation).toMatchObject({ value: 2.04, quality: 'derived', attributes: { legs_quality: 'indicative' } });
  });

  it('legs without a shared date within the cadence: 503 NO_DATA saying why (no value, not a mix of two dates)', async () => {
    day = new Date('2025-01-06T12:00:00Z');
    await seed(stack.services.store, [priceObs('CL', '2025-01-02', 70), priceObs('BZ', '2025-01-03', 73.25)]);
    stack.services.cache.clear();
    const res = await get('/v1/spreads/basis');
    // Not replayed samples (the test seeded the store): a release can fill it, so 503, retryable.
    expectError(res, 503, 'NO_DATA');
    expect(res.body.error.retryable).toBe(true);
    expect(res.body.error.details).toMatchObject({
      spread: 'basis',
      stale: true,
      legs: [
        { instrument: 'CL', newest_as_of: '2025-01-02' },
        { instrument: 'BZ', newest_as_of: '2025-01-03' },
      ],
    });
    // once both legs have a shared day, the basis is that day's
    await seed(stack.services.store, [priceObs('CL', '2025-01-03', 71)]);
    stack.services.cache.clear();
    expect((await get('/v1/spreads/basis')).body.observation).toMatchObject({ value: -2.25, as_of: '2025-01-03' });
  });
});
