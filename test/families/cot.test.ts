/**
 * GET /v1/cot/{code} over HTTP against the local runtime, seeded from the bundled samples
 * (11 CFTC markets x 4 weekly reports, 2026-03-24..2026-04-14).
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

  it('answers WTI managed-money positioning (hand-checked on the CFTC rows of 2026-04-14 and 2026-04-07)', async () => {
    const res = await get('/v1/cot/CL');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const b = res.body;
    expect(b).toMatchObject({ instrument: 'CL', cftc_code: '067651', market: 'WTI-PHYSICAL - NEW YORK MERCANTILE EXCHANGE', as_of: '2026-04-14' });
    const mm = b.managed_money;
    expect(mm.long).toMatchObject({ value: 200130, unit: 'contracts', quality: 'official', derived: false, attributes: { metric: 'mm_long' } });
    expect(mm.short).toMatchObject({ value: 101762, quality: 'official' });
    expect(mm.spreading.value).toBe(355264);
    expect(mm.open_interest.value).toBe(2094492);
    expect(mm.net).toMatchObject({ value: 98368, quality: 'derived', derived: true, published_at: '2026-04-17T19:30:00.000Z' }); // 200130 - 101762
    expect(mm.net_pct_oi).toMatchObject({ value: 4.6965, unit: '%', derived: true }); // 98368 / 2094492
    expect(mm.net_change_wow).toMatchObject({ value: 19668, attributes: { compared_with_as_of: '2026-04-07' } }); // 98368 - 78700
    for (const o of [...Object.values(mm), ...b.recent]) expectObservation(o);
    expect(b.recent.map((o: any) => [o.as_of, o.value])).toEqual([
      ['2026-03-24', 94336],
      ['2026-03-31', 73347],
      ['2026-04-07', 78700],
      ['2026-04-14', 98368],
    ]);
    expect(JSON.stringify(b)).not.toMatch(/NaN|Infinity/);
  });

  it('answers null 3-year figures with a note while only 4 weeks are stored', async () => {
    const b = (await get('/v1/cot/CL')).body;
    expect(b.range_3y).toEqual({ percentile: null, index: null, min: null, max: null });
    expect(b.history).toMatchObject({
      years_required: 3,
      window_start: '2023-04-14',
      window_end: '2026-04-14',
      reports_in_window: 4,
      reports_expected: 157,
      covered: false,
    });
    expect(b.history.note).toMatch(/4 of 157 are stored, the earliest 2026-03-24/);
    expect(b.method.percentile).toMatch(/half the count equal/);
  });

  it('folds a lower-case code', async () => {
    const res = await get('/v1/cot/ng');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ instrument: 'NG', cftc_code: '023651' });
    expect(res.body.managed_money.net.value).toBe(167780 - 281875);
  });

  it('answers a catalog code without a CFTC market with 404 naming the codes that have one', async () => {
    for (const code of ['EURUSD', 'AL', 'BZ']) {
      const res = await get(`/v1/cot/${code}`);
      expectError(res, 404, 'NO_DATA');
      expect(res.body.error.details.valid).toEqual(COT_INSTRUMENTS);
      expect(res.body.error.message).toMatch(/no CFTC futures market/);
    }
  });

  it('answers a mapped market without stored reports (HO) with 503 NO_DATA', async () => {
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
