/** The coverage a window-based decision rule needs (issue 34), on windows counted by hand. */
import { describe, expect, it } from 'vitest';
import { expectedPoints, windowCoverage } from '../../shared/analytics/window-coverage';

describe('expectedPoints: what a cadence publishes over a window, both ends counted', () => {
  it.each([
    // 2023-03-12 (Sunday) .. 2024-03-12 (Tuesday): 52 weeks from Sunday to Saturday 2024-03-09 (260), then Mon and Tue
    ['2023-03-12', '2024-03-12', 'eod', 262],
    // 2024-11-01 .. 2025-11-01: thirteen first-of-months
    ['2024-11-01', '2025-11-01', 'monthly', 13],
    // 2023-05-26 .. 2026-05-26 (1,096 days): 156 weeks and 4 days, 157 Tuesdays
    ['2023-05-26', '2026-05-26', 'weekly', 157],
    ['2024-12-31', '2025-12-31', 'annual', 2],
    ['2025-01-01', '2026-01-01', 'decree', null],
  ] as const)('%s .. %s %s -> %s', (start, end, cadence, n) => {
    expect(expectedPoints(start, end, cadence)).toBe(n);
  });
});

describe('windowCoverage', () => {
  const months = (n: number) => Array.from({ length: n }, (_, i) => `${2024 + Math.floor((10 + i) / 12)}-${String(((10 + i) % 12) + 1).padStart(2, '0')}-01`);
  it('covers 12 or 13 of 13 months from the first; not 11, not from the second', () => {
    expect(windowCoverage(months(13), '2024-11-01', '2025-11-01', 'monthly')).toEqual({
      points: 13,
      expected: 13,
      coverage_pct: 100,
      covered: true,
      shortfall: null,
    });
    // 12 of 13 = 92.3 %
    expect(
      windowCoverage(
        months(13).filter((d) => d !== '2025-03-01'),
        '2024-11-01',
        '2025-11-01',
        'monthly',
      ).covered,
    ).toBe(true);
    // 11 of 13 = 84.6 %
    const eleven = windowCoverage(
      months(13).filter((d) => d !== '2025-03-01' && d !== '2025-04-01'),
      '2024-11-01',
      '2025-11-01',
      'monthly',
    );
    expect(eleven).toMatchObject({ covered: false, coverage_pct: 84.6, shortfall: '11 of the 13 monthly points of the window (84.6 %, needs 90 %)' });
    expect(windowCoverage(months(13).slice(1), '2024-11-01', '2025-11-01', 'monthly').shortfall).toBe(
      "the stored points start 2024-12-01, not in the window's first period from 2024-11-01",
    );
    expect(windowCoverage([], '2024-11-01', '2025-11-01', 'monthly')).toMatchObject({ covered: false, shortfall: 'no points in the window' });
  });
});
