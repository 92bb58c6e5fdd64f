/**
 * The embedded default (`npm start`: dynalite, every source replayed from its bundled samples)
 * serves everything the catalog sells: every live instrument's price and history, every inventory
 * key with its 5-year comparison and surprise, every COT market with its 3-year range. The lists
 * come from GET /v1/catalog itself, so a catalog entry without data fails here.
 *
 * Figures worked by hand from ../shared/fixtures (the files the samples are written from):
 * - Lower 48 working gas, eia/weekly.NW2_EPG0_SWO_R48_BCF.2019-01-04_2026-01-23.csv, week ending
 *   2026-01-23: 2823 (week before 3065, change -242). Same week of the 5 prior years (±3 days of
 *   2025-01-23, 2024-01-23 …) with the week before each:
 *     2025-01-24 2571 (2025-01-17 2892, change -321)   2024-01-26 2659 (2856, -197)
 *     2023-01-20 2734 (2820, -86)   2022-01-21 2591 (2810, -219)   2021-01-22 2881 (3009, -128)
 *   5-year average (2571 + 2659 + 2734 + 2591 + 2881) / 5 = 13436 / 5 = 2687.2; deviation
 *   2823 - 2687.2 = 135.8 (5.0536 %); average change -951 / 5 = -190.2; surprise -242 + 190.2 = -51.8.
 * - NAT GAS NYME 023651, cftc/f_year.disagg-futonly.managed-money.20-markets…csv, 2026-05-26:
 *   net 180797 - 315223 = -134426. The 157 reports 2023-05-30..2026-05-26: min -160729 on
 *   2024-02-20 (245132 - 405861), max 108350 on 2025-03-04 (248129 - 139779), 3 nets below -134426:
 *   percentile 100 x (3 + 0.5) / 157 = 2.2293; index 100 x (-134426 + 160729) / (108350 + 160729) = 9.7752.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { expectError, expectObservation } from '../helpers/contract';
import { getJson, startTestStack } from '../helpers/stack';

const COT_ROUTE = 'GET /v1/cot/{code}';

describe('the embedded default serves everything the catalog sells (replayed samples)', () => {
  let stack: LocalStack;
  let catalog: any;
  const get = (path: string) => getJson(stack.url, path);
  beforeAll(async () => {
    stack = await startTestStack();
    catalog = (await get('/v1/catalog')).body;
  });
  afterAll(async () => stack?.close());

  it('every live instrument answers 200 on price and history; palladium, listed as not live, answers 404', async () => {
    const live = catalog.instruments.filter((i: any) => i.live).map((i: any) => i.code);
    expect(live).toHaveLength(26);
    const failed: string[] = [];
    for (const code of live) {
      const [price, history] = await Promise.all([get(`/v1/price/${code}`), get(`/v1/history/${code}`)]);
      if (price.status !== 200 || history.status !== 200) failed.push(`${code}: ${price.status}/${history.status}`);
      else expectObservation(price.body);
    }
    expect(failed).toEqual([]);
    expect(catalog.instruments.filter((i: any) => !i.live).map((i: any) => i.code)).toEqual(['PA']);
    expectError(await get('/v1/price/PA'), 404, 'NO_DATA');
    // every live instrument has a stored figure, so the catalog names its date
    expect(catalog.instruments.filter((i: any) => i.live && i.latest_as_of === null)).toEqual([]);
  });

  it('every inventory key answers 200 with its 5-year comparison and surprise computed', async () => {
    const keys = catalog.inventory_series.map((s: any) => s.key);
    expect(keys).toHaveLength(7);
    for (const key of keys) {
      const res = await get(`/v1/inventory/eia/${key}?view=full`);
      expect(res.status, key).toBe(200);
      expect(res.body.history, key).toMatchObject({ prior_years_available: 5, prior_year_changes_available: 5 });
      expect(res.body.five_year.average.value, key).toEqual(expect.any(Number));
      expect(res.body.surprise.value, key).toEqual(expect.any(Number));
    }
  });

  it('Lower 48 storage: the 5-year figures of the week ending 2026-01-23, worked by hand', async () => {
    const b = (await get('/v1/inventory/eia/ng_storage?view=full')).body;
    expect(b.latest).toMatchObject({ as_of: '2026-01-23', value: 2823, unit: 'Bcf' });
    expect(b.week_over_week_change.value).toBe(-242);
    expect(b.five_year.average).toMatchObject({ value: 2687.2, attributes: { same_week_as_of: '2025-01-24,2024-01-26,2023-01-20,2022-01-21,2021-01-22' } });
    expect(b.five_year.min).toMatchObject({ value: 2571, attributes: { min_as_of: '2025-01-24' } });
    expect(b.five_year.max).toMatchObject({ value: 2881, attributes: { max_as_of: '2021-01-22' } });
    expect(b.five_year.deviation.value).toBe(135.8);
    expect(b.five_year.deviation_pct.value).toBe(5.0536);
    expect(b.five_year.average_change.value).toBe(-190.2);
    expect(b.surprise.value).toBe(-51.8);
  });

  it('every COT market the catalog prices answers 200 with its 3-year range computed (BZ and PA included)', async () => {
    const markets = catalog.instruments.filter((i: any) => COT_ROUTE in i.pricing_usd).map((i: any) => i.code);
    expect(markets).toHaveLength(20);
    expect(markets).toEqual(expect.arrayContaining(['BZ', 'HO', 'RB', 'PL', 'PA', 'ZL', 'CC', 'CT', 'ZR']));
    for (const code of markets) {
      const res = await get(`/v1/cot/${code}`);
      expect(res.status, code).toBe(200);
      expect(res.body.history, code).toMatchObject({ covered: true, reports_in_window: 157, reports_expected: 157 });
      expect(res.body.range_3y.percentile.value, code).toEqual(expect.any(Number));
      expect(res.body.range_3y.index.value, code).toEqual(expect.any(Number));
    }
  });

  it('NG managed money: the 3-year range of 2026-05-26, worked by hand', async () => {
    const b = (await get('/v1/cot/NG')).body;
    expect(b.managed_money.net.value).toBe(-134426);
    expect(b.range_3y.min).toMatchObject({ value: -160729, attributes: { min_as_of: '2024-02-20' } });
    expect(b.range_3y.max).toMatchObject({ value: 108350, attributes: { max_as_of: '2025-03-04' } });
    expect(b.range_3y.percentile.value).toBe(2.2293);
    expect(b.range_3y.index.value).toBe(9.7752);
  });

  it('the catalog states what the fundamentals samples cover, and a route outside it answers 404 saying so', async () => {
    const byRoute = Object.fromEntries(catalog.fundamentals.map((f: any) => [f.route, f]));
    expect(byRoute['/v1/fundamentals/crop-progress']).toMatchObject({
      commodities: ['corn', 'soybeans', 'wheat'],
      covered: ['soybeans'],
      data: 'replay',
      note: expect.stringMatching(/real figures for soybeans only; corn, wheat answer 404 NO_DATA/),
    });
    expect(byRoute['/v1/fundamentals/export-sales']).toMatchObject({ covered: ['soybeans'], data: 'replay' });
    expect(byRoute['/v1/fundamentals/wasde']).toMatchObject({ covered: ['corn', 'soybeans', 'wheat'] });
    for (const [route, commodity] of [
      ['/v1/fundamentals/crop-progress', 'wheat'],
      ['/v1/fundamentals/export-sales', 'corn'],
    ]) {
      const res = await get(`${route}?commodity=${commodity}`);
      expectError(res, 404, 'NO_DATA');
      expect(res.body.error.retryable).toBe(false);
      expect(res.body.error.details.covered).toEqual(byRoute[route!].covered);
    }
  });
});
