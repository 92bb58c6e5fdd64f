import { describe, expect, it } from 'vitest';
import { isoWeekId, resample, summarize } from '../../shared/analytics/history';

const p = (as_of: string, value: number) => ({ as_of, value });

describe('history arithmetic', () => {
  it('names ISO weeks across year boundaries', () => {
    expect(isoWeekId('2025-06-13')).toBe('2025-W24');
    expect(isoWeekId('2024-12-30')).toBe('2025-W01'); // Monday of ISO week 1 of 2025
    expect(isoWeekId('2021-01-03')).toBe('2020-W53'); // Sunday still in 2020's week 53
    expect(isoWeekId('2026-11-21')).toBe('2026-W47');
  });

  it('keeps the last point of each week or month', () => {
    const pts = [p('2025-06-02', 1), p('2025-06-06', 2), p('2025-06-09', 3), p('2025-06-30', 4), p('2025-07-01', 5)];
    expect(resample(pts, 'weekly').map((x) => x.as_of)).toEqual(['2025-06-06', '2025-06-09', '2025-07-01']);
    expect(resample(pts, 'monthly').map((x) => x.as_of)).toEqual(['2025-06-30', '2025-07-01']);
    expect(resample(pts, 'native')).toEqual(pts);
    expect(resample([], 'weekly')).toEqual([]);
  });

  it('summarises a window (hand-checked) and is null for an empty one', () => {
    expect(summarize([p('2025-01-01', 80), p('2025-01-02', 75), p('2025-01-03', 90), p('2025-01-06', 88)])).toEqual({
      first: p('2025-01-01', 80),
      last: p('2025-01-06', 88),
      min: p('2025-01-02', 75),
      max: p('2025-01-03', 90),
      change: 8,
      change_pct: 10,
    });
    expect(summarize([p('2025-01-01', 0), p('2025-01-02', 1)])?.change_pct).toBeNull();
    expect(summarize([])).toBeNull();
    // float noise is rounded away: 0.3 - 0.1 is 0.19999999999999998 in binary
    expect(summarize([p('2025-01-01', 0.1), p('2025-01-02', 0.3)])?.change).toBe(0.2);
  });
});
