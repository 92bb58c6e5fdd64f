/**
 * GET /v1/cot/{code} over HTTP against the local runtime, seeded from the bundled samples
 * (the 20 mapped CFTC markets x 178 weekly reports, 2023-01-03..2026-05-26). Figures are worked
 * from fixtures/cftc/f_year.disagg-futonly.managed-money.20-markets.2023-01-03_2026-05-26.csv.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { COT_INSTRUMENTS } from '../../shared/families/cot/load';
import { expectError, expectObservation } from '../helpers/contract';
import { getJson, startTestStack } from '../helpers/stack';

describe('cot family over HTTP (local runtime, replayed samples)', () => {
  let stack: LocalStack;
  const get = (path: string) => getJson(stack.url, path);
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.close());

  it('serves a repeat read from the in-Lambda cache and says so', async () => {
    const first = await get('/v1/cot/GC');
    const second = await get('/v1/cot/GC');
    expect(first.body.managed_money.net.provenance).toMatchObject({ cache_hit: false, cache_ttl_s: 900 });
    expect(first.body.managed_money.long.provenance.cache_hit).toBe(false);
    expect(second.body.managed_money.net.provenance.cache_hit).toBe(true);
    expect(second.body.managed_money.net_pct_oi.provenance.cache_hit).toBe(true);
  });

  it('answers WTI managed-money positioning (hand-checked on the CFTC rows of 2026-05-26 and 2026-05-19)', async () => {
    const res = await get('/v1/cot/CL');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const b = res.body;
    expect(b).toMatchObject({ instrument: 'CL', cftc_code: '067651', market: 'WTI-PHYSICAL - NEW YORK MERCANTILE EXCHANGE', as_of: '2026-05-26' });
    // The samples end with the report of Tue 2026-05-26: stale once 14 days have passed (from 2026-06-10); the next is 06-02.
    expect(b).toMatchObject({ stale: true, expected_next_as_of: '2026-06-02' });
    expect(b.method.stale).toMatch(/weekly 14/);
    const mm = b.managed_money;
    expect(mm.long).toMatchObject({ value: 200581, unit: 'contracts', quality: 'official', derived: false, attributes: { metric: 'mm_long' } });
    expect(mm.short).toMatchObject({ value: 120657, quality: 'official' });
    expect(mm.spreading.value).toBe(283688);
    expect(mm.open_interest.value).toBe(2003795);
    expect(mm.net).toMatchObject({ value: 79924, quality: 'derived', derived: true, published_at: '2026-05-29T19:30:00.000Z' }); // 200581 - 120657
    expect(mm.net_pct_oi).toMatchObject({ value: 3.9886, unit: '%', derived: true }); // 79924 / 2003795 = 3.98863 %
    // 2026-05-19: 207565 - 109346 = 98219; 79924 - 98219 = -18295
    expect(mm.net_change_wow).toMatchObject({ value: -18295, attributes: { compared_with_as_of: '2026-05-19' } });
    for (const o of [...Object.values(mm), ...b.recent]) expectObservation(o);
    expect(b.recent).toHaveLength(13);
    expect(b.recent.slice(-4).map((o: any) => [o.as_of, o.value])).toEqual([
      ['2026-05-05', 70791], // 185755 - 114964
      ['2026-05-12', 72801], // 187332 - 114531
      ['2026-05-19', 98219],
      ['2026-05-26', 79924],
    ]);
    expect(JSON.stringify(b)).not.toMatch(/NaN|Infinity/);
  });

  it('computes the 3-year range from the 157 weekly reports of the window (worked from the fixture)', async () => {
    const b = (await get('/v1/cot/CL')).body;
    // Window 2023-05-26..2026-05-26: the Tuesdays 2023-05-30..2026-05-26, all 157 in the fixture.
    expect(b.history).toMatchObject({
      years_required: 3,
      window_start: '2023-05-26',
      window_end: '2026-05-26',
      reports_in_window: 157,
      reports_expected: 157, // floor(1096 days / 7) + 1
      covered: true,
    });
    expect(b.history.note).toBe('157 weekly reports cover the 3-year window');
    // WTI nets (long - short) in the window: lowest -38154 on 2025-10-21 (128075 - 166229), highest
    // 301660 on 2023-09-26 (330645 - 28985); 47 of the 157 nets are below 79924 and one (itself) equals it:
    // percentile 100 x (47 + 0.5) / 157 = 30.2548; index 100 x (79924 + 38154) / (301660 + 38154) = 34.7478.
    expect(b.range_3y.min).toMatchObject({ value: -38154, attributes: { min_as_of: '2025-10-21' } });
    expect(b.range_3y.max).toMatchObject({ value: 301660, attributes: { max_as_of: '2023-09-26' } });
    expect(b.range_3y.percentile).toMatchObject({ value: 30.2548, unit: 'percentile', attributes: { window_start: '2023-05-26' } });
    expect(b.range_3y.index).toMatchObject({ value: 34.7478, unit: 'index 0-100' });
    expect(b.method.percentile).toMatch(/half the count equal/);
  });

  it('answers Brent (BZ) from NYMEX Brent Last Day 06765T, 3-year range included (worked from the fixture)', async () => {
    const res = await get('/v1/cot/BZ');
    expect(res.status).toBe(200);
    const b = res.body;
    expect(b).toMatchObject({ instrument: 'BZ', cftc_code: '06765T', market: 'BRENT LAST DAY - NEW YORK MERCANTILE EXCHANGE', as_of: '2026-05-26' });
    // Row of 2026-05-26: OI 249447, long 14232, short 4664, spreading 4186; 2026-05-19: 16948 - 4018 = 12930.
    expect(b.managed_money.net.value).toBe(9568); // 14232 - 4664
    expect(b.managed_money.open_interest.value).toBe(249447);
    expect(b.managed_money.net_pct_oi.value).toBe(3.8357); // 9568 / 249447 = 3.83569 %
    expect(b.managed_money.net_change_wow).toMatchObject({ value: -3362, attributes: { compared_with_as_of: '2026-05-19' } });
    // 157 nets in the window: min -13990 (2025-02-25: 0 - 13990), max 28410 (2024-01-23: 33822 - 5412), 91 below 9568:
    // percentile 100 x 91.5 / 157 = 58.2803; index 100 x (9568 + 13990) / (28410 + 13990) = 55.5613.
    expect(b.history).toMatchObject({ reports_in_window: 157, covered: true });
    expect(b.range_3y.percentile.value).toBe(58.2803);
    expect(b.range_3y.index.value).toBe(55.5613);
    expect(b.range_3y.min).toMatchObject({ value: -13990, attributes: { min_as_of: '2025-02-25' } });
    expect(b.range_3y.max).toMatchObject({ value: 28410, attributes: { max_as_of: '2024-01-23' } });
  });

  it('folds a lower-case code', async () => {
    const res = await get('/v1/cot/ng');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ instrument: 'NG', cftc_code: '023651' });
    expect(res.body.managed_money.net.value).toBe(180797 - 315223); // NAT GAS NYME, 2026-05-26
  });

  it('answers a catalog code without a CFTC market with 404 naming the codes that have one', async () => {
    for (const code of ['EURUSD', 'AL', 'IO']) {
      const res = await get(`/v1/cot/${code}`);
      expectError(res, 404, 'NO_DATA');
      expect(res.body.error.details.valid).toEqual(COT_INSTRUMENTS);
      expect(res.body.error.message).toMatch(/no CFTC futures market/);
    }
  });

  it('answers a mapped market whose reports are not stored (HO, removed here) with 503 NO_DATA', async () => {
    expect(await stack.services.store.deleteRange('COT#HO', '2023-01-01', '2026-12-31')).toBe(178);
    stack.services.cache.clear();
    const res = await get('/v1/cot/HO');
    expectError(res, 503, 'NO_DATA');
    expect(res.body.error.details).toMatchObject({ instrument: 'HO', cftc_code: '022651' });
  });

  it.each([
    ['an unknown code', '/v1/cot/XX', 404, 'UNKNOWN_INSTRUMENT'],
    ['a code of 5,000 characters', `/v1/cot/${'C'.repeat(5000)}`, 400, 'INVALID_PARAMETER'],
    ['an SQL-injection-like code', `/v1/cot/${encodeURIComponent("CL' OR '1'='1")}`, 400, 'INVALID_PARAMETER'],
    ['a script tag', `/v1/cot/${encodeURIComponent('<script>alert(1)</script>')}`, 400, 'INVALID_PARAMETER'],
    ['a partition-key-like code', `/v1/cot/${encodeURIComponent('COT#CL')}`, 400, 'INVALID_PARAMETER'],
    ['a CFTC code instead of an instrument', '/v1/cot/067651', 400, 'INVALID_PARAMETER'],
    ['a traversal', '/v1/cot/..%2F..%2Fetc%2Fpasswd', 400, 'INVALID_PARAMETER'],
  ])('refuses %s with a JSON error', async (_n, path, status, code) => {
    const res = await get(path);
    expectError(res, status, code);
    if (code === 'UNKNOWN_INSTRUMENT') expect(res.body.error.details.valid).toEqual(COT_INSTRUMENTS);
  });
});
