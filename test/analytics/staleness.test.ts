/** The data-staleness rule, on dates worked by hand. */
import { describe, expect, it } from 'vitest';
import { isStale } from '../../shared/observation/staleness';

describe('isStale: a figure older than its cadence allows', () => {
  it.each([
    // eod: 10 days. 2026-11-14 + 10 = 2026-11-24 (not before today) -> fresh; 2026-11-13 + 10 = 11-23 < 11-24 -> stale
    ['2026-11-14', 'eod', '2026-11-24', false],
    ['2026-11-13', 'eod', '2026-11-24', true],
    // weekly: 14 days. 2026-11-10 + 14 = 11-24 -> fresh; 11-09 + 14 = 11-23 -> stale
    ['2026-11-10', 'weekly', '2026-11-24', false],
    ['2026-11-09', 'weekly', '2026-11-24', true],
    // monthly: 62 days. 2026-09-23 + 62 = 11-24 -> fresh; 09-22 + 62 = 11-23 -> stale
    ['2026-09-23', 'monthly', '2026-11-24', false],
    ['2026-09-22', 'monthly', '2026-11-24', true],
    // NG's newest sample, 2024-07-09, read in November 2026
    ['2024-07-09', 'eod', '2026-11-24', true],
    // no regular cadence: only the source's runs decide
    ['2020-01-01', 'decree', '2026-11-24', false],
  ] as const)('%s (%s) on %s -> %s', (asOf, freshness, today, stale) => {
    expect(isStale(asOf, freshness, today, false)).toBe(stale);
  });

  it('a stale source makes every figure stale', () => {
    expect(isStale('2026-11-24', 'eod', '2026-11-24', true)).toBe(true);
  });
});
