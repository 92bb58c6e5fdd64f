import { describe, expect, it } from 'vitest';
import { analyzeCot, percentRank, rangePosition, type CotPoint } from '../../shared/analytics/cot';

const DAY = 86_400_000;
const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);

/**
 * Constructed reports (not CFTC data): every Tuesday from 2023-04-18 to 2026-04-14 (157 reports,
 * the whole 3-year window [2023-04-14, 2026-04-14]); week i has net 10 x i (long 1000 + 10i,
 * short 1000) for i = 0..155, and the latest week a net of 750. One report before the window
 * (2023-04-11, net -99000) must not count.
 */
const series = (): CotPoint[] => {
  const out: CotPoint[] = [{ as_of: '2023-04-11', long: 1000, short: 100_000, spreading: 0, openInterest: 200_000 }];
  for (let i = 0; i <= 156; i++) {
    const long = i === 156 ? 1750 : 1000 + 10 * i;
    out.push({ as_of: addDays('2023-04-18', 7 * i), long, short: 1000, spreading: 5, openInterest: 10_000 });
  }
  return out;
};

describe('percentRank and rangePosition', () => {
  it('ranks with half weight for ties (hand-checked)', () => {
    expect(percentRank([1, 2, 3, 4], 3)).toBe(62.5); // (2 + 0.5) / 4
    expect(percentRank([5, 5, 5, 5], 5)).toBe(50);
    expect(percentRank([1, 2, 3], 1)).toBe(16.6667); // 0.5 / 3
    expect(percentRank([], 1)).toBeNull();
  });

  it('places a value in its min-max range, null when the range is flat', () => {
    expect(rangePosition(-100, 300, 100)).toBe(50);
    expect(rangePosition(0, 1550, 750)).toBe(48.3871);
    expect(rangePosition(7, 7, 7)).toBeNull();
  });
});

describe('analyzeCot', () => {
  it('computes net, % of OI, weekly change and the 3-year standing (hand-checked)', () => {
    const a = analyzeCot(series())!;
    expect(a.latest.as_of).toBe('2026-04-14');
    expect(a.net).toBe(750);
    expect(a.netPctOi).toBe(7.5); // 750 / 10000
    expect(a.previous?.as_of).toBe('2026-04-07');
    expect(a.netChange).toBe(-800); // 750 - 1550
    expect(a.range).toMatchObject({ start: '2023-04-14', end: '2026-04-14', reports: 157, expected: 157, covered: true });
    // below 750: nets 0..740 (75 reports); equal: week 75 and the latest (2) -> (75 + 1) / 157
    expect(a.range.percentile).toBe(48.4076);
    expect(a.range.min).toEqual({ as_of: '2023-04-18', net: 0 });
    expect(a.range.max).toEqual({ as_of: '2026-04-07', net: 1550 });
    expect(a.range.index).toBe(48.3871); // 750 / 1550
  });

  it('compares with the previous report even when a holiday moved its date, and not across a missing week', () => {
    // constructed dates: the latest report 6 days after the one before (a holiday-shifted Monday
    // report), then 8 days, then a missing week (14 days)
    const point = (as_of: string, long: number): CotPoint => ({ as_of, long, short: 1000, spreading: 0, openInterest: 10_000 });
    const shifted = analyzeCot([point('2025-12-16', 1500), point('2025-12-22', 1700)])!;
    expect(shifted.previous?.as_of).toBe('2025-12-16');
    expect(shifted.netChange).toBe(200); // 700 - 500
    expect(analyzeCot([point('2025-12-22', 1700), point('2025-12-30', 1600)])!.netChange).toBe(-100); // 600 - 700, 8 days apart
    const gap = analyzeCot([point('2025-12-02', 1500), point('2025-12-16', 1700)])!;
    expect(gap.previous).toBeNull();
    expect(gap.netChange).toBeNull();
  });

  it('answers null 3-year figures when less than 3 years are stored', () => {
    const recent = series().slice(-4);
    const a = analyzeCot(recent)!;
    expect(a.range).toMatchObject({ reports: 4, expected: 157, covered: false, percentile: null, index: null, min: null, max: null });
    expect(a.netChange).toBe(-800);
  });

  it('answers null 3-year figures when more than 10 % of the weeks are missing', () => {
    const gappy = series().filter((_, i) => i < 40 || i > 60); // 21 reports dropped: 136 of 157
    expect(analyzeCot(gappy)!.range).toMatchObject({ reports: 136, covered: false, percentile: null });
    const few = series().filter((_, i) => i < 40 || i > 50); // 11 dropped: 146 >= ceil(0.9 x 157) = 142
    expect(analyzeCot(few)!.range.covered).toBe(true);
  });

  it("answers null 3-year figures when the reports do not reach back to the window's first week, however many are stored", () => {
    // The window's first 10 weeks missing: 147 of 157 reports (>= 142, 90 %) but the earliest is
    // 2023-06-27, ten weeks after the window starts (2023-04-14): the 3 years are not covered.
    const late = series().filter((_, i) => i === 0 || i > 10);
    expect(analyzeCot(late)!.range).toMatchObject({ start: '2023-04-14', reports: 147, covered: false, percentile: null, min: null, max: null });
    // Missing only the first week of the window (earliest 2023-04-25, 11 days in): not covered either.
    expect(analyzeCot(series().filter((_, i) => i !== 1))!.range).toMatchObject({ reports: 156, covered: false });
  });

  it('gives no weekly change across a missing report, and null % of OI when OI is 0', () => {
    const pts: CotPoint[] = [
      { as_of: '2026-03-31', long: 10, short: 5, spreading: 0, openInterest: 100 },
      { as_of: '2026-04-14', long: 10, short: 5, spreading: 0, openInterest: 0 },
    ];
    const a = analyzeCot(pts)!;
    expect(a.netChange).toBeNull();
    expect(a.netPctOi).toBeNull();
    expect(analyzeCot([])).toBeNull();
  });
});
