/**
 * Revenue and calls per route and lane as CloudWatch reads them: the embedded metric format that
 * Powertools writes to stdout (the Lambda runtime ships it to CloudWatch Logs, which extracts the
 * metrics). Each booking gives the total, the lane's share and the lane's share per route; a point's
 * dimension set names exactly its dimensions (with the service), so the dashboard's SEARCH over
 * {service, lane, route} finds it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMetrics, METRIC, METRIC_SERVICE } from '../../shared/observability/metrics';
import { countRevenue } from '../../shared/payment/revenue-metrics';

interface Emf {
  _aws: { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string; Unit: string }> }> };
  [key: string]: unknown;
}

describe('revenue metrics in the embedded metric format', () => {
  let lines: string[];
  beforeEach(() => {
    lines = [];
    const capture = (chunk: unknown) => {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      return true;
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(capture as never);
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => capture(a.join(' ')));
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('emits USDC revenue and Pro credits as total, per lane and per lane and route', () => {
    const sink = createMetrics('CommodityData/test', METRIC_SERVICE.api);
    countRevenue(sink, { unit: 'usdc_atomic', amount: 10_000 }, 'x402-batch', 'GET /v1/price/{code}');
    countRevenue(sink, { unit: 'credits', amount: 3 }, 'pro', 'GET /v1/history/{code}');
    sink.publish();
    const blobs = lines.filter((l) => l.startsWith('{') && l.includes('CloudWatchMetrics')).map((l) => JSON.parse(l) as Emf);
    const points = blobs.flatMap((b) =>
      b._aws.CloudWatchMetrics.flatMap((d) =>
        d.Metrics.map((m) => ({
          name: m.Name,
          value: b[m.Name],
          dimensions: Object.fromEntries(d.Dimensions.flat().map((k) => [k, b[k]])),
          namespace: d.Namespace,
        })),
      ),
    );
    const service = METRIC_SERVICE.api;
    expect(points).toEqual(
      expect.arrayContaining([
        { name: METRIC.revenueAtomic, value: 10_000, dimensions: { service }, namespace: 'CommodityData/test' },
        { name: METRIC.revenueAtomic, value: 10_000, dimensions: { service, lane: 'x402-batch' }, namespace: 'CommodityData/test' },
        {
          name: METRIC.revenueAtomic,
          value: 10_000,
          dimensions: { service, lane: 'x402-batch', route: 'GET /v1/price/{code}' },
          namespace: 'CommodityData/test',
        },
        { name: METRIC.creditsDebited, value: 3, dimensions: { service }, namespace: 'CommodityData/test' },
        { name: METRIC.creditsDebited, value: 3, dimensions: { service, lane: 'pro' }, namespace: 'CommodityData/test' },
        { name: METRIC.creditsDebited, value: 3, dimensions: { service, lane: 'pro', route: 'GET /v1/history/{code}' }, namespace: 'CommodityData/test' },
      ]),
    );
    expect(points).toHaveLength(6);
  });
});
