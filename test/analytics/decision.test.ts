import { describe, expect, it } from 'vitest';
import {
  RULES_VERSION,
  buildAllPack,
  buildSectorPack,
  canonicalObservation,
  combine,
  inventorySurpriseRule,
  managedMoneyRule,
  priceRangeRule,
  spreadRule,
  type SectorInputs,
} from '../../shared/analytics/decision';
import type { Observation } from '../../shared/observation/schema';
import { expectObservation } from '../helpers/contract';

const obs = (instrument: string, as_of: string, value: number, over: Partial<Observation> = {}): Observation => ({
  instrument,
  value,
  unit: 'USD/bbl',
  as_of,
  observed_at: null,
  freshness_class: 'eod',
  quality: 'official',
  derived: false,
  source: { name: 'EIA', series_id: instrument, url: null },
  license_tag: 'public-domain (US government work)',
  provenance: { retrieved_at: '2025-06-18T14:00:00.000Z', cache_hit: false, cache_ttl_s: 300 },
  published_at: null,
  next_release_at: null,
  attributes: {},
  ...over,
});

/** A day on which the hand-made inputs (June 2025) are fresh. */
const TODAY = '2025-06-16';

/** The weekdays from `start` through `end`, ascending. */
const weekdays = (start: string, end: string): string[] => {
  const out: string[] = [];
  for (let t = Date.parse(`${start}T00:00:00Z`); t <= Date.parse(`${end}T00:00:00Z`); t += 86_400_000) {
    const d = new Date(t);
    if (d.getUTCDay() % 6 !== 0) out.push(d.toISOString().slice(0, 10));
  }
  return out;
};
/** Every weekday of the year ending Friday 2025-06-06: 52 weeks from Thursday 2024-06-06 (260) and 06-05, 06-06. */
const YEAR = weekdays('2024-06-06', '2025-06-06');

/**
 * A daily window covering its year: the values on its last weekdays (2025-06-02..06-06 for five),
 * every earlier weekday at the middle of their range, so min, max and position are the values'.
 */
const window = (code: string, values: number[]) => {
  const mid = (Math.min(...values) + Math.max(...values)) / 2;
  const all = [...Array<number>(YEAR.length - values.length).fill(mid), ...values];
  return YEAR.map((d, i) => obs(code, d, all[i]!));
};
/** The values alone on their weekdays: too little of the year to judge. */
const shortWindow = (code: string, values: number[]) => YEAR.slice(-values.length).map((d, i) => obs(code, d, values[i]!));

describe('rule price_range_1y (hand-checked)', () => {
  it.each([
    // (78 - 60) / (80 - 60) x 100 = 90
    [[60, 70, 65, 80, 78], 90, 'bullish'],
    // (76 - 60) / 20 x 100 = 80: the threshold itself fires
    [[60, 70, 65, 80, 76], 80, 'bullish'],
    // (62 - 60) / 20 x 100 = 10
    [[60, 70, 65, 80, 62], 10, 'bearish'],
    // (70 - 60) / 20 x 100 = 50
    [[60, 70, 65, 80, 70], 50, 'neutral'],
    // (72.53 - 58.5) / (73.84 - 58.5) x 100 = 14.03 / 15.34 x 100 = 91.46 (2 decimals)
    [[58.5, 73.84, 65, 70, 72.53], 91.46, 'bullish'],
  ])('%j -> position %s, %s', (values, position, signal) => {
    const e = priceRangeRule(window('CL', values))!;
    expect(e.values.position_pct).toBe(position);
    expect(e.signal).toBe(signal);
    expect(e.fired).toBe(signal !== 'neutral');
    e.inputs.forEach(expectObservation);
  });

  it('cites the latest, the minimum and the maximum as inputs', () => {
    const e = priceRangeRule(window('CL', [60, 70, 65, 80, 78]))!;
    expect(e.inputs.map((o) => [o.as_of, o.value])).toEqual([
      ['2025-06-06', 78],
      ['2025-06-02', 60],
      ['2025-06-05', 80],
    ]);
    expect(YEAR).toHaveLength(262);
    expect(e.values).toMatchObject({ points: 262, coverage_pct: 100, window_start: '2024-06-06', window_end: '2025-06-06', min: 60, max: 80 });
  });

  it('stays neutral with too little history or a flat range, and is absent without data', () => {
    expect(priceRangeRule(shortWindow('CL', [60, 70, 80, 90]))).toMatchObject({ signal: 'neutral', fired: false, values: { position_pct: null } });
    expect(priceRangeRule(window('CL', [5, 5, 5, 5, 5]))!.reason).toBe('flat 1-year range');
    expect(priceRangeRule([])).toBeNull();
  });
});

describe('rule inventory_surprise', () => {
  const surprise = (v: number, key = 'crude_ex_spr') => obs(key, '2025-06-13', v, { unit: 'Mbbl', quality: 'derived', derived: true });
  it.each([
    ['crude_ex_spr', -5000, 'bullish'],
    ['crude_ex_spr', -2000, 'bullish'],
    ['crude_ex_spr', -1999, 'neutral'],
    ['crude_ex_spr', 2000, 'bearish'],
    ['cushing', 600, 'bearish'],
    ['ng_storage', -12, 'bullish'],
    ['ng_storage', 9.9, 'neutral'],
  ])('%s surprise %s -> %s', (key, v, signal) => {
    expect(inventorySurpriseRule(key, surprise(v, key), null)!.signal).toBe(signal);
  });

  it('is neutral without a surprise, citing the latest level; absent for series that feed no rule', () => {
    const latest = obs('crude_ex_spr', '2025-06-13', 420000, { unit: 'Mbbl' });
    expect(inventorySurpriseRule('crude_ex_spr', null, latest)).toMatchObject({ signal: 'neutral', values: { surprise: null, threshold: 2000 } });
    expect(inventorySurpriseRule('refinery_util', surprise(-9), null)).toBeNull();
    expect(inventorySurpriseRule('cushing', null, null)).toBeNull();
  });
});

describe('rule managed_money_percentile (contrarian)', () => {
  // 150,000 of 1,500,000 contracts of open interest: 10 %, above the 5 % a reading needs
  const net = obs('CL', '2025-06-10', 150000, { unit: 'contracts', attributes: { open_interest: 1_500_000 } });
  it.each([
    [95, 'bearish'],
    [90, 'bearish'],
    [50, 'neutral'],
    [10, 'bullish'],
    [null, 'neutral'],
  ])('percentile %s -> %s', (p, signal) => {
    expect(managedMoneyRule({ percentile: p, inputs: [net] })!.signal).toBe(signal);
  });
  it('is absent without positioning', () => {
    expect(managedMoneyRule(null)).toBeNull();
  });
  it('reads no positioning from a net under 5 % of open interest, or without open interest', () => {
    // 74,999 / 1,500,000 = 4.99993 % -> 5 (2 decimals) is the threshold itself: read; 74,000 = 4.93 %: not
    const at = (n: number, oi?: number) =>
      managedMoneyRule({ percentile: 95, inputs: [obs('CL', '2025-06-10', n, { unit: 'contracts', attributes: oi ? { open_interest: oi } : {} })] })!;
    expect(at(75_000, 1_500_000)).toMatchObject({ signal: 'bearish', values: { net_pct_oi: 5 } });
    expect(at(74_000, 1_500_000)).toMatchObject({ signal: 'neutral', fired: false, values: { net_pct_oi: 4.93, percentile: 95 } });
    expect(at(-74_000, 1_500_000).signal).toBe('neutral');
    expect(at(150_000).reason).toBe(
      'managed money net long 150,000 contracts (open interest not reported): a balanced book, no positioning reading; percentile 95 of its 3-year window',
    );
  });
});

describe('rule spread_vs_history', () => {
  // A monthly spread (the crush's cadence): 13 months from 2024-06-01 through 2025-06-01 cover its year.
  const month = (i: number) => `${2024 + Math.floor((5 + i) / 12)}-${String(((5 + i) % 12) + 1).padStart(2, '0')}-01`;
  const hist = (values: number[]) => values.map((value, i) => ({ as_of: month(i + 13 - values.length), value }));
  const latest = (v: number) => obs('SOY_CRUSH', '2025-06-01', v, { unit: 'USD/bu', freshness_class: 'monthly' });
  const oneTo13 = Array.from({ length: 13 }, (_, i) => i + 1);
  it('ranks the latest value with mid-rank ties (hand-checked)', () => {
    // 13 is above 12 of 13 values and equal to 1: 100 x (12 + 0.5) / 13 = 96.1538
    expect(spreadRule(latest(13), hist(oneTo13))).toMatchObject({ signal: 'bullish', values: { percentile: 96.1538, coverage_pct: 100 } });
    // 100 x (0 + 0.5) / 13 = 3.8462
    expect(spreadRule(latest(1), hist([...oneTo13.slice(1), 1]))).toMatchObject({ signal: 'bearish', values: { percentile: 3.8462 } });
    // 100 x (6 + 0.5) / 13 = 50
    expect(spreadRule(latest(7), hist([...oneTo13.filter((v) => v !== 7), 7]))).toMatchObject({ signal: 'neutral', values: { percentile: 50 } });
  });

  it('is insufficient history, with no word, below 90 % of its months or not reaching back to the first', () => {
    // 11 of 13 months = 84.6 %
    const short = spreadRule(
      latest(13),
      hist(oneTo13).filter((p) => p.as_of !== '2024-09-01' && p.as_of !== '2025-01-01'),
    );
    expect(short).toMatchObject({ signal: 'neutral', fired: false, values: { percentile: null, points: 11, coverage_pct: 84.6 } });
    expect(short.reason).toBe('insufficient history for a 1-year comparison: 11 of the 13 monthly points of the window (84.6 %, needs 90 %)');
    // 12 of 13 with the first month missing: 92.3 %, but the history starts a month late
    expect(spreadRule(latest(13), hist(oneTo13.slice(1))).reason).toBe(
      "insufficient history for a 1-year comparison: the stored points start 2024-07-01, not in the window's first period from 2024-06-01",
    );
    // 12 of 13 with a month missing inside: covered
    const gap = hist(oneTo13).filter((p) => p.as_of !== '2024-12-01');
    expect(spreadRule(latest(13), gap)).toMatchObject({ signal: 'bullish', values: { coverage_pct: 92.3 } });
  });
});

describe('combination and packs', () => {
  it('sums fired rules into an instrument signal', () => {
    const up = priceRangeRule(window('CL', [60, 70, 65, 80, 78]))!;
    const down = managedMoneyRule({ percentile: 95, inputs: [obs('CL', '2025-06-10', 100, { attributes: { open_interest: 1000 } })] })!;
    expect(combine('CL', [up, down, up], TODAY)).toMatchObject({
      signal: 'bullish',
      score: 1,
      fired_rules: ['price_range_1y', 'managed_money_percentile', 'price_range_1y'],
    });
    expect(combine('CL', [up, down], TODAY)).toMatchObject({ signal: 'neutral', score: 0 });
    expect(combine('CL', [], TODAY)).toMatchObject({ signal: 'neutral', score: 0, fired_rules: [] });
  });

  const inputs = (provenanceHit: boolean, attrOrder: 'ab' | 'ba' = 'ab'): SectorInputs => {
    const p = { retrieved_at: '2025-06-18T14:00:00.000Z', cache_hit: provenanceHit, cache_ttl_s: 300 };
    const attributes = attrOrder === 'ab' ? { a: 1, b: 'x' } : { b: 'x', a: 1 };
    const cl = window('CL', [60, 70, 65, 80, 78]).map((o) => ({ ...o, provenance: p, attributes }));
    const ng = window('NG', [3, 3.2, 3.1, 3.3, 3.0]).map((o) => ({ ...o, unit: 'USD/MMBtu', provenance: p }));
    const surprise = obs('crude_ex_spr', '2025-06-13', -5000, { unit: 'Mbbl', provenance: p });
    return {
      sector: 'energy',
      prices: [
        { code: 'CL', window: cl },
        { code: 'NG', window: ng },
      ],
      inventory: [{ key: 'crude_ex_spr', latest: null, surprise }],
      cot: [],
      spreads: [],
      read: [...cl, ...ng, surprise, cl[0]!],
      missing: [{ input: 'price:BZ', reason: 'no observation of BZ is stored yet' }],
    };
  };

  it('builds a sector pack: signals, summary, rules version, digest', () => {
    const pack = buildSectorPack(inputs(false), TODAY);
    // as_of: the oldest of the emitted signals' own as_of: NG's window ends 2025-06-06, CL's newest input is the 06-13 surprise
    expect(pack).toMatchObject({ pack: 'decision', sector: 'energy', rules_version: RULES_VERSION, as_of: '2025-06-06' });
    expect(pack.signals.map((s) => [s.instrument, s.as_of, s.stale, s.signal_for])).toEqual([
      ['CL', '2025-06-13', false, 'the CL price'],
      ['NG', '2025-06-06', false, 'the NG price'],
    ]);
    // CL: range 90 (bullish) + crude surprise -5000 (bullish) = +2; NG: (3.0 - 3.0) / 0.3 = 0 (bearish) = -1
    expect(pack.signals.map((s) => [s.instrument, s.signal, s.score])).toEqual([
      ['CL', 'bullish', 2],
      ['NG', 'bearish', -1],
    ]);
    expect(pack.summary).toEqual({
      instruments: 2,
      bullish: 1,
      bearish: 1,
      neutral: 0,
      net_score: 1,
      stale: 0,
      bias: 'neutral',
      text: 'energy: 1 bullish, 1 bearish, 0 neutral -> neutral',
    });
    expect(pack.missing).toEqual([{ input: 'price:BZ', reason: 'no observation of BZ is stored yet' }]);
    // 262 CL + 262 NG + 1 surprise; the repeated CL observation counts once
    expect(pack.inputs_digest).toMatchObject({ algorithm: 'SHA-256', count: 525, value: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('emits no signal from inputs older than their cadence allows: on 2026-11-24 both are stale, neutral, and said so', () => {
    const pack = buildSectorPack(inputs(false), '2026-11-24');
    expect(pack.signals.map((s) => [s.instrument, s.signal, s.score, s.stale, s.fired_rules])).toEqual([
      ['CL', 'neutral', 0, true, []],
      ['NG', 'neutral', 0, true, []],
    ]);
    expect(pack.signals[1]!.stale_reason).toBe('inputs older than their cadence allows on 2026-11-24: price_range_1y reads NG of 2025-06-06 (eod, 10 days)');
    // the rules' own readings stay visible in the evaluations
    expect(pack.signals[0]!.evaluations.map((e) => e.signal)).toEqual(['bullish', 'bullish']);
    expect(pack.summary).toMatchObject({ bullish: 0, bearish: 0, neutral: 2, stale: 2, text: 'energy: 0 bullish, 0 bearish, 2 neutral (2 stale) -> neutral' });
    expect(pack.as_of).toBeNull(); // it emits no signal
    // 2025-06-06 + 10 days = 2025-06-16: still fresh on the 16th, stale on the 17th; CL's crude
    // surprise of 06-13 is fresh then, but its price is not, so CL is stale too (every input counts)
    expect(buildSectorPack(inputs(false), '2025-06-16').signals.map((s) => s.stale)).toEqual([false, false]);
    expect(buildSectorPack(inputs(false), '2025-06-17').signals.map((s) => s.stale)).toEqual([true, true]);
  });

  it('gates on every input a signal reads, not only the newest: a fresh COT report does not carry a stale price', () => {
    // On 2026-06-05 (the audit's clock): gold's Pink Sheet price of November 2025 is stale (monthly, 62 days),
    // its COT report of 2026-05-26 is fresh. Old rule: the newest input (COT) decided, and the price rule fired.
    // Thirteen months 2024-11-01..2025-11-01 (the Pink Sheet's cadence), the last five rising to 4087.19.
    const values = [2700, 2700, 2700, 2700, 2700, 2700, 2700, 2700, 2600, 2700, 2800, 2900, 4087.19];
    const gc = values.map((v, i) =>
      obs('GC', `${2024 + Math.floor((10 + i) / 12)}-${String(((10 + i) % 12) + 1).padStart(2, '0')}-01`, v, { freshness_class: 'monthly' }),
    );
    const price = priceRangeRule(gc)!;
    expect(price).toMatchObject({ signal: 'bullish', values: { position_pct: 100 } });
    const cot = managedMoneyRule({ percentile: 50, inputs: [obs('GC', '2026-05-26', 120_000, { unit: 'contracts', freshness_class: 'weekly' })] })!;
    const s = combine('GC', [price, cot], '2026-06-05');
    expect(s).toMatchObject({ signal: 'neutral', score: 0, stale: true, fired_rules: [], as_of: '2026-05-26' });
    expect(s.stale_reason).toBe('inputs older than their cadence allows on 2026-06-05: price_range_1y reads GC of 2025-11-01 (monthly, 62 days)');
    // the same inputs on 2025-12-01: both fresh, the price rule counts
    expect(combine('GC', [price, cot], '2025-12-01')).toMatchObject({ signal: 'bullish', stale: false });
  });

  it('lists a spread with no value (its legs share no date within the cadence) as a stale signal, with the reason', () => {
    const pack = buildSectorPack(
      { ...inputs(false), spreads: [{ instrument: 'CRACK_3_2_1', stale: 'the crack: no date from 2026-05-26 to 2026-06-05 that every leg shares' }] },
      TODAY,
    );
    const crack = pack.signals.find((x) => x.instrument === 'CRACK_3_2_1')!;
    expect(crack).toMatchObject({ signal: 'neutral', score: 0, stale: true, evaluations: [], fired_rules: [] });
    expect(crack.stale_reason).toMatch(/no date from 2026-05-26 to 2026-06-05 that every leg shares/);
  });

  it('says what a spread reading is about', () => {
    const crack = combine('CRACK_3_2_1', [], TODAY);
    expect(crack.signal_for).toMatch(/^refiners' margins/);
  });

  it('is byte-identical apart from provenance, whatever the cache or the attribute order did', () => {
    const a = buildSectorPack(inputs(false, 'ab'), TODAY);
    const b = buildSectorPack(inputs(true, 'ba'), TODAY);
    expect(b.inputs_digest).toEqual(a.inputs_digest);
    const strip = (x: unknown) => JSON.stringify(x, (k, v) => (k === 'provenance' ? undefined : v));
    expect(strip(b)).toBe(strip(a));
    expect(JSON.stringify(b)).not.toBe(JSON.stringify(a)); // provenance is the only difference
  });

  it('changes the digest when any input value changes', () => {
    const changed = inputs(false);
    changed.read = changed.read.map((o) => (o.instrument === 'NG' && o.as_of === '2025-06-06' ? { ...o, value: 3.01 } : o));
    expect(buildSectorPack(changed, TODAY).inputs_digest.value).not.toBe(buildSectorPack(inputs(false), TODAY).inputs_digest.value);
  });

  it('bundles sectors with one digest over every input', () => {
    const all = buildAllPack([inputs(false), { ...inputs(false), sector: 'metals', prices: [], inventory: [], read: [], missing: [] }], TODAY);
    expect(all.sectors.map((s) => s.sector)).toEqual(['energy', 'metals']);
    expect(all.summary.instruments).toBe(2);
    expect(all.inputs_digest.value).toBe(buildSectorPack(inputs(false), TODAY).inputs_digest.value);
  });

  it('re-keys observations in contract order with sorted attributes', () => {
    const o = canonicalObservation({ ...obs('CL', '2025-06-06', 1), attributes: { z: 1, a: 2 } });
    expect(Object.keys(o)).toEqual([
      'instrument',
      'value',
      'unit',
      'as_of',
      'observed_at',
      'freshness_class',
      'quality',
      'derived',
      'source',
      'license_tag',
      'provenance',
      'published_at',
      'next_release_at',
      'attributes',
    ]);
    expect(Object.keys(o.attributes)).toEqual(['a', 'z']);
  });
});
