/** The data-staleness rule, on dates worked by hand. */
import { describe, expect, it } from 'vitest';
import { expectedNextAsOf, isStale, judgeFigure } from '../../shared/observation/staleness';

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

describe('judgeFigure: the freshness a latest figure carries in its provenance', () => {
  it.each([
    // eod: the next weekday. Tue 2026-08-18 -> Wed 08-19; Fri 2026-11-20 -> Mon 11-23
    ['2026-08-18', 'eod', '2026-08-20', { stale: false, expected_next_as_of: '2026-08-19' }],
    ['2026-11-20', 'eod', '2026-11-25', { stale: false, expected_next_as_of: '2026-11-23' }],
    // the same WTI figure in late November is 99 days old: stale
    ['2026-08-18', 'eod', '2026-11-25', { stale: true, expected_next_as_of: '2026-08-19' }],
    // weekly: a week on (EIA's week ending Friday 2026-11-13 -> 11-20)
    ['2026-11-13', 'weekly', '2026-11-25', { stale: false, expected_next_as_of: '2026-11-20' }],
    // monthly: a month on, clamped to the month's end
    ['2026-01-31', 'monthly', '2026-02-10', { stale: false, expected_next_as_of: '2026-02-28' }],
    ['2025-12-01', 'monthly', '2026-11-25', { stale: true, expected_next_as_of: '2026-01-01' }],
    // no regular cadence: neither judged nor predicted
    ['2020-01-01', 'decree', '2026-11-25', { stale: null, expected_next_as_of: null }],
  ] as const)('%s (%s) on %s', (asOf, freshness, today, expected) => {
    expect(judgeFigure(asOf, freshness, today)).toEqual(expected);
  });

  it('a leap year keeps 29 February', () => {
    expect(expectedNextAsOf('2028-01-29', 'monthly')).toBe('2028-02-29');
    expect(expectedNextAsOf('2028-02-29', 'monthly')).toBe('2028-03-29');
  });
});
