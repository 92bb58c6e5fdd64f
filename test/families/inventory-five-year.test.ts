/**
 * The 5-year figures over HTTP: a constructed (not EIA) 5-year weekly history written straight
 * into an unseeded local store, then read through GET /v1/inventory/eia[/crude_ex_spr].
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { makeObservation } from '../../shared/sources/common';
import { eiaPetroleum } from '../../shared/sources/eia-inventory';
import { expectObservation } from '../helpers/contract';
import { getJson, startTestStack } from '../helpers/stack';

const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

// Same constructed history as test/analytics/inventory.test.ts (hand-checked there).
const LEVELS: Record<string, number> = {
  '2026-02-06': 428829,
  '2026-01-30': 420299,
  '2025-02-07': 423000,
  '2025-01-31': 425000,
  '2024-02-09': 439000,
  '2024-02-02': 433500,
  '2023-02-03': 455100,
  '2023-01-27': 452000,
  '2022-02-04': 410400,
  '2022-01-28': 415200,
  '2021-02-05': 475700,
  '2021-01-29': 476500,
};

describe('inventory 5-year comparison over HTTP (constructed history)', () => {
  let stack: LocalStack;
  const get = (path: string) => getJson(stack.url, path);
  beforeAll(async () => {
    stack = await startTestStack({}, false);
    const ctx = { def: { ...eiaPetroleum.def, name: 'constructed test history (not EIA data)' }, nextReleaseAt: null, now: new Date() };
    const items = [];
    for (let d = '2020-12-25'; d <= '2026-02-06'; d = addDays(d, 7)) {
      items.push({
        seriesKey: 'INV#crude_ex_spr',
        observation: makeObservation(ctx, {
          instrument: 'crude_ex_spr',
          value: LEVELS[d] ?? 400000,
          unit: 'Mbbl',
          as_of: d,
          freshness_class: 'weekly',
          series_id: 'PET.WCESTUS1.W',
          retrievedAt: '2026-02-11T15:30:00.000Z',
        }),
      });
    }
    await stack.services.store.upsertMany(items);
  });
  afterAll(async () => stack?.close());

  it('answers average, min, max, deviation and surprise as derived observations (hand-checked)', async () => {
    const res = await get('/v1/inventory/eia/crude_ex_spr?view=full');
    expect(res.status).toBe(200);
    const b = res.body;
    expect(b.week_over_week_change.value).toBe(8530);
    expect(b.five_year.average).toMatchObject({
      value: 440640,
      unit: 'Mbbl',
      as_of: '2026-02-06',
      quality: 'derived',
      derived: true,
      attributes: { metric: 'five_year_average', same_week_as_of: '2025-02-07,2024-02-09,2023-02-03,2022-02-04,2021-02-05' },
    });
    expect(b.five_year.min).toMatchObject({ value: 410400, attributes: { min_as_of: '2022-02-04' } });
    expect(b.five_year.max).toMatchObject({ value: 475700, attributes: { max_as_of: '2021-02-05' } });
    expect(b.five_year.deviation.value).toBe(-11811);
    expect(b.five_year.deviation_pct).toMatchObject({ value: -2.6804, unit: '%' });
    expect(b.five_year.average_change.value).toBe(200);
    expect(b.surprise).toMatchObject({ value: 8330, unit: 'Mbbl', attributes: { metric: 'surprise_vs_five_year_average_change' } });
    expect(b.history).toEqual({ prior_years_required: 5, prior_years_available: 5, prior_year_changes_available: 5, note: 'all 5 prior years are stored' });
    expect(b.same_week_prior_years.map((o: any) => [o.as_of, o.value])).toEqual([
      ['2025-02-07', 423000],
      ['2024-02-09', 439000],
      ['2023-02-03', 455100],
      ['2022-02-04', 410400],
      ['2021-02-05', 475700],
    ]);
    expect(b.recent).toHaveLength(52);
    expect(b.recent.at(-1).as_of).toBe('2026-02-06');
    [b.latest, b.week_over_week_change, ...Object.values(b.five_year), b.surprise, ...b.same_week_prior_years, ...b.recent].forEach(expectObservation);
  });

  it('returns the same figures in the bundle, with the series it lacks listed as missing', async () => {
    const b = (await get('/v1/inventory/eia?view=full')).body;
    const crude = b.series.find((s: any) => s.key === 'crude_ex_spr');
    expect(crude.surprise.value).toBe(8330);
    expect(crude.same_week_prior_years).toBeUndefined();
    expect(b.count).toBe(1);
    expect(b.missing.map((m: any) => m.key)).toEqual(['cushing', 'gasoline', 'distillate', 'refinery_util', 'crude_runs', 'ng_storage']);
  });
});
