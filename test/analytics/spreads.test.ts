import { describe, expect, it } from 'vitest';
import {
  SPREADS,
  calendarSpread,
  commonDates,
  crack321,
  alignLegs,
  slowestFreshness,
  soyCrush,
  spreadObservation,
  spreadSeries,
  weakestQuality,
  wtiBrentBasis,
} from '../../shared/analytics/spreads';
import type { Observation } from '../../shared/observation/schema';
import { expectObservation } from '../helpers/contract';

/** A served leg observation with the given fields. */
const leg = (instrument: string, as_of: string, value: number, over: Partial<Observation> = {}): Observation => ({
  instrument,
  value,
  unit: 'USD/gal',
  as_of,
  observed_at: null,
  freshness_class: 'eod',
  quality: 'official',
  derived: false,
  source: { name: 'U.S. Energy Information Administration', series_id: instrument, url: null },
  license_tag: 'public-domain (US government work)',
  provenance: { retrieved_at: '2025-06-18T14:00:00.000Z', cache_hit: true, cache_ttl_s: 300 },
  published_at: null,
  next_release_at: null,
  attributes: {},
  ...over,
});

describe('spread formulas (hand-checked)', () => {
  it('3-2-1 crack on EIA spot of 2025-06-16 and 2025-06-13', () => {
    // (2 x 2.162 x 42 + 2.398 x 42 - 3 x 72.53) / 3 = (181.608 + 100.716 - 217.59) / 3 = 64.734 / 3 = 21.578
    expect(crack321(2.162, 2.398, 72.53)).toBe(21.578);
    // (2 x 2.187 x 42 + 2.402 x 42 - 3 x 73.84) / 3 = (183.708 + 100.884 - 221.52) / 3 = 63.072 / 3 = 21.024
    expect(crack321(2.187, 2.402, 73.84)).toBe(21.024);
    // A repeating decimal is cut at 4 places: (2 x 2 x 42 + 2 x 42 - 3 x 80) / 3 = (168 + 84 - 240) / 3 = 4
    expect(crack321(2, 2, 80)).toBe(4);
    // (2 x 2.1 x 42 + 2.2 x 42 - 3 x 70) / 3 = (176.4 + 92.4 - 210) / 3 = 58.8 / 3 = 19.6
    expect(crack321(2.1, 2.2, 70)).toBe(19.6);
    // (2 x 2.001 x 42 + 2 x 42 - 3 x 70) / 3 = (168.084 + 84 - 210) / 3 = 42.084 / 3 = 14.028
    expect(crack321(2.001, 2, 70)).toBe(14.028);
  });

  it('soy crush proxy', () => {
    // 310 x 0.022 + 0.52 x 11 - 10.50 = 6.82 + 5.72 - 10.50 = 2.04
    expect(soyCrush(310, 0.52, 10.5)).toBe(2.04);
    // 300 x 0.022 + 0.5 x 11 - 10 = 6.6 + 5.5 - 10 = 2.1
    expect(soyCrush(300, 0.5, 10)).toBe(2.1);
    // a negative margin: 280 x 0.022 + 0.40 x 11 - 12 = 6.16 + 4.4 - 12 = -1.44
    expect(soyCrush(280, 0.4, 12)).toBe(-1.44);
  });

  it('WTI-Brent basis and calendar spread', () => {
    expect(wtiBrentBasis(72.53, 75.05)).toBe(-2.52);
    expect(wtiBrentBasis(73.84, 76)).toBe(-2.16);
    expect(calendarSpread(70.12, 69.87)).toBe(0.25); // backwardation
    expect(calendarSpread(3.1, 3.35)).toBe(-0.25); // contango
    expect(calendarSpread(70, 70)).toBe(0); // never -0
    expect(Object.is(calendarSpread(0.1, 0.1), -0)).toBe(false);
  });

  it('the defined spreads compute from their legs with the same formulas', () => {
    expect(SPREADS.crack.compute({ RB: 2.162, HO: 2.398, CL: 72.53 })).toBe(21.578);
    expect(SPREADS.crush.compute({ ZM: 310, ZL: 0.52, ZS: 10.5 })).toBe(2.04);
    expect(SPREADS.basis.compute({ CL: 72.53, BZ: 75.05 })).toBe(-2.52);
    // the coefficients say the same thing as the formula: sum(coefficient x leg) = crack
    const v: Record<string, number> = { RB: 2.162, HO: 2.398, CL: 72.53 };
    const linear = SPREADS.crack.legs.reduce((s, l) => s + l.coefficient * v[l.code]!, 0);
    expect(linear).toBeCloseTo(21.578, 10);
  });
});

describe('leg rules', () => {
  it('quality is the weakest of the legs', () => {
    expect(weakestQuality(['official', 'official'])).toBe('official');
    expect(weakestQuality(['official', 'derived', 'official'])).toBe('derived');
    expect(weakestQuality(['derived', 'delayed'])).toBe('delayed');
    expect(weakestQuality(['official', 'indicative', 'derived'])).toBe('indicative');
    expect(weakestQuality(['official', null])).toBeNull();
  });

  it('freshness is the slowest of the legs', () => {
    expect(slowestFreshness(['eod', 'eod'])).toBe('eod');
    expect(slowestFreshness(['eod', 'monthly', 'weekly'])).toBe('monthly');
    expect(slowestFreshness(['delayed', 'intraday'])).toBe('delayed');
  });

  it('aligns legs on the latest date they all share, up to today and within the cadence', () => {
    // Brent has no quote on 2025-06-16 here: the basis uses 2025-06-13 for both legs.
    const cl = [leg('CL', '2025-06-16', 72.53), leg('CL', '2025-06-13', 73.84), leg('CL', '2025-06-12', 68.73)];
    const bz = [leg('BZ', '2025-06-13', 76), leg('BZ', '2025-06-12', 70.84)];
    expect(commonDates({ CL: cl, BZ: bz })).toEqual(['2025-06-12', '2025-06-13']);
    const a = alignLegs({ CL: cl, BZ: bz }, 'eod', '2025-06-17');
    expect(a).toMatchObject({ ok: true, as_of: '2025-06-13' });
    expect(a.ok && a.legs.BZ!.value).toBe(76);
    // judged at a past instant, later dates do not count: on 2025-06-12 the shared date is the 12th
    expect(alignLegs({ CL: cl, BZ: bz }, 'eod', '2025-06-12')).toMatchObject({ ok: true, as_of: '2025-06-12' });
    // 2025-06-13 + 10 days = 2025-06-23: still within the cadence then, stale the day after
    expect(alignLegs({ CL: cl, BZ: bz }, 'eod', '2025-06-23')).toMatchObject({ ok: true, as_of: '2025-06-13' });
    expect(alignLegs({ CL: cl, BZ: bz }, 'eod', '2025-06-24')).toMatchObject({ ok: false, stale: true, max_lag_days: 10 });
  });

  it('is stale with no value when the legs share no date within the cadence, never a mix (the crack of issue 24)', () => {
    // RB and HO end 2025-06-16 (real EIA samples), WTI runs to 2026-08-18: judged on 2026-08-19 no
    // date from 2026-08-09 on is shared, so there is no crack, not 7.628 from legs of two years.
    const legs = {
      RB: [leg('RB', '2025-06-16', 2.162)],
      HO: [leg('HO', '2025-06-16', 2.398)],
      CL: [leg('CL', '2025-06-16', 72.53), leg('CL', '2026-08-18', 86.48)],
    };
    expect(alignLegs(legs, 'eod', '2026-08-19')).toEqual({
      ok: false,
      stale: true,
      cadence: 'eod',
      max_lag_days: 10,
      reason:
        'no date from 2026-08-09 to 2026-08-19 (eod: 10 days) that every leg shares (newest: RB 2025-06-16, HO 2025-06-16, CL 2026-08-18): stale, no value',
    });
    // On the day after the shared date the crack is (2 x 2.162 x 42 + 2.398 x 42 - 3 x 72.53) / 3 = 21.578.
    const a = alignLegs(legs, 'eod', '2025-06-17');
    expect(a.ok && spreadObservation(SPREADS.crack, a.legs).value).toBe(21.578);
  });

  it('three legs on pairwise shared dates share none: no crack, not one from two legs of one day and a third of another', () => {
    // Synthetic: each date is shared by two of the three legs, none by all three.
    const legs = {
      RB: [leg('RB', '2025-06-12', 2.1), leg('RB', '2025-06-13', 2.2)],
      HO: [leg('HO', '2025-06-13', 2.3), leg('HO', '2025-06-16', 2.4)],
      CL: [leg('CL', '2025-06-12', 70), leg('CL', '2025-06-16', 72)],
    };
    expect(commonDates(legs)).toEqual([]);
    expect(alignLegs(legs, 'eod', '2025-06-17')).toMatchObject({ ok: false, stale: true });
    const points = (l: typeof legs) => Object.fromEntries(Object.entries(l).map(([code, obs]) => [code, obs.map((o) => ({ as_of: o.as_of, value: o.value }))]));
    expect(spreadSeries(SPREADS.crack, points(legs))).toEqual([]);
    // Once all three have 2025-06-13 it is the date: (2 x 2.2 x 42 + 2.3 x 42 - 3 x 71) / 3 = 22.8.
    const shared = { ...legs, CL: [...legs.CL, leg('CL', '2025-06-13', 71)] };
    expect(commonDates(shared)).toEqual(['2025-06-13']);
    const a = alignLegs(shared, 'eod', '2025-06-17');
    expect(a).toMatchObject({ ok: true, as_of: '2025-06-13' });
    expect(a.ok && spreadObservation(SPREADS.crack, a.legs).value).toBe(22.8);
  });

  it('builds a complete spread observation from the legs', () => {
    const legs = {
      RB: leg('RB', '2025-06-16', 2.162, { next_release_at: '2025-06-19T21:00:00.000Z' }),
      HO: leg('HO', '2025-06-16', 2.398, { provenance: { retrieved_at: '2025-06-17T14:00:00.000Z', cache_hit: false, cache_ttl_s: 300 } }),
      CL: leg('CL', '2025-06-16', 72.53, { unit: 'USD/bbl', next_release_at: '2025-06-18T21:00:00.000Z' }),
    };
    const o = spreadObservation(SPREADS.crack, legs);
    expectObservation(o);
    expect(o).toMatchObject({
      instrument: 'CRACK_3_2_1',
      value: 21.578,
      unit: 'USD/bbl',
      as_of: '2025-06-16',
      freshness_class: 'eod',
      quality: 'derived', // computed here, whatever its legs are; their weakest quality is kept
      derived: true,
      license_tag: 'public-domain (US government work)',
      // the oldest leg retrieval, a miss because one leg missed, the shortest TTL
      provenance: { retrieved_at: '2025-06-17T14:00:00.000Z', cache_hit: false, cache_ttl_s: 300 },
      next_release_at: '2025-06-18T21:00:00.000Z',
      attributes: {
        formula: '(2 x RB x 42 + 1 x HO x 42 - 3 x CL) / 3',
        legs_quality: 'official',
        RB: 2.162,
        HO: 2.398,
        CL: 72.53,
      },
    });
    expect(o.source!.name).toMatch(/computed by this service from U.S. Energy Information Administration/);
  });

  it('takes the latest observed_at of its legs, null when no leg has one', () => {
    // WTI: end of 16 June at Cushing (CDT) = 05:00Z on the 17th less a second; Brent: end of 16 June in London (BST) = 23:00Z less a second.
    const cl = leg('CL', '2025-06-16', 70, { observed_at: '2025-06-17T04:59:59.000Z' });
    const bz = leg('BZ', '2025-06-16', 73, { observed_at: '2025-06-16T22:59:59.000Z' });
    expect(spreadObservation(SPREADS.basis, { CL: cl, BZ: bz }).observed_at).toBe('2025-06-17T04:59:59.000Z');
    expect(spreadObservation(SPREADS.basis, { CL: cl, BZ: leg('BZ', '2025-06-16', 73) }).observed_at).toBe('2025-06-17T04:59:59.000Z');
    expect(spreadObservation(SPREADS.basis, { CL: leg('CL', '2025-06-16', 70), BZ: leg('BZ', '2025-06-16', 73) }).observed_at).toBeNull();
  });

  it('a monthly leg makes the spread monthly; the spread is always derived and keeps its weakest leg quality', () => {
    const m = (code: string, v: number, q: Observation['quality'] = 'derived') =>
      leg(code, '2025-09-01', v, { freshness_class: 'monthly', quality: q, license_tag: 'CC BY 4.0' });
    const crush = spreadObservation(SPREADS.crush, { ZM: m('ZM', 310), ZL: m('ZL', 0.52), ZS: m('ZS', 10.5) });
    expect(crush).toMatchObject({ value: 2.04, freshness_class: 'monthly', quality: 'derived', license_tag: 'CC BY 4.0' });
    const ind = spreadObservation(SPREADS.crush, { ZM: m('ZM', 310), ZL: m('ZL', 0.52, 'indicative'), ZS: m('ZS', 10.5) });
    expect(ind.quality).toBe('derived');
    expect(ind.attributes.legs_quality).toBe('indicative');
    const licensed = spreadObservation(SPREADS.basis, { CL: leg('CL', '2025-01-02', 70), BZ: leg('BZ', '2025-01-02', 73, { license_tag: 'other' }) });
    expect(licensed).toMatchObject({ as_of: '2025-01-02', value: -3, license_tag: 'public-domain (US government work) + other' });
  });

  it('computes a spread history on shared dates only', () => {
    const pts = spreadSeries(SPREADS.basis, {
      CL: [
        { as_of: '2025-06-12', value: 68.73 },
        { as_of: '2025-06-13', value: 73.84 },
        { as_of: '2025-06-16', value: 72.53 },
      ],
      BZ: [
        { as_of: '2025-06-16', value: 75.05 },
        { as_of: '2025-06-13', value: 76 },
      ],
    });
    expect(pts).toEqual([
      { as_of: '2025-06-13', value: -2.16 },
      { as_of: '2025-06-16', value: -2.52 },
    ]);
    expect(spreadSeries(SPREADS.basis, { CL: [], BZ: [] })).toEqual([]);
  });
});
