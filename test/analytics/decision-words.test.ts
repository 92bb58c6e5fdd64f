/**
 * The words of every decision rule follow the sign and size of the numbers they describe:
 * the two cases the audit found (issue 24), then a property test over generated inputs
 * (fast-check, fixed seed) for each rule.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inventorySurpriseRule, managedMoneyRule, priceRangeRule, spreadRule } from '../../shared/analytics/decision';
import { percentRank } from '../../shared/analytics/cot';
import type { Observation } from '../../shared/observation/schema';

const obs = (instrument: string, as_of: string, value: number, unit = 'USD/bbl'): Observation => ({
  instrument,
  value,
  unit,
  as_of,
  observed_at: null,
  freshness_class: 'eod',
  quality: 'official',
  derived: false,
  source: null,
  license_tag: 'test',
  provenance: null,
  published_at: null,
  next_release_at: null,
  attributes: {},
});
const day = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
const history = (values: readonly number[]) => values.map((value, i) => ({ as_of: day(i), value }));
const has = (text: string, word: string) => text.includes(word);

describe('the cases of the audit', () => {
  it('ZW: managed money net short 16,154 at percentile 93.9 is not "crowded long"', () => {
    const e = managedMoneyRule({ percentile: 93.9, inputs: [obs('ZW', '2026-05-26', -16_154, 'contracts')] })!;
    expect(e.signal).toBe('bearish'); // the contrarian rule reads positioning near its 3-year high
    expect(e.reason).not.toMatch(/crowded long/);
    expect(e.reason).toBe(
      'managed money net short 16,154 contracts, at percentile 93.9 of its 3-year window (>= 90): positioning near its 3-year high: the least short in 3 years',
    );
    expect(e.values).toEqual({ net: -16_154, percentile: 93.9 });
  });

  it('the WTI-Brent basis at -8.81, lower than 84 % of its year, is a wide WTI discount, not "narrow"', () => {
    // Constructed year: four values below -8.81, twenty-six between -8 and -1.75 (smaller discounts).
    const values = [-9.5, -9.2, -9.0, -8.9, -8.81, ...Array.from({ length: 26 }, (_, i) => -8 + i * 0.25)];
    const e = spreadRule(obs('BASIS_WTI_BRENT', day(40), -8.81), history(values));
    const p = percentRank(values, -8.81)!;
    expect(p).toBeLessThanOrEqual(20);
    expect(e.signal).toBe('bearish'); // low vs its history: WTI weak relative to Brent
    expect(e.reason).toMatch(/: low; WTI 8\.81 USD\/bbl below Brent \(a discount\), size percentile [\d.]+, wide$/);
    expect(e.reason).not.toMatch(/narrow/);
  });
});

describe('words follow numbers, for every rule (fast-check, fixed seed)', () => {
  const settings = { seed: 24, numRuns: 500 };
  const price = fc.double({ min: -50, max: 500, noNaN: true, noDefaultInfinity: true }).map((v) => Math.round(v * 100) / 100);

  it('price_range_1y: "near the 1-year high" only at >= 80 % of the range, "near the 1-year low" only at <= 20 %', () => {
    fc.assert(
      fc.property(fc.array(price, { minLength: 5, maxLength: 40 }), (values) => {
        const e = priceRangeRule(values.map((v, i) => obs('CL', day(i), v)))!;
        const pos = e.values.position_pct as number | null;
        if (pos === null) return !has(e.reason, 'near the 1-year');
        return has(e.reason, 'near the 1-year high') === pos >= 80 && has(e.reason, 'near the 1-year low') === pos <= 20 && has(e.reason, `at ${pos} %`);
      }),
      settings,
    );
  });

  it('inventory_surprise: "tighter" only for a draw beyond the threshold, "looser" only for a build beyond it', () => {
    fc.assert(
      fc.property(fc.integer({ min: -20_000, max: 20_000 }), (surprise) => {
        const e = inventorySurpriseRule('crude_ex_spr', obs('crude_ex_spr', '2025-06-13', surprise, 'Mbbl'), null)!;
        return has(e.reason, 'tighter') === surprise <= -2000 && has(e.reason, 'looser') === surprise >= 2000 && has(e.reason, `surprise ${surprise} Mbbl`);
      }),
      settings,
    );
  });

  it('managed_money_percentile: "net long"/"net short" follow the sign, "crowded" only where the side agrees', () => {
    fc.assert(
      fc.property(fc.integer({ min: -400_000, max: 400_000 }), fc.double({ min: 0, max: 100, noNaN: true }), (net, pct) => {
        const p = Math.round(pct * 10) / 10;
        const e = managedMoneyRule({ percentile: p, inputs: [obs('ZW', '2026-05-26', net, 'contracts')] })!;
        const r = e.reason;
        return (
          has(r, 'net long') === net > 0 &&
          has(r, 'net short') === net < 0 &&
          has(r, ': crowded long') === (net > 0 && p >= 90) &&
          has(r, ': crowded short') === (net < 0 && p <= 10) &&
          (e.signal === 'bearish') === p >= 90 &&
          (e.signal === 'bullish') === p <= 10
        );
      }),
      settings,
    );
  });

  it('spread_vs_history: high/low follow the percentile, wide/narrow the size, discount/premium and negative the sign', () => {
    const spread = fc.double({ min: -30, max: 30, noNaN: true, noDefaultInfinity: true }).map((v) => Math.round(v * 100) / 100);
    fc.assert(
      fc.property(fc.array(spread, { minLength: 5, maxLength: 60 }), fc.constantFrom('BASIS_WTI_BRENT', 'CRACK_3_2_1', 'SOY_CRUSH'), (values, instrument) => {
        const latest = values.at(-1)!;
        const e = spreadRule(obs(instrument, day(values.length), latest), history(values));
        const p = e.values.percentile as number;
        const size = e.values.size_percentile as number;
        const r = e.reason;
        const sign =
          instrument === 'BASIS_WTI_BRENT'
            ? has(r, 'below Brent') === latest < 0 && has(r, 'above Brent') === latest > 0
            : has(r, 'a negative spread') === latest < 0 && has(r, 'a positive spread') === latest > 0;
        return (
          sign &&
          has(r, ': high') === p >= 80 &&
          has(r, ': low') === p <= 20 &&
          r.endsWith(', wide') === size >= 80 &&
          r.endsWith(', narrow') === size <= 20 &&
          size ===
            percentRank(
              values.map((v) => Math.abs(v)),
              Math.abs(latest),
            )
        );
      }),
      settings,
    );
  });
});
