import { addDays } from '../../shared/dates';
import { describe, expect, it } from 'vitest';
import { compareLine, decimalsOf, derive, difference, mean, nearestTo, percentOf, priorMarketYear, wasdeLines } from '../../shared/analytics/fundamentals';
import { ObservationSchema, type Observation } from '../../shared/observation/schema';

const obs = (over: Partial<Observation> = {}): Observation => ({
  instrument: 'TEST:x',
  value: 1,
  unit: 'million bushels',
  as_of: '2025-05-01',
  observed_at: null,
  freshness_class: 'monthly',
  quality: 'official',
  derived: false,
  source: { name: 'test', series_id: 'T', url: null },
  license_tag: 'public-domain (US government work)',
  provenance: { retrieved_at: '2025-05-12T16:05:00.000Z', cache_hit: true, cache_ttl_s: 3600 },
  published_at: '2025-05-12T16:00:00.000Z',
  next_release_at: null,
  attributes: {},
  ...over,
});

describe('number helpers', () => {
  it('keeps the precision of the published inputs', () => {
    expect(decimalsOf(1415)).toBe(0);
    expect(decimalsOf(95.3)).toBe(1);
    expect(decimalsOf(1e-7)).toBe(7);
    expect(difference(1800, 1465)).toBe(335);
    expect(difference(0.3, 0.1)).toBe(0.2); // not 0.19999999999999998
    expect(difference(421.6, 480)).toBe(-58.4);
    expect(difference(5, 5)).toBe(0);
    expect(Object.is(difference(0.1, 0.1), -0)).toBe(false);
  });

  it('averages two decimals finer than the inputs', () => {
    // (1360 + 1763 + 1415 + 1377 + 1235) / 5 = 7150 / 5 = 1430
    expect(mean([1360, 1763, 1415, 1377, 1235])).toBe(1430);
    // (87 + 80 + 84 + 79 + 86) / 5 = 416 / 5 = 83.2
    expect(mean([87, 80, 84, 79, 86])).toBe(83.2);
    expect(mean([1, 2, 2])).toBe(1.67);
    expect(() => mean([])).toThrow(RangeError);
  });

  it('computes stocks-to-use as a percentage, null for a zero denominator', () => {
    // corn 2025/26, May 2025: 1,800 / 15,460 = 11.6429 %
    expect(percentOf(1800, 15460)).toBe(11.64);
    // wheat 2025/26: 923 / 1,959 = 47.116 %
    expect(percentOf(923, 1959)).toBe(47.12);
    expect(percentOf(1, 0)).toBeNull();
  });

  it('moves dates and market years', () => {
    expect(addDays('2025-06-08', -364)).toBe('2024-06-09');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
    expect(priorMarketYear('2025/26')).toBe('2024/25');
    expect(priorMarketYear('2000/01')).toBe('1999/00');
    expect(priorMarketYear('2025/26', 5)).toBe('2020/21');
  });

  it('finds the nearest week within the tolerance only', () => {
    const items = [{ as_of: '2024-06-02' }, { as_of: '2024-06-09' }, { as_of: '2024-06-16' }];
    expect(nearestTo(items, '2024-06-10', 3)).toEqual({ as_of: '2024-06-09' });
    expect(nearestTo(items, '2024-06-24', 3)).toBeNull();
    expect(nearestTo([], '2024-06-10', 3)).toBeNull();
  });
});

describe('derive', () => {
  it('builds a complete derived observation with the provenance of its inputs', () => {
    const a = obs({ provenance: { retrieved_at: '2025-05-12T16:05:00.000Z', cache_hit: true, cache_ttl_s: 3600 } });
    const b = obs({
      as_of: '2025-04-01',
      published_at: '2025-04-10T16:00:00.000Z',
      provenance: { retrieved_at: '2025-04-10T16:05:00.000Z', cache_hit: false, cache_ttl_s: 900 },
    });
    const d = derive({ instrument: 'TEST:x:change', value: 2, method: 'a - b', subject: a, inputs: [a, b] });
    expect(ObservationSchema.safeParse(d).success).toBe(true);
    expect(d).toMatchObject({
      quality: 'derived',
      derived: true,
      as_of: '2025-05-01',
      published_at: '2025-05-12T16:00:00.000Z',
      provenance: { retrieved_at: '2025-05-12T16:05:00.000Z', cache_hit: false, cache_ttl_s: 900 },
      attributes: { method: 'a - b', inputs: 'TEST:x@2025-05-01=1; TEST:x@2025-04-01=1' },
    });
  });
});

describe('derive: observed_at', () => {
  it('is the latest observed_at of its inputs (the newer week), null when none has one (WASDE projections)', () => {
    const week = (as_of: string, observed_at: string | null) => obs({ as_of, observed_at });
    const d = derive({
      instrument: 'TEST:x:change',
      value: 1,
      method: 'a - b',
      subject: week('2025-06-08', '2025-06-09T03:59:59.000Z'),
      inputs: [week('2025-06-01', '2025-06-02T03:59:59.000Z')],
    });
    expect(d.observed_at).toBe('2025-06-09T03:59:59.000Z');
    expect(derive({ instrument: 'TEST:x:change', value: 1, method: 'a - b', subject: obs({}), inputs: [obs({ as_of: '2025-04-01' })] }).observed_at).toBeNull();
  });
});

describe('compareLine', () => {
  const latest = obs({ instrument: 'WASDE:corn:US:2024/25:ending_stocks', value: 1415 });
  const previous = obs({ instrument: 'WASDE:corn:US:2024/25:ending_stocks', value: 1465, as_of: '2025-04-01' });

  it('changes against the previous report and a year ago, hand-checked (May vs April 2025 corn)', () => {
    const yearAgo = obs({ instrument: 'WASDE:corn:US:2023/24:ending_stocks', value: 1763 });
    const c = compareLine('ending_stocks', 'Ending stocks', {
      latest,
      previous,
      yearAgo,
      fiveYears: [yearAgo, null, null, null, null],
      previousLabel: 'previous WASDE report',
      yearAgoLabel: 'prior market year',
    });
    expect(c.change_vs_previous_report).toMatchObject({
      value: -50,
      unit: 'million bushels',
      quality: 'derived',
      attributes: { compared_value: 1465, compared_as_of: '2025-04-01' },
    });
    expect(c.change_vs_year_ago?.value).toBe(-348); // 1,415 - 1,763
    expect(c.five_year_average).toBeNull();
    expect(c.change_vs_five_year_average).toBeNull();
    expect(c.notes).toEqual(['no 5-year average: 1 of the 5 prior years stored']);
  });

  it('averages five prior years and changes against the average; percent changes are percentage points', () => {
    const pct = (value: number, as_of: string) => obs({ instrument: 'CROP:corn:planted', unit: 'percent', freshness_class: 'weekly', value, as_of });
    const five = [pct(87, '2024-06-09'), pct(80, '2023-06-11'), pct(84, '2022-06-12'), pct(79, '2021-06-13'), pct(86, '2020-06-14')];
    const c = compareLine('planted', 'planted', {
      latest: pct(93, '2025-06-08'),
      previous: pct(87, '2025-06-01'),
      yearAgo: five[0]!,
      fiveYears: five,
      previousLabel: 'previous weekly report',
      yearAgoLabel: 'same week a year ago',
    });
    expect(c.five_year_average).toMatchObject({
      value: 83.2,
      unit: 'percent',
      as_of: '2025-06-08',
      attributes: { periods: '2024-06-09,2023-06-11,2022-06-12,2021-06-13,2020-06-14' },
    });
    expect(c.change_vs_five_year_average).toMatchObject({ value: 9.8, unit: 'percentage points' }); // 93 - 83.2
    expect(c.change_vs_previous_report?.value).toBe(6);
    expect(c.change_vs_year_ago?.value).toBe(6);
    expect(c.notes).toEqual([]);
    for (const o of [c.latest, c.change_vs_previous_report, c.five_year_average, c.change_vs_five_year_average]) {
      expect(ObservationSchema.safeParse(o).success).toBe(true);
    }
  });

  it('says why a comparison is missing instead of inventing one', () => {
    const c = compareLine('x', 'x', {
      latest,
      previous: null,
      previousMissing: '2025/26 is not in the April 2025 report',
      yearAgo: null,
      fiveYears: [],
      previousLabel: 'previous WASDE report',
      yearAgoLabel: 'prior market year',
    });
    expect(c.change_vs_previous_report).toBeNull();
    expect(c.change_vs_year_ago).toBeNull();
    expect(c.notes).toEqual([
      'no previous WASDE report: 2025/26 is not in the April 2025 report',
      'no prior market year: not stored',
      'no 5-year average: 0 of the 5 prior years stored',
    ]);
  });
});

describe('wasdeLines', () => {
  it('serves published corn lines as official and stocks-to-use as derived', () => {
    const item = obs({
      instrument: 'WASDE:corn:US:2025/26',
      value: 1800,
      attributes: {
        market_year: '2025/26',
        status: 'projection',
        report_month: 'May 2025',
        beginning_stocks: 1415,
        production: 15820,
        imports: 25,
        supply_total: 17260,
        domestic_total: 12785,
        exports: 2675,
        use_total: 15460,
        ending_stocks: 1800,
      },
    });
    const lines = wasdeLines(item, 'corn');
    expect([...lines.keys()]).toEqual([
      'beginning_stocks',
      'production',
      'imports',
      'supply_total',
      'domestic_total',
      'exports',
      'use_total',
      'ending_stocks',
      'stocks_to_use',
    ]);
    expect(lines.get('production')).toMatchObject({
      instrument: 'WASDE:corn:US:2025/26:production',
      value: 15820,
      quality: 'official',
      attributes: { statistic: 'production', market_year: '2025/26' },
    });
    expect(lines.get('stocks_to_use')).toMatchObject({ value: 11.64, unit: 'percent', quality: 'derived', derived: true });
  });

  it('adds soybean domestic use up from crushings, seed and residual (derived)', () => {
    const item = obs({
      instrument: 'WASDE:soybeans:US:2025/26',
      value: 295,
      attributes: {
        market_year: '2025/26',
        beginning_stocks: 350,
        production: 4340,
        imports: 20,
        supply_total: 4710,
        crushings: 2490,
        seed: 73,
        residual: 37,
        exports: 1815,
        use_total: 4415,
        ending_stocks: 295,
      },
    });
    const lines = wasdeLines(item, 'soybeans');
    // 2,490 + 73 + 37 = 2,600 (= 4,415 total use - 1,815 exports)
    expect(lines.get('domestic_total')).toMatchObject({
      value: 2600,
      quality: 'derived',
      attributes: { method: expect.stringMatching(/crushings \+ seed \+ residual/) },
    });
    // 295 / 4,415 = 6.68 %
    expect(lines.get('stocks_to_use')?.value).toBe(6.68);
  });

  it('leaves out lines that are not numbers rather than serving NaN', () => {
    const lines = wasdeLines(obs({ attributes: { market_year: '2025/26', ending_stocks: 10, use_total: 0, imports: null } }), 'corn');
    expect(lines.has('imports')).toBe(false);
    expect(lines.has('stocks_to_use')).toBe(false); // use_total 0: no ratio
    expect(lines.get('ending_stocks')?.value).toBe(10);
  });
});
