/** The ingestion guards on hand-made items. */
import { describe, expect, it } from 'vitest';
import type { StoredObservation } from '../../shared/observation/schema';
import { futureDated, quarantine } from '../../shared/sources/guards';
import type { SeriesItem } from '../../shared/store/observation-store';

const item = (seriesKey: string, as_of: string, value: number | null): SeriesItem => ({
  seriesKey,
  observation: { as_of, value } as unknown as StoredObservation,
});

describe('futureDated', () => {
  it('flags what is dated after tomorrow, not tomorrow itself', () => {
    const items = [
      item('PRICE#CL', '2026-11-24', 1),
      item('PRICE#CL', '2026-11-25', 1),
      item('PRICE#CL', '2026-11-26', 1),
      item('INV#cushing', '2099-01-01', 1),
    ];
    expect(futureDated(items, '2026-11-24').map((i) => i.observation.as_of)).toEqual(['2026-11-26', '2099-01-01']);
  });
});

describe('quarantine', () => {
  const none = () => null;

  it('holds a price outside its unit band; keeps negative WTI (April 2020) and non-price series', () => {
    const { keep, held } = quarantine(
      [item('PRICE#CL', '2020-04-20', -37.63), item('PRICE#CL', '2025-06-16', 7_253_000), item('INV#crude_ex_spr', '2025-06-13', 7_253_000)],
      none,
    );
    expect(keep.map((i) => [i.seriesKey, i.observation.value])).toEqual([
      ['INV#crude_ex_spr', 7_253_000],
      ['PRICE#CL', -37.63],
    ]);
    expect(held).toEqual([{ series: 'PRICE#CL', as_of: '2025-06-16', value: 7_253_000, reason: 'outside the plausible band -100..1000 USD/bbl' }]);
  });

  it('holds a point more than 10x away from the one before it, and lets a real 7x spike through', () => {
    // Henry Hub: 3.23 -> 23.86 (7.4x) in February 2021 is real; copper 9,000 -> 90 (a hundredth) is a decimal slip
    const previous = (k: string) => (k === 'PRICE#HG' ? ({ as_of: '2025-10-01', value: 9000 } as StoredObservation) : null);
    const { keep, held } = quarantine(
      [item('PRICE#NG', '2021-02-10', 3.23), item('PRICE#NG', '2021-02-17', 23.86), item('PRICE#HG', '2025-11-01', 90), item('PRICE#HG', '2025-12-01', 9100)],
      previous,
    );
    expect(keep.map((i) => [i.seriesKey, i.observation.value])).toEqual([
      ['PRICE#HG', 9100],
      ['PRICE#NG', 3.23],
      ['PRICE#NG', 23.86],
    ]);
    expect(held).toEqual([{ series: 'PRICE#HG', as_of: '2025-11-01', value: 90, reason: 'more than 10x away from the previous point (9000 on 2025-10-01)' }]);
  });
});
