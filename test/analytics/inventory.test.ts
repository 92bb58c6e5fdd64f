import { describe, expect, it } from 'vitest';
import { analyzeInventory, nearestWithin, sameDateYearsBefore, weekBefore, type WeeklyPoint } from '../../shared/analytics/inventory';

const DAY = 86_400_000;
const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);

/** Every Friday from `from` to `to` with a filler level, then the given weeks overridden. */
const weekly = (from: string, to: string, overrides: Record<string, number>, filler = 1000): WeeklyPoint[] => {
  const out: WeeklyPoint[] = [];
  for (let d = from; d <= to; d = addDays(d, 7)) out.push({ as_of: d, value: overrides[d] ?? filler });
  return out;
};

/**
 * A constructed 5-year history (not EIA data). Latest week 2026-02-06 (a Friday). The same
 * calendar date in earlier years falls on Thu 2025-02-06, Tue 2024-02-06, Mon 2023-02-06,
 * Sun 2022-02-06, Sat 2021-02-06, so the weeks within ±3 days are 2025-02-07 (+1), 2024-02-09 (+3;
 * 2024-02-02 is 4 days off), 2023-02-03 (-3; 2023-02-10 is 4 off), 2022-02-04 (-2), 2021-02-05 (-1).
 */
const LEVELS: Record<string, number> = {
  '2026-02-06': 428829,
  '2026-01-30': 420299, // change +8530
  '2025-02-07': 423000,
  '2025-01-31': 425000, // -2000
  '2024-02-09': 439000,
  '2024-02-02': 433500, // +5500
  '2023-02-03': 455100,
  '2023-01-27': 452000, // +3100
  '2022-02-04': 410400,
  '2022-01-28': 415200, // -4800
  '2021-02-05': 475700,
  '2021-01-29': 476500, // -800
};
const FULL = weekly('2020-12-25', '2026-02-06', LEVELS);

describe('same week of year', () => {
  it('maps a date to the same calendar date N years earlier, 29 Feb to 28 Feb', () => {
    expect(sameDateYearsBefore('2026-02-06', 3)).toBe('2023-02-06');
    expect(sameDateYearsBefore('2024-02-29', 1)).toBe('2023-02-28');
    expect(sameDateYearsBefore('2024-02-29', 4)).toBe('2020-02-29');
  });

  it('takes the week within ±3 days and nothing 4 days away', () => {
    const pts = [
      { as_of: '2024-02-02', value: 1 },
      { as_of: '2024-02-09', value: 2 },
    ];
    expect(nearestWithin(pts, '2024-02-06')).toEqual({ as_of: '2024-02-09', value: 2 }); // +3, the other is -4
    expect(nearestWithin([{ as_of: '2024-02-02', value: 1 }], '2024-02-06')).toBeNull();
    expect(nearestWithin(pts, '2024-02-05')).toEqual({ as_of: '2024-02-02', value: 1 }); // -3 beats +4
  });

  it('pairs a week only with the week exactly 7 days before it', () => {
    expect(weekBefore([{ as_of: '2026-01-30', value: 5 }], '2026-02-06')).toEqual({ as_of: '2026-01-30', value: 5 });
    expect(weekBefore([{ as_of: '2026-01-23', value: 5 }], '2026-02-06')).toBeNull();
  });
});

describe('analyzeInventory', () => {
  it('computes change, 5-year average/min/max, deviation and surprise (hand-checked)', () => {
    const a = analyzeInventory(FULL)!;
    expect(a.latest).toEqual({ as_of: '2026-02-06', value: 428829 });
    expect(a.change).toBe(8530); // 428829 - 420299
    expect(a.priorYears.map((y) => y.level?.as_of)).toEqual(['2025-02-07', '2024-02-09', '2023-02-03', '2022-02-04', '2021-02-05']);
    expect(a.priorYears.map((y) => y.change)).toEqual([-2000, 5500, 3100, -4800, -800]);
    expect(a.levelYears).toBe(5);
    // (423000 + 439000 + 455100 + 410400 + 475700) / 5 = 2203200 / 5 = 440640
    expect(a.fiveYear).toEqual({ average: 440640, min: { as_of: '2022-02-04', value: 410400 }, max: { as_of: '2021-02-05', value: 475700 } });
    expect(a.deviation).toBe(-11811); // 428829 - 440640
    expect(a.deviationPct).toBe(-2.6804); // -11811 / 440640 = -2.68042 %
    expect(a.averageChange).toBe(200); // (-2000 + 5500 + 3100 - 4800 - 800) / 5
    expect(a.surprise).toBe(8330); // 8530 - 200
  });

  it('does not care about input order', () => {
    expect(analyzeInventory([...FULL].reverse())).toEqual(analyzeInventory(FULL));
  });

  it('answers null 5-year figures, with the count of prior years, when a year is missing', () => {
    const without2023 = FULL.filter((p) => p.as_of !== '2023-02-03');
    const a = analyzeInventory(without2023)!;
    expect(a.levelYears).toBe(4);
    expect(a.changeYears).toBe(4);
    expect(a.fiveYear).toBeNull();
    expect(a.deviation).toBeNull();
    expect(a.deviationPct).toBeNull();
    expect(a.averageChange).toBeNull();
    expect(a.surprise).toBeNull();
    expect(a.change).toBe(8530); // the week-over-week change does not need history
  });

  it('keeps the 5-year levels but drops the surprise when a prior year lacks its week before', () => {
    const a = analyzeInventory(FULL.filter((p) => p.as_of !== '2022-01-28'))!;
    expect(a.fiveYear?.average).toBe(440640);
    expect(a.changeYears).toBe(4);
    expect(a.averageChange).toBeNull();
    expect(a.surprise).toBeNull();
  });

  it('gives no week-over-week change (and no surprise) across a gap', () => {
    const a = analyzeInventory(FULL.filter((p) => p.as_of !== '2026-01-30'))!;
    expect(a.previous).toBeNull();
    expect(a.change).toBeNull();
    expect(a.surprise).toBeNull();
    expect(a.fiveYear?.average).toBe(440640);
  });

  it('with only 13 recent weeks (the bundled samples) has 0 prior years and no NaN anywhere', () => {
    const a = analyzeInventory(weekly('2025-11-14', '2026-02-06', LEVELS))!;
    expect(a.levelYears).toBe(0);
    expect(a.fiveYear).toBeNull();
    expect(JSON.stringify(a)).not.toMatch(/NaN|Infinity/);
  });

  it('rounds percent series without float noise (refinery utilization style values)', () => {
    const a = analyzeInventory([
      { as_of: '2026-01-30', value: 94.1 },
      { as_of: '2026-02-06', value: 93.2 },
    ])!;
    expect(a.change).toBe(-0.9); // 93.2 - 94.1 is -0.8999999999999915 in floating point
  });

  it('ignores non-finite values and answers null for an empty series', () => {
    expect(analyzeInventory([])).toBeNull();
    expect(analyzeInventory([{ as_of: '2026-02-06', value: Number.NaN }])).toBeNull();
    const a = analyzeInventory([
      { as_of: '2026-01-30', value: Number.NaN },
      { as_of: '2026-02-06', value: 5 },
    ])!;
    expect(a.change).toBeNull();
  });
});
