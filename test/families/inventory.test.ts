/**
 * GET /v1/inventory/eia and /v1/inventory/eia/{series} over HTTP against the local runtime,
 * seeded from the bundled samples (every week since 2019-01-04 of all 7 series). Figures are
 * worked by hand from the EIA histories in ../shared/fixtures/eia (weekly.*.csv, the Cushing download).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { INVENTORY_KEYS } from '../../shared/catalog/inventory';
import { expectError, expectObservation } from '../helpers/contract';
import { getJson, startTestStack } from '../helpers/stack';

/** Every observation anywhere in a body (objects with an `instrument` and a `provenance`). */
const observationsIn = (x: unknown): unknown[] =>
  Array.isArray(x)
    ? x.flatMap(observationsIn)
    : x && typeof x === 'object'
      ? 'instrument' in x && 'provenance' in x
        ? [x]
        : Object.values(x).flatMap(observationsIn)
      : [];

describe('inventory family over HTTP (local runtime, replayed samples)', () => {
  let stack: LocalStack;
  const get = (path: string) => getJson(stack.url, path);
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.close());

  it('serves a repeat read from the in-Lambda cache and says so in every observation', async () => {
    const first = await get('/v1/inventory/eia/distillate?view=full');
    const second = await get('/v1/inventory/eia/distillate?view=full');
    expect(observationsIn(first.body).length).toBeGreaterThan(50);
    expect(observationsIn(first.body).every((o: any) => o.provenance.cache_hit === false && o.provenance.cache_ttl_s === 900)).toBe(true);
    expect(observationsIn(second.body).every((o: any) => o.provenance.cache_hit === true)).toBe(true);
  });

  describe('GET /v1/inventory/eia', () => {
    it('answers all 7 series in catalog order, every number inside an observation', async () => {
      const res = await get('/v1/inventory/eia?view=full');
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      const b = res.body;
      expect(b.series.map((s: any) => s.key)).toEqual(INVENTORY_KEYS);
      expect(b.count).toBe(7);
      expect(b.missing).toEqual([]);
      const obs = observationsIn(b);
      expect(obs.length).toBe(7 * 9); // latest, change, 6 five-year figures and the surprise per series
      obs.forEach(expectObservation);
      expect(JSON.stringify(b)).not.toMatch(/NaN|Infinity/);
      expect(b.method.surprise).toMatch(/minus the average of the 5 prior years/);
      expect(b.method.same_week_of_year).toMatch(/±3 days/);
    });

    it('computes week-over-week changes from the stored weeks (hand-checked on EIA figures)', async () => {
      const b = (await get('/v1/inventory/eia?view=full')).body;
      const by = Object.fromEntries(b.series.map((s: any) => [s.key, s]));
      // psw01.xls weeks ending 2026-02-06 vs 2026-01-30; psw02 2025-11-21 vs 11-14; Cushing 2026-07-31 vs 07-24;
      // ngshistory 2026-01-23 vs 01-16.
      const expected: Record<string, [string, number, number, string]> = {
        crude_ex_spr: ['2026-02-06', 428829, 8530, 'Mbbl'], // 428829 - 420299
        gasoline: ['2026-02-06', 259058, 1160, 'Mbbl'], // 259058 - 257898
        distillate: ['2026-02-06', 124665, -2703, 'Mbbl'], // 124665 - 127368
        crude_runs: ['2026-02-06', 16000, -29, 'kb/d'], // 16000 - 16029
        refinery_util: ['2025-11-21', 92.3, 2.3, '%'], // 92.3 - 90.0
        cushing: ['2026-07-31', 20955, 2356, 'Mbbl'], // 20955 - 18599
        ng_storage: ['2026-01-23', 2823, -242, 'Bcf'], // 2823 - 3065, EIA's reported net change
      };
      for (const [key, [asOf, level, change, unit]] of Object.entries(expected)) {
        expect(by[key].latest, key).toMatchObject({ as_of: asOf, value: level, unit, quality: 'official', derived: false, freshness_class: 'weekly' });
        expect(by[key].week_over_week_change, key).toMatchObject({
          as_of: asOf,
          value: change,
          unit: unit === '%' ? 'percentage points' : unit,
          quality: 'derived',
          derived: true,
          attributes: { metric: 'week_over_week_change' },
        });
      }
    });

    it('computes the 5-year comparison and the surprise of every series (crude worked by hand)', async () => {
      const b = (await get('/v1/inventory/eia?view=full')).body;
      for (const s of b.series) {
        expect(s.history, s.key).toMatchObject({ prior_years_required: 5, prior_years_available: 5, prior_year_changes_available: 5 });
        expect(s.history.note, s.key).toBe('all 5 prior years are stored');
        for (const f of Object.values(s.five_year)) expect((f as any).value, s.key).toEqual(expect.any(Number));
        expect(s.surprise.value, s.key).toEqual(expect.any(Number));
      }
      const crude = b.series.find((s: any) => s.key === 'crude_ex_spr');
      // Same week (±3 days of 2026-02-06, N years back) in weekly.WCESTUS1.2019-01-04_2026-02-06.csv:
      //   2025-02-07 427860 (week before 423790, change 4070)   2024-02-09 439450 (427432, 12018)
      //   2023-02-03 455111 (452688, 2423)   2022-02-04 410387 (415143, -4756)   2021-02-05 469014 (475659, -6645)
      // average (427860 + 439450 + 455111 + 410387 + 469014) / 5 = 2201822 / 5 = 440364.4
      // deviation 428829 - 440364.4 = -11535.4 (-2.6195 %); min 410387 (2022-02-04), max 469014 (2021-02-05)
      // average change (4070 + 12018 + 2423 - 4756 - 6645) / 5 = 7110 / 5 = 1422; surprise 8530 - 1422 = 7108
      expect(crude.five_year.average).toMatchObject({
        value: 440364.4,
        unit: 'Mbbl',
        derived: true,
        attributes: { same_week_as_of: '2025-02-07,2024-02-09,2023-02-03,2022-02-04,2021-02-05' },
      });
      expect(crude.five_year.min).toMatchObject({ value: 410387, attributes: { min_as_of: '2022-02-04' } });
      expect(crude.five_year.max).toMatchObject({ value: 469014, attributes: { max_as_of: '2021-02-05' } });
      expect(crude.five_year.deviation.value).toBe(-11535.4);
      expect(crude.five_year.deviation_pct.value).toBe(-2.6195);
      expect(crude.five_year.average_change.value).toBe(1422);
      expect(crude.surprise).toMatchObject({ value: 7108, unit: 'Mbbl', attributes: { metric: 'surprise_vs_five_year_average_change' } });
    });
  });

  describe('compact (default) view: the same figures as numbers, under 32 KB', () => {
    it('GET /v1/inventory/eia: one headline per series, crude worked by hand', async () => {
      const res = await get('/v1/inventory/eia');
      expect(res.status).toBe(200);
      expect(Buffer.byteLength(JSON.stringify(res.body))).toBeLessThan(32 * 1024);
      expect(res.body).toMatchObject({ view: 'compact', full_view: '/v1/inventory/eia?view=full', count: 7, missing: [] });
      expect(observationsIn(res.body)).toEqual([]);
      expect(res.body.series.map((s: any) => s.key)).toEqual(INVENTORY_KEYS);
      // The crude figures worked by hand in the full-view test above (weekly.WCESTUS1, week ending 2026-02-06).
      expect(res.body.series[0]).toMatchObject({
        key: 'crude_ex_spr',
        unit: 'Mbbl',
        status: 'ok',
        as_of: '2026-02-06',
        value: 428829,
        week_over_week_change: 8530,
        five_year_average: 440364.4,
        five_year_min: 410387,
        five_year_max: 469014,
        deviation: -11535.4,
        deviation_pct: -2.6195,
        five_year_average_change: 1422,
        surprise: 7108,
        stale: expect.any(Boolean),
      });
    });

    it('GET /v1/inventory/eia/{series}: the headline with its prior-year weeks and 52 recent weeks as points', async () => {
      const res = await get('/v1/inventory/eia/cushing');
      expect(res.status).toBe(200);
      const b = res.body;
      expect(Buffer.byteLength(JSON.stringify(b))).toBeLessThan(32 * 1024);
      expect(b).toMatchObject({
        view: 'compact',
        full_view: '/v1/inventory/eia/cushing?view=full',
        key: 'cushing',
        surprise: 2324.8,
        five_year_average: 29456.2,
      });
      // Cushing download: the same weeks as in the full-view test below.
      expect(b.same_week_prior_years).toEqual([
        { as_of: '2025-08-01', value: 23006 },
        { as_of: '2024-08-02', value: 30429 },
        { as_of: '2023-07-28', value: 34480 },
        { as_of: '2022-07-29', value: 24466 },
        { as_of: '2021-07-30', value: 34900 },
      ]);
      expect(b.recent).toHaveLength(52);
      expect(b.recent[0].as_of).toBe('2025-08-08');
      expect(b.recent.at(-1)).toEqual({ as_of: '2026-07-31', value: b.value });
    });
  });

  describe('GET /v1/inventory/eia/{series}', () => {
    it('answers one series with its recent history, ascending', async () => {
      const res = await get('/v1/inventory/eia/crude_ex_spr?view=full');
      expect(res.status).toBe(200);
      const b = res.body;
      expect(b).toMatchObject({ key: 'crude_ex_spr', series_id: 'PET.WCESTUS1.W', unit: 'Mbbl', source_id: 'eia-petroleum', status: 'ok' });
      // Working gas is the other report's (the WNGSR): each series names its own.
      expect((await get('/v1/inventory/eia/ng_storage?view=full')).body).toMatchObject({ key: 'ng_storage', source_id: 'eia-gas-storage' });
      expect(b.latest.value).toBe(428829);
      expect(b.recent).toHaveLength(52); // the last 52 weeks
      expect(b.recent.map((o: any) => o.as_of)).toEqual([...b.recent.map((o: any) => o.as_of)].sort());
      expect(b.recent[0]).toMatchObject({ as_of: '2025-02-14', value: 432493 });
      expect(b.same_week_prior_years.map((o: any) => [o.as_of, o.value])).toEqual([
        ['2025-02-07', 427860],
        ['2024-02-09', 439450],
        ['2023-02-03', 455111],
        ['2022-02-04', 410387],
        ['2021-02-05', 469014],
      ]);
      observationsIn(b).forEach(expectObservation);
      expect(b.method.five_year_average_min_max).toBeTruthy();
    });

    it('folds an upper-case key, and compares Cushing with the same week of 5 prior years', async () => {
      const res = await get('/v1/inventory/eia/CUSHING?view=full');
      expect(res.status).toBe(200);
      const b = res.body;
      expect(b.key).toBe('cushing');
      expect(b.recent[0].as_of).toBe('2025-08-08'); // 2026-07-31 minus 51 weeks
      // Cushing download: 2025-08-01 23006, 2024-08-02 30429, 2023-07-28 34480, 2022-07-29 24466, 2021-07-30 34900;
      // average 147281 / 5 = 29456.2; changes 453, 579, -1259, 926, -543 average 31.2; surprise 2356 - 31.2 = 2324.8
      expect(b.five_year.average.value).toBe(29456.2);
      expect(b.five_year.average_change.value).toBe(31.2);
      expect(b.surprise.value).toBe(2324.8);
    });

    it('answers refinery_util in percent, its differences in percentage points (worked from WPULEUS3)', async () => {
      const res = await get('/v1/inventory/eia/refinery_util?view=full');
      expect(res.status).toBe(200);
      const b = res.body;
      expect(b).toMatchObject({ key: 'refinery_util', series_id: 'PET.WPULEUS3.W', unit: '%', status: 'ok' });
      expect(b.latest).toMatchObject({ as_of: '2025-11-21', value: 92.3, unit: '%', published_at: '2025-11-26T15:30:00.000Z' });
      // 2024-11-22 90.5 (90.2), 2023-11-24 89.8 (87.0), 2022-11-18 93.9 (92.9), 2021-11-19 88.6 (87.9), 2020-11-20 78.7 (77.4):
      // average 441.5 / 5 = 88.3; deviation 4; changes 0.3 + 2.8 + 1.0 + 0.7 + 1.3 = 6.1, average 1.22; surprise 2.3 - 1.22 = 1.08
      expect(b.five_year.average).toMatchObject({ value: 88.3, unit: '%' });
      expect(b.five_year.deviation).toMatchObject({ value: 4, unit: 'percentage points' });
      expect(b.five_year.average_change.value).toBe(1.22);
      expect(b.surprise).toMatchObject({ value: 1.08, unit: 'percentage points' });
    });

    it('lists the valid keys for an unknown key', async () => {
      const res = await get('/v1/inventory/eia/crude');
      expectError(res, 404, 'UNKNOWN_SERIES');
      expect(res.body.error.details.valid).toEqual(INVENTORY_KEYS);
    });

    it.each([
      ['a key of 5,000 characters', `/v1/inventory/eia/${'a'.repeat(5000)}`, 400, 'INVALID_PARAMETER'],
      ['an SQL-injection-like key', `/v1/inventory/eia/${encodeURIComponent("cushing' OR '1'='1")}`, 400, 'INVALID_PARAMETER'],
      ['a script tag', `/v1/inventory/eia/${encodeURIComponent('<script>alert(1)</script>')}`, 400, 'INVALID_PARAMETER'],
      ['a NoSQL-like key', `/v1/inventory/eia/${encodeURIComponent('{"$gt":""}')}`, 400, 'INVALID_PARAMETER'],
      ['a traversal', '/v1/inventory/eia/..%2F..%2Fetc%2Fpasswd', 400, 'INVALID_PARAMETER'],
      ['a series key with a partition-key separator', `/v1/inventory/eia/${encodeURIComponent('INV#cushing')}`, 400, 'INVALID_PARAMETER'],
      ['a non-ASCII key', `/v1/inventory/eia/${encodeURIComponent('cúshing')}`, 400, 'INVALID_PARAMETER'],
    ])('refuses %s with a JSON error', async (_n, path, status, code) => {
      expectError(await get(path), status, code);
    });

    it('answers an empty series segment with a JSON 404, never a 500', async () => {
      const res = await get('/v1/inventory/eia/');
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBeTruthy();
    });
  });
});
