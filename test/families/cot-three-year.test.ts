/**
 * The 3-year standing over HTTP: constructed (not CFTC) weekly reports written straight into an
 * unseeded local store, then read through GET /v1/cot/CL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { cftcCot } from '../../shared/sources/cftc-cot';
import { makeObservation } from '../../shared/sources/common';
import { expectError, expectObservation } from '../helpers/contract';
import { getJson, startTestStack } from '../helpers/stack';

const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

describe('cot 3-year standing over HTTP (constructed reports)', () => {
  let stack: LocalStack;
  const get = (path: string) => getJson(stack.url, path);
  beforeAll(async () => {
    stack = await startTestStack({}, false);
    const ctx = { def: { ...cftcCot.def, name: 'constructed test reports (not CFTC data)' }, nextReleaseAt: null, now: new Date() };
    // Same construction as test/analytics/cot.test.ts: week i nets 10 x i, the latest 750; one report before the window.
    const report = (as_of: string, long: number, short: number, oi: number) => ({
      seriesKey: 'COT#CL',
      observation: makeObservation(ctx, {
        instrument: 'CL',
        value: long - short,
        unit: 'contracts',
        as_of,
        freshness_class: 'weekly',
        quality: 'derived',
        series_id: '067651',
        retrievedAt: '2026-04-17T19:30:00.000Z',
        attributes: { cftc_code: '067651', market: 'TEST MARKET', mm_long: long, mm_short: short, mm_spreading: 5, open_interest: oi },
      }),
    });
    const items = [report('2023-04-11', 1000, 100_000, 200_000)];
    for (let i = 0; i <= 156; i++) items.push(report(addDays('2023-04-18', 7 * i), i === 156 ? 1750 : 1000 + 10 * i, 1000, 10_000));
    await stack.services.store.upsertMany(items);
  });
  afterAll(async () => stack?.close());

  it('answers percentile, range index, min and max over the 3-year window (hand-checked)', async () => {
    const res = await get('/v1/cot/CL');
    expect(res.status).toBe(200);
    const b = res.body;
    expect(b.managed_money.net.value).toBe(750);
    expect(b.managed_money.net_pct_oi.value).toBe(7.5);
    expect(b.managed_money.net_change_wow.value).toBe(-800);
    expect(b.range_3y.percentile).toMatchObject({
      value: 48.4076,
      unit: 'percentile',
      quality: 'derived',
      derived: true,
      attributes: { metric: 'net_percentile_3y', window_start: '2023-04-14' },
    });
    expect(b.range_3y.index.value).toBe(48.3871);
    expect(b.range_3y.min).toMatchObject({ value: 0, attributes: { min_as_of: '2023-04-18' } });
    expect(b.range_3y.max).toMatchObject({ value: 1550, attributes: { max_as_of: '2026-04-07' } });
    expect(b.history).toMatchObject({ reports_in_window: 157, reports_expected: 157, covered: true, note: '157 weekly reports cover the 3-year window' });
    expect(b.recent).toHaveLength(13);
    [...Object.values(b.managed_money), ...Object.values(b.range_3y), ...b.recent].forEach(expectObservation);
  });

  it('answers the inventory bundle with 503 NO_DATA when no inventory is stored', async () => {
    expectError(await get('/v1/inventory/eia'), 503, 'NO_DATA');
  });
});
