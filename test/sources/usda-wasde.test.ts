import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { findSource } from '../../shared/sources/registry';
import { releaseOfPeriod } from '../../shared/sources/schedule';
import { fileStem, parseWasdeXml, usdaWasde } from '../../shared/sources/usda-wasde';
import type { FetchLike } from '../../shared/sources/types';
import { HAVE_FIXTURES, fixtureBytes } from '../helpers/fixtures';
import { normalizeCtx, payload } from '../helpers/sources';
import { buildWasdeXml, cornMay2025, wasdeMay2025 } from './fundamentals-builders';

const ctx = normalizeCtx(usdaWasde.def);
const itemsOf = (xml: string, name = 'wasde0525.xml') => usdaWasde.toItems(payload(name, xml), ctx);
const item = (items: ReturnType<typeof itemsOf>, key: string) => items.find((i) => i.seriesKey === key)?.observation;

describe('WASDE XML parser', () => {
  it('reads the three balance sheets whatever the attribute suffix (sr11 N=1, sr12 N=2, sr15 N=4)', () => {
    const tables = parseWasdeXml(wasdeMay2025(), 't');
    expect(tables.map((t) => [t.commodity, t.sr, t.matrix])).toEqual([
      ['corn', 'sr12', 'matrix2'],
      ['soybeans', 'sr15', 'matrix1'],
      ['wheat', 'sr11', 'matrix1'],
    ]);
    const corn = tables[0]!;
    expect(corn).toMatchObject({ reportMonth: 'May 2025', asOf: '2025-05-01', wasdeNumber: 660 });
    expect(corn.years.map((y) => [y.marketYear, y.status])).toEqual([
      ['2023/24', 'final'],
      ['2024/25', 'estimate'],
      ['2025/26', 'projection'],
    ]);
    // The May column of 2025/26, not the NA April one; labels with padding and footnotes matched.
    expect(corn.years[2]!.lines).toMatchObject({
      beginning_stocks: 1415,
      production: 15820,
      imports: 25,
      supply_total: 17260,
      domestic_total: 12785,
      exports: 2675,
      use_total: 15460,
      ending_stocks: 1800,
      avg_farm_price: 4.2,
      area_planted: 95.3,
    });
    expect(corn.years[2]!.flagged).toEqual(['area_planted']); // "95.3 *"
    expect(tables[1]!.years[2]!.lines).toMatchObject({ crushings: 2490, seed: 73, residual: 37, use_total: 4415, ending_stocks: 295 });
    expect(tables[2]!.years[2]!.lines).toMatchObject({ domestic_total: 1159, ending_stocks: 923 });
  });

  it('writes a report-index item and one item per market year, as_of = report month, published at the release', () => {
    const items = itemsOf(wasdeMay2025());
    expect(items).toHaveLength(3 * 4); // per commodity: index + 3 market years
    expect(item(items, 'WASDE#corn#US')).toMatchObject({
      instrument: 'WASDE:corn:US',
      value: 1800,
      unit: 'million bushels',
      as_of: '2025-05-01',
      freshness_class: 'monthly',
      quality: 'official',
      published_at: '2025-05-12T16:00:00.000Z', // 12:00 EDT
      attributes: {
        report_month: 'May 2025',
        wasde_number: 660,
        projection_year: '2025/26',
        market_years: '2023/24,2024/25,2025/26',
        sub_report: 'sr12 matrix2',
      },
    });
    expect(item(items, 'WASDE#corn#US#2024/25')).toMatchObject({ value: 1415, attributes: { status: 'estimate', exports: 2600, use_total: 15240 } });
    expect(item(items, 'WASDE#soybeans#US#2025/26')?.attributes).toMatchObject({ crushings: 2490, seed: 73, residual: 37 });
    expect(item(items, 'WASDE#soybeans#US#2025/26')?.attributes).not.toHaveProperty('domestic_total'); // derived later, never stored
    expect(item(items, 'WASDE#wheat#US#2025/26')?.value).toBe(923);
  });

  it('reads a report with only some sub-reports (the April sample has only corn)', () => {
    const items = itemsOf(
      buildWasdeXml('April 2025', 659, [cornMay2025()])
        .replace(/forecast_month2="April"/g, 'forecast_month2="March"')
        .replace(/forecast_month2="May"/g, 'forecast_month2="April"'),
      'wasde0425.xml',
    );
    expect(items.map((i) => i.seriesKey)).toEqual(['WASDE#corn#US', 'WASDE#corn#US#2023/24', 'WASDE#corn#US#2024/25', 'WASDE#corn#US#2025/26']);
    expect(item(items, 'WASDE#corn#US')).toMatchObject({ as_of: '2025-04-01', published_at: '2025-04-10T16:00:00.000Z' });
  });

  it('estimates published_at for a month whose release day this project has not verified, and says so', () => {
    const wasde = findSource('usda-wasde')!.schedule;
    expect(releaseOfPeriod(wasde, '2025-10-01')).toBeNull(); // October 2025: not released (shutdown)
    expect(releaseOfPeriod(wasde, '2025-11-01')).toMatchObject({ at: '2025-11-14T17:00:00.000Z', estimated: false }); // 12:00 EST
    // March 2027: not verified -> the 10th (a Wednesday), 12:00 EST (DST starts 14 March 2027) = 17:00Z.
    expect(releaseOfPeriod(wasde, '2027-03-01')).toMatchObject({ at: '2027-03-10T17:00:00.000Z', estimated: true });
    const march2027 = item(itemsOf(wasdeMay2025('March 2027', 700)), 'WASDE#corn#US');
    expect(march2027).toMatchObject({ published_at: '2027-03-10T17:00:00.000Z', observed_at: null });
    expect(march2027?.attributes).toMatchObject({ published_at_estimated: true, observed_at_basis: expect.stringMatching(/^none: /) });
  });

  it.each<[string, string, RegExp]>([
    [
      'NA in the report month',
      wasdeMay2025('May 2025', 660, cornMay2025({ 'Ending Stocks': ['1,763', '1,415', 'NA', 'NA'] })),
      /sr12 matrix2: ending_stocks 2025\/26 is NA/,
    ],
    ['a "." cell', wasdeMay2025('May 2025', 660, cornMay2025({ Exports: ['2,292', '.', 'NA', '2,675'] })), /exports 2024\/25 Est\.: not a number: "\."/],
    [
      'a renamed line',
      wasdeMay2025().replace('attribute2="Ending Stocks"', 'attribute2="Closing Stocks"'),
      /sr12 matrix2: line ending_stocks is missing \(renamed\?\)/,
    ],
    [
      'a missing report-month column',
      wasdeMay2025().replace(/forecast_month2="May"/g, 'forecast_month2="June"'),
      /2025\/26 Proj\. has no column for the report month may/,
    ],
    ['another unit', wasdeMay2025().replace(/Million Bushels/g, 'Million Metric Tons'), /not in Million Bushels/],
    ['a renumbered page', wasdeMay2025().replace('U.S. Feed Grain and Corn Supply and Use', 'U.S. Sorghum'), /sub-report title "U\.S\. Sorghum/],
    ['a bad report month', wasdeMay2025('2025-05', 660), /Report_Month "2025-05" is not "<Month> <YYYY>"/],
    [
      'no served sub-report',
      '<?xml version="1.0"?><Report Name="wasde"><sr08><Report Name="sr08"/></sr08></Report>',
      /none of the sub-reports sr12, sr15, sr11 is present/,
    ],
    ['a truncated file', wasdeMay2025().slice(0, 5000), /not well-formed XML/],
    ['an HTML error page', '<html><body>Access Denied</body></html>', /no <Report Name="wasde"> root|not well-formed/],
  ])('refuses %s', (_n, xml, msg) => {
    expect(() => itemsOf(xml)).toThrow(msg);
  });

  it('refuses an empty file', () => {
    expect(() => itemsOf('')).toThrow(/empty payload/);
  });
});

describe('WASDE adapter', () => {
  it('bundles the April (corn) and May 2025 (corn, soybeans, wheat) reports with real figures', async () => {
    const items = (await usdaWasde.samples()).flatMap((p) => usdaWasde.toItems(p, ctx));
    const reports = items.filter((i) => i.seriesKey === 'WASDE#corn#US').map((i) => [i.observation.as_of, i.observation.value]);
    expect(reports).toEqual([
      ['2025-04-01', 1465],
      ['2025-05-01', 1800],
    ]);
    expect(items.filter((i) => i.seriesKey === 'WASDE#soybeans#US')).toHaveLength(1);
  });

  it('names the previous and current month files', () => {
    expect(fileStem(new Date('2025-05-20T12:00:00Z'), 0)).toBe('wasde0525');
    expect(fileStem(new Date('2025-05-20T12:00:00Z'), 1)).toBe('wasde0425');
    expect(fileStem(new Date('2026-01-12T18:00:00Z'), 1)).toBe('wasde1225');
  });

  describe('live', () => {
    const config = loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c' });
    const now = new Date('2025-05-20T18:00:00Z');
    const serve =
      (files: Record<string, string | number>): FetchLike =>
      async (url) => {
        const f = files[String(url).split('/').pop()!];
        return typeof f === 'string' ? new Response(f) : new Response('not found', { status: f ?? 404 });
      };

    it('reads the previous and the current month, preferring a corrected v2', async () => {
      const asked: string[] = [];
      const fetch: FetchLike = async (url, init) => {
        asked.push(String(url).split('/').pop()!);
        return serve({ 'wasde0425.xml': wasdeMay2025('April 2025', 659), 'wasde0525v2.xml': wasdeMay2025() })(url, init);
      };
      const payloads = await usdaWasde.live({ fetch, config, concurrency: 1, now });
      expect(payloads.map((p) => p.name)).toEqual(['wasde0425.xml', 'wasde0525v2.xml']);
      expect(asked).toEqual(['wasde0425v2.xml', 'wasde0425.xml', 'wasde0525v2.xml']);
    });

    it('skips the current month before its release, but not a missing previous month', async () => {
      const early = await usdaWasde.live({ fetch: serve({ 'wasde0425.xml': wasdeMay2025('April 2025', 659) }), config, concurrency: 1, now });
      expect(early.map((p) => p.name)).toEqual(['wasde0425.xml']);
      await expect(usdaWasde.live({ fetch: serve({ 'wasde0525.xml': wasdeMay2025() }), config, concurrency: 1, now })).rejects.toThrow(
        /wasde0425\.xml: HTTP 404/,
      );
    });

    it.each<[string, Record<string, string | number>, RegExp]>([
      ['a 5xx', { 'wasde0425v2.xml': 503 }, /HTTP 503/],
      ['a report without soybeans', { 'wasde0425.xml': buildWasdeXml('April 2025', 659, [cornMay2025()]) }, /sub-report\(s\) sr15, sr11 missing/],
      ['the same report under two names', { 'wasde0425.xml': wasdeMay2025(), 'wasde0525.xml': wasdeMay2025() }, /holds the May 2025 report/],
    ])('fails on %s', async (_n, files, msg) => {
      await expect(usdaWasde.live({ fetch: serve(files), config, concurrency: 1, now })).rejects.toThrow(msg);
    });
  });
});

describe.skipIf(!HAVE_FIXTURES)('contract: WASDE recorded XML (../shared/fixtures/wasde)', () => {
  const tables = (f: string) => parseWasdeXml(new TextDecoder().decode(fixtureBytes(`wasde/${f}`)).replace(/^\uFEFF/, ''), f);

  it('May 2025 (WASDE-660) 2025/26 projections match the published tables', () => {
    const proj = (f: string) => tables(f)[0]!.years.find((y) => y.marketYear === '2025/26')!.lines;
    expect(proj('wasde0525.sr12.xml')).toMatchObject({
      beginning_stocks: 1415,
      production: 15820,
      imports: 25,
      supply_total: 17260,
      domestic_total: 12785,
      exports: 2675,
      ending_stocks: 1800,
    });
    expect(proj('wasde0525.sr11.xml')).toMatchObject({
      beginning_stocks: 841,
      production: 1921,
      imports: 120,
      supply_total: 2882,
      domestic_total: 1159,
      exports: 800,
      ending_stocks: 923,
    });
    expect(proj('wasde0525.sr15.xml')).toMatchObject({
      beginning_stocks: 350,
      production: 4340,
      imports: 20,
      supply_total: 4710,
      crushings: 2490,
      seed: 73,
      residual: 37,
      exports: 1815,
      ending_stocks: 295,
    });
  });

  it('April 2025 (WASDE-659) takes the April column, not March: corn 2024/25 ending stocks 1,465, exports 2,550', () => {
    const [corn] = tables('wasde0425.sr12.xml');
    expect(corn!.reportMonth).toBe('April 2025');
    expect(corn!.years.at(-1)).toMatchObject({ marketYear: '2024/25', status: 'projection', lines: { ending_stocks: 1465, exports: 2550 } });
  });

  it('every fixture normalises to items', () => {
    for (const f of ['wasde0425.sr12.xml', 'wasde0525.sr11.xml', 'wasde0525.sr12.xml', 'wasde0525.sr15.xml']) {
      expect(usdaWasde.toItems(payload(f, fixtureBytes(`wasde/${f}`)), ctx)).toHaveLength(4);
    }
  });
});
