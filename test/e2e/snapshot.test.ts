import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { expectError, expectObservation } from '../helpers/contract';
import { ENERGY_PRICES, energyItems } from '../helpers/energy-fixture';
import { monthlySeries, seed } from '../helpers/seed-observations';
import { getJson, startTestStack } from '../helpers/stack';
import { walkObservations } from '../helpers/walk-observations';

describe('snapshots over HTTP (store seeded by the test)', () => {
  let stack: LocalStack;
  /** The service's clock: late 2026 (the hand-made energy set of June 2025 is old then) unless a test sets it. */
  const LATE_2026 = new Date('2026-11-26T12:00:00Z');
  let day = LATE_2026;
  const get = (path: string) => getJson(stack.url, path);
  beforeAll(async () => {
    stack = await startTestStack({}, false, { now: () => day });
  });
  afterAll(async () => stack?.close());

  it('answers 503 NO_DATA when nothing of a sector is stored, and 404 UNKNOWN_SECTOR with the valid sectors', async () => {
    const empty = await get('/v1/snapshot/energy');
    expectError(empty, 503, 'NO_DATA');
    expect(empty.body.error.details.missing.map((m: any) => m.input)).toEqual([
      'price:CL',
      'price:BZ',
      'price:NG',
      'price:HO',
      'price:RB',
      'inventories',
      'crack',
    ]);
    expectError(await get('/v1/snapshot/all'), 503, 'NO_DATA');
    const bad = await get('/v1/snapshot/fx');
    expectError(bad, 404, 'UNKNOWN_SECTOR');
    expect(bad.body.error.details.valid).toEqual(['energy', 'metals', 'ags']);
    expectError(await get('/v1/snapshot/ENERGY%3B'), 400, 'INVALID_PARAMETER');
  });

  it('GET /v1/snapshot/energy: latest of every instrument, inventories and crack, staleness', async () => {
    await seed(stack.services.store, [...energyItems(), ...monthlySeries('GC', '2025-11', [4000, 4087.19])]);
    stack.services.cache.clear();
    day = new Date('2025-06-17T12:00:00Z'); // the day after the set ends: the crack's legs share 2025-06-16
    const res = await get('/v1/snapshot/ENERGY?view=full'); // sectors are case-insensitive
    day = LATE_2026;
    expect(res.status).toBe(200);
    walkObservations(res.body).forEach(expectObservation);
    const b = res.body;
    expect(b).toMatchObject({ sector: 'energy', as_of: '2025-06-16', missing: [] });
    expect(b.instruments.observations.map((o: any) => [o.instrument, o.value, o.as_of])).toEqual(
      Object.entries(ENERGY_PRICES).map(([code, values]) => [code, values.at(-1), '2025-06-16']),
    );
    // crack on 2025-06-16: (2 x 2.0 x 42 + 2.5 x 42 - 3 x 70) / 3 = (168 + 105 - 210) / 3 = 21
    expect(b.fundamentals.crack.observation).toMatchObject({ instrument: 'CRACK_3_2_1', value: 21, as_of: '2025-06-16' });
    // crude stocks: 415,000 after 420,000 -> change -5,000; all prior-year changes 0 -> surprise -5,000
    const crude = b.fundamentals.inventories.series.find((s: any) => s.key === 'crude_ex_spr');
    expect(crude.week_over_week_change.value).toBe(-5000);
    expect(crude.surprise.value).toBe(-5000);
    expect(b.fundamentals.inventories.missing.map((m: any) => m.key)).toContain('cushing');
    // no source has a recorded run in this store: every one counts as stale
    expect(b.staleness).toMatchObject({ status: 'down', stale_sources: ['eia-spot', 'eia-petroleum', 'eia-gas-storage'] });
    expect(b.staleness.oldest_observation).toEqual({ instrument: 'CL', as_of: '2025-06-16', freshness_class: 'eod' });
  });

  it('reports a source with a recent success as fresh', async () => {
    const now = day.toISOString();
    await stack.services.store.putRunStatus({ source: 'eia-spot', last_attempt_at: now, last_success_at: now, last_error: null, last_items: 30 });
    const res = await get('/v1/snapshot/energy?view=full');
    expect(res.body.staleness).toMatchObject({ status: 'degraded', stale_sources: ['eia-petroleum', 'eia-gas-storage'] });
    expect(res.body.staleness.sources.find((s: any) => s.id === 'eia-spot')).toMatchObject({ stale: false, last_success_at: now });
  });

  it('GET /v1/snapshot/metals: a partial answer lists what is missing and why', async () => {
    const res = await get('/v1/snapshot/metals?view=full');
    expect(res.status).toBe(200);
    walkObservations(res.body).forEach(expectObservation);
    expect(res.body.instruments.observations.map((o: any) => [o.instrument, o.value])).toEqual([['GC', 4087.19]]);
    expect(res.body.fundamentals).toEqual({ usgs: null });
    const missing = Object.fromEntries(res.body.missing.map((m: any) => [m.input, m.reason]));
    expect(missing['price:PA']).toMatch(/^not live/);
    expect(missing['price:SI']).toBe('no observation of SI is stored yet');
    expect(missing.usgs).toMatch(/no USGS data is stored yet/);
  });

  it('GET /v1/snapshot/all: one call, every sector plus FX context, one staleness summary', async () => {
    const res = await get('/v1/snapshot/all?view=full');
    expect(res.status).toBe(200);
    walkObservations(res.body).forEach(expectObservation);
    expect(res.body.sector).toBe('all');
    expect(res.body.sectors.map((s: any) => [s.sector, s.instruments.count])).toEqual([
      ['energy', 5],
      ['metals', 1],
      ['ags', 0],
    ]);
    expect(res.body.sectors[2].missing.map((m: any) => m.input)).toEqual(expect.arrayContaining(['price:ZC', 'wasde', 'crop_progress', 'export_sales']));
    expect(res.body.fx).toMatchObject({ count: 0, missing: [{ input: 'price:DTWEXBGS' }, { input: 'price:EURUSD' }, { input: 'price:USDCNY' }] });
    expect(res.body.as_of).toBe('2025-11-01');
    expect(res.body.staleness.sources.map((s: any) => s.id)).toEqual(expect.arrayContaining(['eia-spot', 'worldbank', 'usda-wasde', 'fred']));
  });

  describe('the compact view (default)', () => {
    it('energy: each price with its change since the previous observation, the inventory and crack lines, every figure stale', async () => {
      const res = await get('/v1/snapshot/energy');
      expect(res.status).toBe(200);
      const b = res.body;
      expect(b).toMatchObject({ sector: 'energy', view: 'compact', full_view: '/v1/snapshot/energy?view=full', as_of: '2025-06-16', missing: [] });
      // CL 68 -> 70 on the last two weekdays (2025-06-13 Fri, 2025-06-16 Mon): +2; BZ 66 -> 65: -1; RB flat: 0
      const byCode = Object.fromEntries(b.instruments.map((i: any) => [i.instrument, i]));
      expect(byCode.CL).toEqual({
        instrument: 'CL',
        value: 70,
        unit: 'USD/bbl',
        as_of: '2025-06-16',
        change: 2,
        change_since: '2025-06-13',
        quality: 'official',
        derived: false,
        stale: true,
      });
      expect([byCode.BZ.change, byCode.NG.change, byCode.HO.change, byCode.RB.change]).toEqual([-1, 0.25, 0.1, 0]);
      // crude stocks 420,000 -> 415,000: -5,000 week over week; the crack of 2025-06-16 is 21 (worked above), derived
      const lines = Object.fromEntries(b.fundamentals.map((l: any) => [l.key, l]));
      expect(lines.crude_ex_spr).toMatchObject({ part: 'inventories', value: 415_000, change: -5000, change_basis: 'week_over_week', stale: true });
      // read in late 2026, the crack's legs share no date within 10 days: listed as stale, with no value and why
      expect(lines.CRACK_3_2_1).toEqual({
        part: 'crack',
        key: 'CRACK_3_2_1',
        label: '3-2-1 crack spread, cash proxy',
        value: null,
        bound: null,
        unit: 'USD/bbl',
        as_of: null,
        change: null,
        change_basis: null,
        quality: null,
        derived: false,
        stale: true,
        note: expect.stringMatching(/^the 3-2-1 crack spread, cash proxy: no date from 2026-11-16 to 2026-11-26 \(eod: 10 days\) that every leg shares/),
      });
      // 2025 figures read in 2026 are older than their cadence allows, whatever the runs say
      expect(b.staleness.stale_figures).toBe(b.instruments.length + b.fundamentals.length);
      expect(b.staleness.rule).toMatch(/eod 10 days/);
      expect(Buffer.byteLength(JSON.stringify(b))).toBeLessThan(8 * 1024);
    });

    it('a price inside its cadence from a fresh source is not stale', async () => {
      const today = day.toISOString().slice(0, 10);
      const now = day.toISOString();
      await seed(stack.services.store, [...monthlySeries('GC', today.slice(0, 7), [4100])]);
      await stack.services.store.putRunStatus({ source: 'worldbank', last_attempt_at: now, last_success_at: now, last_error: null, last_items: 1 });
      stack.services.cache.clear();
      const gc = (await get('/v1/snapshot/metals')).body.instruments.find((i: any) => i.instrument === 'GC');
      expect(gc).toMatchObject({ value: 4100, stale: false, change: 12.81 }); // 4,100 - 4,087.19
    });

    it('all: every sector and FX as headlines; an unknown view is a 400', async () => {
      const res = await get('/v1/snapshot/all');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ sector: 'all', view: 'compact', full_view: '/v1/snapshot/all?view=full', fx: [] });
      expect(res.body.sectors.map((s: any) => s.sector)).toEqual(['energy', 'metals', 'ags']);
      expect(res.body.staleness).not.toHaveProperty('sources'); // GET /health has them
      expectError(await get('/v1/snapshot/all?view=everything'), 400, 'INVALID_PARAMETER');
    });

    it("all: its stale_sources are /health's, by the one rule over the one list (cftc-cot included)", async () => {
      // COT reports written an hour ago (a fresh run), dated long before now (stale data): stale by /health's rule.
      const now = day.toISOString();
      await stack.services.store.putRunStatus({
        source: 'cftc-cot',
        last_attempt_at: now,
        last_success_at: now,
        last_error: null,
        last_items: 1,
        data_newest: { as_of: '2025-06-10', freshness_class: 'weekly' },
      });
      stack.services.cache.clear();
      const health = await get('/health');
      const all = await get('/v1/snapshot/all?view=full');
      expect(health.body.stale_sources).toContain('cftc-cot');
      expect(all.body.staleness.stale_sources).toEqual(health.body.stale_sources);
      expect(all.body.staleness.status).toBe(health.body.status);
      expect(all.body.staleness.sources.map((s: { id: string }) => s.id)).toEqual(health.body.sources.map((s: { id: string }) => s.id));
      const compact = await get('/v1/snapshot/all');
      expect(compact.body.staleness.stale_sources).toEqual(health.body.stale_sources);
    });
  });
});
