/**
 * GET /v1/inventory/eia and /v1/inventory/eia/{series} over HTTP against the local runtime,
 * seeded from the bundled samples (13 recent weeks per series, no refinery_util).
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
    const first = await get('/v1/inventory/eia/distillate');
    const second = await get('/v1/inventory/eia/distillate');
    expect(observationsIn(first.body).every((o: any) => o.provenance.cache_hit === false && o.provenance.cache_ttl_s === 900)).toBe(true);
    expect(observationsIn(second.body).every((o: any) => o.provenance.cache_hit === true)).toBe(true);
  });

  describe('GET /v1/inventory/eia', () => {
    it('answers all 7 series in catalog order, refinery_util as no-data, every number inside an observation', async () => {
      const res = await get('/v1/inventory/eia');
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      const b = res.body;
      expect(b.series.map((s: any) => s.key)).toEqual(INVENTORY_KEYS);
      expect(b.count).toBe(6);
      expect(b.missing).toEqual([{ key: 'refinery_util', reason: 'no observation of refinery_util is stored yet' }]);
      expect(b.series.find((s: any) => s.key === 'refinery_util')).toMatchObject({
        status: 'no_data',
        latest: null,
        week_over_week_change: null,
        surprise: null,
      });
      const obs = observationsIn(b);
      expect(obs.length).toBeGreaterThanOrEqual(12); // 6 latest + 6 changes
      obs.forEach(expectObservation);
      expect(JSON.stringify(b)).not.toMatch(/NaN|Infinity/);
      expect(b.method.surprise).toMatch(/minus the average of the 5 prior years/);
      expect(b.method.same_week_of_year).toMatch(/±3 days/);
    });

    it('computes week-over-week changes from the stored weeks (hand-checked on EIA figures)', async () => {
      const b = (await get('/v1/inventory/eia')).body;
      const by = Object.fromEntries(b.series.map((s: any) => [s.key, s]));
      // psw01.xls weeks ending 2026-02-06 vs 2026-01-30; Cushing 2026-07-31 vs 07-24; ngshistory 2026-01-23 vs 01-16.
      const expected: Record<string, [string, number, number, string]> = {
        crude_ex_spr: ['2026-02-06', 428829, 8530, 'Mbbl'], // 428829 - 420299
        gasoline: ['2026-02-06', 259058, 1160, 'Mbbl'], // 259058 - 257898
        distillate: ['2026-02-06', 124665, -2703, 'Mbbl'], // 124665 - 127368
        crude_runs: ['2026-02-06', 16000, -29, 'kb/d'], // 16000 - 16029
        cushing: ['2026-07-31', 20955, 2356, 'Mbbl'], // 20955 - 18599
        ng_storage: ['2026-01-23', 2823, -242, 'Bcf'], // 2823 - 3065, EIA's reported net change
      };
      for (const [key, [asOf, level, change, unit]] of Object.entries(expected)) {
        expect(by[key].latest, key).toMatchObject({ as_of: asOf, value: level, unit, quality: 'official', derived: false, freshness_class: 'weekly' });
        expect(by[key].week_over_week_change, key).toMatchObject({
          as_of: asOf,
          value: change,
          unit,
          quality: 'derived',
          derived: true,
          attributes: { metric: 'week_over_week_change' },
        });
      }
    });

    it('answers null 5-year figures and a surprise of null, with a note on how many prior years exist', async () => {
      const b = (await get('/v1/inventory/eia')).body;
      for (const s of b.series.filter((x: any) => x.status === 'ok')) {
        expect(s.five_year, s.key).toEqual({ average: null, min: null, max: null, deviation: null, deviation_pct: null, average_change: null });
        expect(s.surprise, s.key).toBeNull();
        expect(s.history, s.key).toMatchObject({ prior_years_required: 5, prior_years_available: 0, prior_year_changes_available: 0 });
        expect(s.history.note, s.key).toMatch(/0 of 5 are stored/);
      }
    });
  });

  describe('GET /v1/inventory/eia/{series}', () => {
    it('answers one series with its recent history, ascending', async () => {
      const res = await get('/v1/inventory/eia/crude_ex_spr');
      expect(res.status).toBe(200);
      const b = res.body;
      expect(b).toMatchObject({ key: 'crude_ex_spr', series_id: 'PET.WCESTUS1.W', unit: 'Mbbl', source_id: 'eia-petroleum', status: 'ok' });
      expect(b.latest.value).toBe(428829);
      expect(b.recent).toHaveLength(13);
      expect(b.recent.map((o: any) => o.as_of)).toEqual([...b.recent.map((o: any) => o.as_of)].sort());
      expect(b.recent[0]).toMatchObject({ as_of: '2025-11-14', value: 424155 });
      expect(b.same_week_prior_years).toEqual([]);
      observationsIn(b).forEach(expectObservation);
      expect(b.method.five_year_average_min_max).toBeTruthy();
    });

    it('folds an upper-case key, and leaves the 2019 Cushing window out of the 5-year window', async () => {
      const res = await get('/v1/inventory/eia/CUSHING');
      expect(res.status).toBe(200);
      expect(res.body.key).toBe('cushing');
      expect(res.body.recent.map((o: any) => o.as_of)[0]).toBe('2026-05-08');
      expect(res.body.history.note).toMatch(/stored weeks in the 5-year window start 2026-05-08/);
    });

    it('answers 503 NO_DATA for refinery_util, which the samples do not hold', async () => {
      const res = await get('/v1/inventory/eia/refinery_util');
      expectError(res, 503, 'NO_DATA');
      expect(res.body.error.retryable).toBe(true);
      expect(res.body.error.details.series).toBe('refinery_util');
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
