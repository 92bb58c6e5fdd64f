import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { RULES_VERSION } from '../../shared/analytics/decision';
import { expectError, expectObservation } from '../helpers/contract';
import { energyItems } from '../helpers/energy-fixture';
import { monthlySeries, priceObs, seed } from '../helpers/seed-observations';
import { getJson, startTestStack } from '../helpers/stack';

/** The body as text with every provenance member removed. */
const withoutProvenance = (body: unknown) => JSON.stringify(body, (k, v) => (k === 'provenance' ? undefined : v));

const packObservations = (pack: any): unknown[] => pack.signals.flatMap((s: any) => s.evaluations.flatMap((e: any) => e.inputs));

describe('decision packs over HTTP (store seeded by the test)', () => {
  let stack: LocalStack;
  const get = (path: string) => getJson(stack.url, path);
  beforeAll(async () => {
    // The hand-made energy set ends 2025-06-16: judged the next day, every input is inside its cadence.
    stack = await startTestStack({}, false, { now: () => new Date('2025-06-17T12:00:00Z') });
  });
  afterAll(async () => stack?.close());

  it('answers 503 NO_DATA for a sector with no input at all, and 404 for an unknown sector', async () => {
    const res = await get('/v1/decision/energy');
    expectError(res, 503, 'NO_DATA');
    expect(res.body.error.details.missing.map((m: any) => m.input)).toContain('price:CL');
    const bad = await get('/v1/decision/crypto');
    expectError(bad, 404, 'UNKNOWN_SECTOR');
    expect(bad.body.error.details.valid).toEqual(['energy', 'metals', 'ags']);
    expectError(await get('/v1/decision/all'), 503, 'NO_DATA');
  });

  it('GET /v1/decision/energy: hand-checked signals from prices, inventory, positioning and spreads', async () => {
    await seed(stack.services.store, energyItems());
    stack.services.cache.clear();
    const res = await get('/v1/decision/energy?view=full');
    expect(res.status).toBe(200);
    const pack = res.body;
    expect(pack).toMatchObject({ pack: 'decision', sector: 'energy', rules_version: RULES_VERSION, as_of: '2025-06-16' });
    packObservations(pack).forEach(expectObservation);
    const bySignal = Object.fromEntries(pack.signals.map((s: any) => [s.instrument, [s.signal, s.score, s.fired_rules]]));
    expect(bySignal).toEqual({
      // range (70 - 60) / 10 = 100 % -> +1; crude surprise -5000 <= -2000 -> +1; COT at the 3-year high -> -1
      CL: ['bullish', 1, ['price_range_1y', 'inventory_surprise', 'managed_money_percentile']],
      BZ: ['bearish', -1, ['price_range_1y']], // (65 - 65) / 5 = 0 %
      NG: ['neutral', 0, []], // (3.25 - 3) / 0.5 = 50 %
      HO: ['bullish', 1, ['price_range_1y']], // 100 %
      RB: ['neutral', 0, []], // flat range
      // crack = 28 RB + 14 HO - CL: 255 x 22.5 (the year before), then 24, 23.4, 22.8, 22.2, 21.6, 21;
      // 21 is the lowest of 261: 100 x 0.5 / 261 = 0.1916
      CRACK_3_2_1: ['bearish', -1, ['spread_vs_history']],
      // basis = CL - BZ: 255 x -2.5, then -10, -7, -4, -1, 2, 5; 5 is the highest: 100 x 260.5 / 261 = 99.8084
      BASIS_WTI_BRENT: ['bullish', 1, ['spread_vs_history']],
    });
    const evals = (code: string) => pack.signals.find((s: any) => s.instrument === code).evaluations;
    // 261 of the 261 weekdays from 2024-06-16 through 2025-06-16: covered
    expect(evals('CRACK_3_2_1')[0].values).toMatchObject({ percentile: 0.1916, latest: 21, min: 21, max: 24, points: 261, coverage_pct: 100 });
    expect(evals('BASIS_WTI_BRENT')[0].values).toMatchObject({ percentile: 99.8084, latest: 5 });
    expect(evals('CL')[1].values).toEqual({ series: 'crude_ex_spr', surprise: -5000, threshold: 2000 });
    // 157 weekly reports, the latest the unique maximum: 100 x (156 + 0.5) / 157 = 99.6815; its net is
    // 100,000 + 156 x 100 - 50,000 = 65,600 contracts long, 13.12 % of 500,000 open interest, so the words say crowded long
    expect(evals('CL')[2].values).toEqual({ net: 65_600, net_pct_oi: 13.12, percentile: 99.6815 });
    expect(evals('CL')[2].reason).toBe(
      'managed money net long 65,600 contracts (13.12 % of open interest), at percentile 99.6815 of its 3-year window (>= 90): crowded long',
    );
    expect(pack.summary).toEqual({
      instruments: 7,
      bullish: 3,
      bearish: 2,
      neutral: 2,
      net_score: 1,
      stale: 0,
      bias: 'bullish',
      text: 'energy: 3 bullish, 2 bearish, 2 neutral -> bullish',
    });
    // each signal says what it is about and how fresh it is; the crack speaks for refiners' margins
    const crack = pack.signals.find((s: any) => s.instrument === 'CRACK_3_2_1');
    expect(crack).toMatchObject({ as_of: '2025-06-16', stale: false, stale_reason: null });
    expect(crack.signal_for).toMatch(/^refiners' margins/);
    // inputs it could not get are listed, not fatal
    expect(pack.missing.map((m: any) => m.input)).toEqual(expect.arrayContaining(['inventory:cushing', 'cot:NG', 'cot:HO', 'cot:RB']));
    expect(pack.inputs_digest).toMatchObject({ algorithm: 'SHA-256', value: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(pack.ruleset.rules.map((r: any) => r.id)).toEqual(['price_range_1y', 'inventory_surprise', 'managed_money_percentile', 'spread_vs_history']);
  });

  it('is deterministic: the default view is byte-identical for the same stored inputs, cold or warm', async () => {
    const first = await get('/v1/decision/energy'); // served from the read cache
    stack.services.cache.clear();
    const cold = await fetch(`${stack.url}/v1/decision/energy`); // read again from the store
    const second = await fetch(`${stack.url}/v1/decision/energy`); // and from the cache
    const [coldText, warmText] = [await cold.text(), await second.text()];
    expect(coldText).toBe(warmText);
    expect(coldText).toBe(JSON.stringify(first.body));
    // every input is a reference that can be checked: instrument, as_of, value, unit, quality
    expect(first.body.signals[0].evaluations[0].inputs[0]).toEqual({ instrument: 'CL', as_of: '2025-06-16', value: 70, unit: 'USD/bbl', quality: 'official' });
    expect(first.body).toMatchObject({ view: 'compact', full_view: '/v1/decision/energy?view=full' });
    // view=full carries each input's per-call provenance: only that differs between a cold and a warm call
    stack.services.cache.clear();
    const fullCold = await get('/v1/decision/energy?view=full');
    const fullWarm = await get('/v1/decision/energy?view=full');
    expect(fullWarm.body.inputs_digest).toEqual(first.body.inputs_digest);
    expect(withoutProvenance(fullWarm.body)).toBe(withoutProvenance(fullCold.body));
    expect(fullCold.body.signals[0].evaluations[0].inputs[0].provenance.cache_hit).toBe(false);
    expect(fullWarm.body.signals[0].evaluations[0].inputs[0].provenance.cache_hit).toBe(true);
  });

  it('a changed stored input changes the digest', async () => {
    const before = (await get('/v1/decision/energy')).body.inputs_digest.value;
    await seed(stack.services.store, [priceObs('NG', '2025-06-12', 3.49)]); // a revision of an old NG value
    stack.services.cache.clear();
    const after = await get('/v1/decision/energy');
    expect(after.body.inputs_digest.value).not.toBe(before);
    await seed(stack.services.store, [priceObs('NG', '2025-06-12', 3.5)]); // revert it
    stack.services.cache.clear();
    expect((await get('/v1/decision/energy')).body.inputs_digest.value).toBe(before);
  });

  it('GET /v1/decision/all bundles every sector; a sector without data is listed, not fatal', async () => {
    await seed(stack.services.store, monthlySeries('GC', '2025-11', [2600, 2700, 2800, 2900, 3000, 3100, 3200, 3300, 3400, 3500, 3600, 3700, 4087.19]));
    stack.services.cache.clear();
    const res = await get('/v1/decision/all?view=full');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ pack: 'decision', sector: 'all', rules_version: RULES_VERSION });
    expect(res.body.sectors.map((s: any) => s.sector)).toEqual(['energy', 'metals', 'ags']);
    for (const p of res.body.sectors) for (const o of packObservations(p)) expectObservation(o);
    const metals = res.body.sectors[1];
    // GC: 13 monthly values, the latest (4087.19) the 1-year high -> bullish
    expect(metals.signals.map((s: any) => [s.instrument, s.signal])).toEqual([['GC', 'bullish']]);
    expect(metals.missing.map((m: any) => m.input)).toContain('price:PA');
    expect(res.body.sectors[2].signals).toEqual([]);
    expect(res.body.summary).toMatchObject({ instruments: 8, bullish: 4, bearish: 2 });
    // the energy part is the energy pack
    const energy = await get('/v1/decision/energy?view=full');
    expect(withoutProvenance(res.body.sectors[0])).toBe(withoutProvenance({ ...energy.body, ruleset: undefined, disclaimer: undefined, view: undefined }));
    // the default view of the bundle is under 32 KB
    const compact = await get('/v1/decision/all');
    expect(compact.body).toMatchObject({ view: 'compact', full_view: '/v1/decision/all?view=full' });
    expect(Buffer.byteLength(JSON.stringify(compact.body))).toBeLessThan(32 * 1024);
    // compact: each signal keeps the evaluations that fired (by reference); full keeps them all
    const rulesOf = (body: any, fired: boolean) =>
      body.sectors.map((p: any) => p.signals.map((x: any) => x.evaluations.filter((e: any) => !fired || e.fired).map((e: any) => e.rule)));
    expect(rulesOf(compact.body, false)).toEqual(rulesOf(res.body, true));
    expect(rulesOf(res.body, false).flat(2).length).toBeGreaterThan(rulesOf(res.body, true).flat(2).length);
    expect(compact.body.sectors[1].signals[0].evaluations).toContainEqual(expect.objectContaining({ rule: 'price_range_1y', fired: true, signal: 'bullish' }));
  });
});
