/**
 * The EMF counter (shared/observability/emf.ts) held to Powertools Metrics, the library whose lines it
 * keeps: the same counts on both give the same embedded-metric-format lines (the timestamp aside,
 * which is checked to be the time of writing).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emfCounter } from '../../shared/observability/emf';

afterEach(() => vi.restoreAllMocks());

/** What one run of counts writes on stdout, each line parsed, its timestamp checked and set aside. */
type Counts = { add(name: string, value: number): void; single(name: string, value: number, dims: Record<string, string>): void; flush(): void };
const stdoutOf = (run: (c: Counts) => void, make: () => Counts) => {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => lines.push(String(chunk)) > 0);
  const before = Date.now();
  try {
    run(make());
  } finally {
    vi.restoreAllMocks();
  }
  return lines.map((line) => {
    expect(line.endsWith('\n')).toBe(true);
    const parsed = JSON.parse(line) as { _aws: { Timestamp: number } };
    expect(parsed._aws.Timestamp).toBeGreaterThanOrEqual(before);
    expect(parsed._aws.Timestamp).toBeLessThanOrEqual(Date.now());
    return { ...parsed, _aws: { ...parsed._aws, Timestamp: 0 } };
  });
};

/** Powertools Metrics driven as shared/observability/metrics.ts drove it before emf.ts. */
const library = (): Counts => {
  const metrics = new Metrics({ namespace: 'CommodityData', serviceName: 'commodity-data' });
  return {
    add: (name, value) => metrics.addMetric(name, MetricUnit.Count, value),
    single: (name, value, dims) => {
      const single = metrics.singleMetric();
      for (const [k, v] of Object.entries(dims)) single.addDimension(k, v);
      single.addMetric(name, MetricUnit.Count, value);
    },
    flush: () => {
      vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      metrics.publishStoredMetrics();
    },
  };
};
const ours = (): Counts => emfCounter('CommodityData', 'commodity-data');

describe('EMF counter, held to Powertools Metrics', () => {
  it('writes the same lines: buffered counts (a name twice keeps both values), dimensioned points at once', () => {
    const run = (c: Counts) => {
      c.add('Settlements', 1);
      c.single('PaidCalls', 1, { lane: 'x402-exact' });
      c.add('RevenueUsdcAtomic', 10_000);
      c.add('Settlements', 1);
      c.single('PaymentsRefused', 1, { family: 'price', reason: 'invalid_signature' });
      c.flush();
      c.flush();
      c.add('CreditsDebited', 2);
      c.flush();
    };
    const expected = stdoutOf(run, library);
    expect(stdoutOf(run, ours)).toEqual(expected);
    // What the comparison covers: two dimensioned lines, the buffered one with a repeated name, nothing for an empty flush.
    expect(expected.map((l) => Object.keys(l).filter((k) => k !== '_aws'))).toEqual([
      ['service', 'lane', 'PaidCalls'],
      ['service', 'family', 'reason', 'PaymentsRefused'],
      ['service', 'Settlements', 'RevenueUsdcAtomic'],
      ['service', 'CreditsDebited'],
    ]);
    expect(expected[2]).toMatchObject({ Settlements: [1, 1], RevenueUsdcAtomic: 10_000 });
  });

  it('splits lines at the library limits: 100 metrics a line, 100 values a metric', () => {
    const run = (c: Counts) => {
      for (let i = 0; i < 101; i++) c.add(`M${i}`, i);
      for (let i = 0; i < 101; i++) c.add('Repeated', i);
      c.flush();
    };
    const expected = stdoutOf(run, library);
    expect(expected).toHaveLength(3);
    expect(stdoutOf(run, ours)).toEqual(expected);
  });
});
