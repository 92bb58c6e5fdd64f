/**
 * The fundamentals family over HTTP on the local runtime, replaying the bundled samples:
 * /v1/fundamentals/wasde, /crop-progress, /export-sales and /usgs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { loadCropProgress, loadExportSales, loadUsgs, loadWasde } from '../../shared/families/fundamentals/load';
import { addDays } from '../../shared/dates';
import { marketYearOf, usdaFasEsr } from '../../shared/sources/usda-fas-esr';
import { expectError, expectObservation } from '../helpers/contract';
import { getJson, startTestStack } from '../helpers/stack';
import { normalizeCtx, payload } from '../helpers/sources';
import { walkObservations } from '../helpers/walk-observations';
import { esrRow } from '../sources/fundamentals-builders';

/** Every observation of a body satisfies the contract, and no number is NaN or missing. */
const expectAllObservations = (body: unknown): number => {
  const all = walkObservations(body);
  all.forEach(expectObservation);
  expect(JSON.stringify(body)).not.toMatch(/NaN|Infinity/);
  return all.length;
};
const line = (c: any, marketYear: string, statistic: string) =>
  c.market_years.find((m: any) => m.market_year === marketYear).lines.find((l: any) => l.statistic === statistic);
const byCommodity = (body: any, commodity: string) => body.commodities.find((c: any) => c.commodity === commodity);
/** Provenance cache flags differ between a first and a repeated read; the rest must not. */
const withoutCacheFlags = (body: unknown) => JSON.parse(JSON.stringify(body, (k, v) => (k === 'cache_hit' ? undefined : v)));

describe('fundamentals family over HTTP (local runtime, replayed samples)', () => {
  let stack: LocalStack;
  /** The service's clock: real unless a test sets a day. */
  let day: Date | null = null;
  const get = (path: string) => getJson(stack.url, path);
  beforeAll(async () => {
    stack = await startTestStack({}, true, { now: () => day ?? new Date() });
  });
  afterAll(async () => stack?.close());

  describe('GET /v1/fundamentals/wasde', () => {
    it('answers the May 2025 balance sheets with changes vs April 2025 and the prior market year (hand-checked)', async () => {
      const res = await get('/v1/fundamentals/wasde?view=full');
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      expect(expectAllObservations(res.body)).toBeGreaterThan(200);
      expect(res.body.commodities.map((c: any) => c.commodity)).toEqual(['corn', 'soybeans', 'wheat']);
      expect(res.body.missing).toEqual([]);
      const corn = byCommodity(res.body, 'corn');
      expect(corn).toMatchObject({
        unit: 'million bushels',
        projection_year: '2025/26',
        report: { report_month: 'May 2025', as_of: '2025-05-01', published_at: '2025-05-12T16:00:00.000Z', wasde_number: 660 },
        previous_report: { report_month: 'April 2025', as_of: '2025-04-01', published_at: '2025-04-10T16:00:00.000Z' },
      });
      expect(corn.market_years.map((m: any) => [m.market_year, m.status])).toEqual([
        ['2025/26', 'projection'],
        ['2024/25', 'estimate'],
        ['2023/24', 'final'],
      ]);

      const ending = line(corn, '2025/26', 'ending_stocks');
      expect(ending.latest).toMatchObject({
        instrument: 'WASDE:corn:US:2025/26:ending_stocks',
        value: 1800,
        quality: 'official',
        published_at: '2025-05-12T16:00:00.000Z',
      });
      expect(ending.previous_report).toBeNull(); // April 2025 had no 2025/26 column
      expect(ending.notes[0]).toMatch(/2025\/26 is not in the April 2025 report/);
      // versus the prior market year in the same report: 1,800 - 1,415 = 385
      expect(ending.year_ago).toMatchObject({ instrument: 'WASDE:corn:US:2024/25:ending_stocks', value: 1415 });
      expect(ending.change_vs_year_ago).toMatchObject({ value: 385, quality: 'derived', derived: true, unit: 'million bushels' });
      expect(ending.five_year_average).toBeNull();
      expect(ending.notes).toContain('no 5-year average: 3 of the 5 prior years stored');

      // 2024/25 revised between the reports: ending stocks 1,465 -> 1,415, exports 2,550 -> 2,600
      expect(line(corn, '2024/25', 'ending_stocks').change_vs_previous_report).toMatchObject({
        value: -50,
        attributes: { compared_as_of: '2025-04-01', compared_value: 1465 },
      });
      expect(line(corn, '2024/25', 'exports').change_vs_previous_report.value).toBe(50);
      // stocks-to-use 1,800 / 15,460 = 11.64 %; 2024/25: 1,415 / 15,240 = 9.28 %, April 1,465 / 15,190 = 9.64 %
      expect(line(corn, '2025/26', 'stocks_to_use').latest).toMatchObject({ value: 11.64, unit: 'percent', quality: 'derived' });
      expect(line(corn, '2024/25', 'stocks_to_use').change_vs_previous_report).toMatchObject({ value: -0.36, unit: 'percentage points' });

      const soy = byCommodity(res.body, 'soybeans');
      expect(soy.previous_report).toBeNull();
      // 2,490 crush + 73 seed + 37 residual = 2,600; 295 / 4,415 = 6.68 %
      expect(line(soy, '2025/26', 'domestic_total').latest).toMatchObject({ value: 2600, quality: 'derived' });
      expect(line(soy, '2025/26', 'stocks_to_use').latest.value).toBe(6.68);
      expect(line(soy, '2025/26', 'ending_stocks').notes[0]).toBe('no previous WASDE report: only one WASDE report is stored');
      expect(line(byCommodity(res.body, 'wheat'), '2025/26', 'ending_stocks').latest.value).toBe(923);
    });

    it('narrows to one commodity (case folded) and serves a repeat from the cache', async () => {
      const first = await get('/v1/fundamentals/wasde?commodity=CORN&view=full');
      expect(first.status).toBe(200);
      expect(first.body.commodities.map((c: any) => c.commodity)).toEqual(['corn']);
      const again = await get('/v1/fundamentals/wasde?commodity=corn&view=full');
      expect(line(again.body.commodities[0], '2025/26', 'production').latest.provenance).toMatchObject({ cache_hit: true, cache_ttl_s: 3600 });
    });

    it('is the body loadWasde returns (reused by snapshots and decision packs)', async () => {
      const res = await get('/v1/fundamentals/wasde?commodity=soybeans&view=full');
      expect({ ...withoutCacheFlags(await loadWasde(stack.services, 'soybeans')), view: 'full' }).toEqual(withoutCacheFlags(res.body));
    });
  });

  describe('the compact view (default)', () => {
    it("WASDE: the projection year's headline lines, with the change vs the prior market year (no April 2025 column for 2025/26)", async () => {
      const res = await get('/v1/fundamentals/wasde?commodity=corn');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ report: 'wasde', view: 'compact', full_view: '/v1/fundamentals/wasde?commodity=corn&view=full', missing: [] });
      expect(res.body.lines.map((l: any) => l.key)).toEqual([
        'corn 2025/26:production',
        'corn 2025/26:exports',
        'corn 2025/26:use_total',
        'corn 2025/26:ending_stocks',
        'corn 2025/26:stocks_to_use',
      ]);
      const ending = res.body.lines.find((l: any) => l.key === 'corn 2025/26:ending_stocks');
      // 1,800 - 1,415 = 385 (worked in the full-view test above)
      expect(ending).toMatchObject({ value: 1800, unit: 'million bushels', as_of: '2025-05-01', change: 385, change_basis: 'year_ago', stale: true });
      expect(res.body.lines.find((l: any) => l.key === 'corn 2025/26:stocks_to_use')).toMatchObject({ value: 11.64, derived: true });
    });

    it.each(['wasde', 'crop-progress', 'export-sales', 'usgs'])('/v1/fundamentals/%s is under 32 KB by default and links the full view', async (route) => {
      const res = await get(`/v1/fundamentals/${route}`);
      expect(res.status).toBe(200);
      expect(Buffer.byteLength(JSON.stringify(res.body))).toBeLessThan(32 * 1024);
      expect(res.body).toMatchObject({ view: 'compact', full_view: `/v1/fundamentals/${route}?view=full` });
      expect(res.body.lines.length).toBeGreaterThan(0);
      expect(res.body.stale_rule).toMatch(/cadence/);
    });
  });

  describe('GET /v1/fundamentals/crop-progress', () => {
    it('answers the latest soybean week with its changes (NASS figures from a third-party transcription, said so), and corn and wheat as missing', async () => {
      const res = await get('/v1/fundamentals/crop-progress?view=full');
      expect(res.status).toBe(200);
      expectAllObservations(res.body);
      expect(res.body.commodities.map((c: any) => c.commodity)).toEqual(['soybeans']);
      expect(res.body.missing).toEqual([
        { commodity: 'corn', reason: 'no crop progress stored yet' },
        { commodity: 'wheat', reason: 'no crop progress stored yet' },
      ]);
      const soy = byCommodity(res.body, 'soybeans');
      expect(soy).toMatchObject({ week_ending: '2026-10-04', published_at: '2026-10-05T20:00:00.000Z' });
      expect(soy.statistics.map((s: any) => s.statistic)).toEqual(['dropping_leaves', 'harvested']);
      expect(soy.not_in_latest_report).toEqual([
        { statistic: 'planted', last_week_ending: '2026-06-14' },
        { statistic: 'emerged', last_week_ending: '2026-06-28' },
        { statistic: 'blooming', last_week_ending: '2026-08-16' },
        { statistic: 'setting_pods', last_week_ending: '2026-08-30' },
        { statistic: 'condition', last_week_ending: null },
      ]);
      // Last week of each column in the fixture table as above. Rows: 2026-10-04 harvested 25, 2026-09-27 17. No row
      // near 2025-10-05 (Crop Progress was not published during the 2025 shutdown): no year-ago figure.
      const harvested = soy.statistics[1];
      // The replayed figures are NASS's as a third-party dashboard's table has them (fixtures/nass/SOURCE.md):
      // indicative, and the source names the transcription, not NASS's own file.
      expect(harvested.latest).toMatchObject({ instrument: 'CROP:soybeans:harvested', value: 25, unit: 'percent', quality: 'indicative' });
      expect(harvested.latest.source).toMatchObject({
        name: expect.stringMatching(/^USDA NASS Crop Progress figures as transcribed from a third-party dashboard \(datuoniao\/usda-soy-dashboard/),
        url: 'https://github.com/datuoniao/usda-soy-dashboard',
      });
      expect(harvested.latest.attributes).toMatchObject({
        transcribed_from: expect.stringMatching(/^datuoniao\/usda-soy-dashboard data\/crop_progress\.csv/),
        checked_against: expect.stringMatching(/2025-07-06, 2025-07-13 and 2025-07-27/),
      });
      expect(harvested.latest.provenance.retrieval).toBe('replay');
      expect(harvested.latest.source.name).not.toMatch(/synthetic/);
      expect(harvested.previous_report).toMatchObject({ as_of: '2026-09-27', value: 17 });
      expect(harvested.change_vs_previous_report).toMatchObject({ value: 8, unit: 'percentage points', quality: 'derived' });
      expect(harvested.year_ago).toBeNull();
      expect(harvested.five_year_average).toBeNull();
    });

    it('answers corn with 404 NO_DATA (not retryable): no real corn figure is replayed, and says what is covered', async () => {
      const res = await get('/v1/fundamentals/crop-progress?commodity=corn&view=full');
      expectError(res, 404, 'NO_DATA');
      expect(res.body.error.retryable).toBe(false);
      expect(res.body.error.details).toMatchObject({
        missing: [{ commodity: 'corn', reason: 'no crop progress stored yet' }],
        covered: ['soybeans'],
        source: 'usda-nass-crop-progress',
      });
    });

    it('is the body loadCropProgress returns', async () => {
      const res = await get('/v1/fundamentals/crop-progress?commodity=soybeans&view=full');
      expect({ ...withoutCacheFlags(await loadCropProgress(stack.services, 'soybeans')), view: 'full' }).toEqual(withoutCacheFlags(res.body));
    });
  });

  describe('GET /v1/fundamentals/export-sales', () => {
    it('answers soybeans (China + Mexico only, said so) and lists corn and wheat as missing', async () => {
      const res = await get('/v1/fundamentals/export-sales?view=full');
      expect(res.status).toBe(200);
      expectAllObservations(res.body);
      expect(res.body.missing).toEqual([
        { commodity: 'corn', reason: 'no export sales stored yet' },
        { commodity: 'wheat', reason: 'no export sales stored yet' },
      ]);
      const soy = byCommodity(res.body, 'soybeans');
      expect(soy).toMatchObject({
        week_ending: '2022-03-31',
        market_year: '2021/22',
        scope: expect.stringMatching(/NOT total U\.S\. export sales/),
        unit: 'metric tons',
      });
      const net = soy.lines.find((l: any) => l.statistic === 'net_sales');
      // 465,242 this week (435,665 + 29,577) vs 593,723 the week before: -128,481
      expect(net.latest).toMatchObject({ instrument: 'ESR:soybeans:net_sales', value: 465242, quality: 'derived' });
      expect(net.change_vs_previous_report).toMatchObject({ value: -128481, attributes: { compared_as_of: '2022-03-24' } });
      expect(net.year_ago).toBeNull();
      expect(net.notes).toContain('no same week a year ago: no figure stored for the week of 2021-04-01');
      // outstanding sales 3,990,757 vs 4,058,619: -67,862
      expect(soy.lines.find((l: any) => l.statistic === 'outstanding_sales').change_vs_previous_report.value).toBe(-67862);
    });

    it('says the scope (China + Mexico only) on every compact line, not only in the full view', async () => {
      const lines = (await get('/v1/fundamentals/export-sales')).body.lines;
      expect(lines.length).toBeGreaterThan(0);
      for (const l of lines) expect(l.note, l.key).toBe('scope: only destinations 5700 (China), 2010 (Mexico): NOT total U.S. export sales');
      expect(lines.find((l: any) => l.key === 'soybeans:net_sales')).toMatchObject({ value: 465242 });
    });

    it('answers 404 NO_DATA (not retryable) for a commodity the replayed samples do not cover', async () => {
      // The replayed samples hold soybeans only: no release fills corn here, so it is a 404 that is
      // not worth retrying, and it says what is covered.
      const res = await get('/v1/fundamentals/export-sales?commodity=corn&view=full');
      expectError(res, 404, 'NO_DATA');
      expect(res.body.error.details).toMatchObject({
        missing: [{ commodity: 'corn', reason: 'no export sales stored yet' }],
        covered: ['soybeans'],
        source: 'usda-fas-esr',
      });
      expect(res.body.error.retryable).toBe(false);
    });

    it('is the body loadExportSales returns', async () => {
      const res = await get('/v1/fundamentals/export-sales?commodity=soybeans&view=full');
      expect({ ...withoutCacheFlags(await loadExportSales(stack.services, 'soybeans')), view: 'full' }).toEqual(withoutCacheFlags(res.body));
    });
  });

  describe('GET /v1/fundamentals/usgs', () => {
    it('answers MCS 2026 for the nine metals with year-on-year changes', async () => {
      const res = await get('/v1/fundamentals/usgs?view=full');
      expect(res.status).toBe(200);
      expectAllObservations(res.body);
      expect(res.body.commodities.map((c: any) => c.commodity)).toEqual([
        'copper',
        'aluminum',
        'nickel',
        'zinc',
        'iron_ore',
        'gold',
        'silver',
        'platinum',
        'palladium',
      ]);
      const copper = byCommodity(res.body, 'copper');
      expect(copper).toMatchObject({ edition: 'MCS 2026', published_at: '2026-02-07T04:59:59.000Z' }); // 6 February, no time stated: its end (EST)
      const mine = copper.statistics.find((s: any) => s.statistic === 'us_production');
      // 2025e 1,000 vs 2024 1,050 thousand metric tons: -50
      expect(mine.latest).toMatchObject({
        as_of: '2025-12-31',
        value: 1000,
        unit: 'thousand metric tons',
        attributes: { estimated: 'yes', frequency: 'annual' },
      });
      expect(mine.change_vs_year_ago.value).toBe(-50);
      expect(mine.previous_report).toBeNull();
      expect(mine.notes).toContain('no 5-year average: 4 of the 5 prior years stored');
      const palladium = byCommodity(res.body, 'palladium').statistics.find((s: any) => s.statistic === 'price');
      // annual average 1,100 (2025e) vs 994.9 (2024): +105.1 dollars per troy ounce
      expect(palladium.latest).toMatchObject({
        instrument: 'USGS:palladium:price',
        value: 1100,
        unit: 'dollars per troy ounce',
        freshness_class: 'monthly',
        attributes: { frequency: 'annual' },
      });
      expect(palladium.change_vs_year_ago.value).toBe(105.1);
      expect(byCommodity(res.body, 'iron_ore').statistics_without_data).toEqual([
        {
          statistic: 'net_import_reliance',
          label: 'U.S. net import reliance',
          reason: 'USGS printed "E" for 2025: net exporter',
          as_of: '2025-12-31',
          published_value: 'E',
          unit: 'percent',
        },
      ]);
    });

    it("serves gold's net import reliance as no value, with USGS's note, not as 0.5 % official", async () => {
      const res = await get('/v1/fundamentals/usgs?commodity=gold&view=full');
      const gold = byCommodity(res.body, 'gold');
      expect(gold.statistics.map((s: any) => s.statistic)).not.toContain('net_import_reliance');
      expect(gold.statistics_without_data).toEqual([
        {
          statistic: 'net_import_reliance',
          label: 'U.S. net import reliance',
          // MCS2026_Commodities_Data.gold.csv, 2025: value "s", note "... preclude calculation of a meaningful net import reliance."
          reason: 'USGS printed "s" for 2025: Large unreported investor stock purchases preclude calculation of a meaningful net import reliance.',
          as_of: '2025-12-31',
          published_value: 's',
          unit: 'percent',
        },
      ]);
      const compact = await get('/v1/fundamentals/usgs?commodity=gold');
      expect(compact.body.lines.find((l: any) => l.key === 'gold:net_import_reliance')).toMatchObject({
        value: null,
        bound: null,
        unit: 'percent',
        as_of: '2025-12-31',
        quality: null,
        note: expect.stringMatching(/preclude calculation of a meaningful net import reliance/),
      });
    });

    it('keeps published bounds as bounds in the compact view: nickel and PGM world reserves are "greater than"', async () => {
      const lines = (await get('/v1/fundamentals/usgs')).body.lines;
      // MCS 2026: nickel world reserves ">140,000,000" metric tons, PGM ">76,000,000" kilograms
      expect(lines.find((l: any) => l.key === 'nickel:world_reserves')).toMatchObject({ value: 140_000_000, bound: 'greater than', unit: 'metric tons' });
      expect(lines.find((l: any) => l.key === 'platinum:world_pgm_reserves')).toMatchObject({ value: 76_000_000, bound: 'greater than', unit: 'kilograms' });
      expect(lines.find((l: any) => l.key === 'copper:us_production')).toMatchObject({ value: 1000, bound: null });
    });

    it('judges the annual figures by one rule in every view and in /health: fresh until about 13 months after their year', async () => {
      // MCS 2026 figures are as of 2025-12-31; annual figures may lag 400 days (the next edition comes
      // at the end of January): fresh on 2026-11-26 (the monthly 62-day rule said stale), stale on 2027-02-05.
      const judged = async () => {
        stack.services.cache.clear();
        const lines = (await get('/v1/fundamentals/usgs')).body.lines.filter((l: any) => l.as_of === '2025-12-31');
        const health = (await get('/health')).body.sources.find((x: any) => x.id === 'usgs-mcs');
        return { lines: [...new Set(lines.map((l: any) => l.stale))], health: health.stale, reason: health.stale_reason };
      };
      try {
        day = new Date('2026-11-26T12:00:00Z');
        expect(await judged()).toEqual({ lines: [false], health: false, reason: null });
        day = new Date('2027-02-05T12:00:00Z');
        expect(await judged()).toEqual({ lines: [true], health: true, reason: 'its newest figure is dated 2025-12-31, more than 400 days ago (annual data)' });
      } finally {
        day = null;
        stack.services.cache.clear();
      }
    });

    it('accepts iron-ore for iron_ore', async () => {
      const res = await get('/v1/fundamentals/usgs?commodity=iron-ore&view=full');
      expect(res.status).toBe(200);
      expect(res.body.commodities.map((c: any) => c.commodity)).toEqual(['iron_ore']);
      expect({ ...withoutCacheFlags(await loadUsgs(stack.services, 'iron_ore')), view: 'full' }).toEqual(withoutCacheFlags(res.body));
    });
  });

  describe('bad input', () => {
    it.each([
      ['/v1/fundamentals/wasde?commodity=rice', ['corn', 'soybeans', 'wheat']],
      ['/v1/fundamentals/crop-progress?commodity=cotton', ['corn', 'soybeans', 'wheat']],
      ['/v1/fundamentals/export-sales?commodity=sorghum', ['soybeans', 'corn', 'wheat']],
      ['/v1/fundamentals/usgs?commodity=lithium', ['copper', 'aluminum', 'nickel', 'zinc', 'iron_ore', 'gold', 'silver', 'platinum', 'palladium']],
    ])('%s is a 404 listing the valid commodities', async (path, valid) => {
      const res = await get(path);
      expectError(res, 404, 'UNKNOWN_SERIES');
      expect(res.body.error.details.valid).toEqual(valid);
    });

    it.each([
      ['a script tag', `/v1/fundamentals/wasde?commodity=${encodeURIComponent('<script>')}`],
      ['an injection', `/v1/fundamentals/usgs?commodity=${encodeURIComponent("copper' OR 1=1")}`],
      ['a 200-character slug', `/v1/fundamentals/crop-progress?commodity=${'a'.repeat(200)}`],
    ])('refuses %s with 400 INVALID_PARAMETER', async (_n, path) => {
      expectError(await get(path), 400, 'INVALID_PARAMETER');
    });
  });
});

describe('fundamentals family with an empty store, then seeded directly', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startTestStack({}, false);
  });
  afterAll(async () => stack?.close());

  it.each(['wasde', 'crop-progress', 'export-sales', 'usgs'])('/v1/fundamentals/%s answers 503 NO_DATA, never a 500', async (route) => {
    const res = await getJson(stack.url, `/v1/fundamentals/${route}`);
    expectError(res, 503, 'NO_DATA');
    expect(res.body.error.details.missing.length).toBeGreaterThan(0);
  });

  it('WASDE: a 5-year average once five prior market years are stored', async () => {
    const stored = (key: string, as_of: string, attributes: Record<string, string | number>) => ({
      seriesKey: key,
      observation: {
        instrument: key.replace(/#/g, ':'),
        value: Number(attributes.ending_stocks ?? 0),
        unit: 'million bushels',
        as_of,
        observed_at: null,
        freshness_class: 'monthly' as const,
        quality: 'official' as const,
        derived: false,
        source: { name: 'USDA World Agricultural Outlook Board, WASDE', series_id: 'test', url: null },
        license_tag: 'public-domain (US government work)',
        retrieved_at: '2025-05-12T16:05:00.000Z',
        published_at: null,
        next_release_at: null,
        attributes,
      },
    });
    // Ending stocks of the five prior market years (test figures), each from an older report.
    const prior: Array<[string, string, number]> = [
      ['2024/25', '2025-04-01', 841],
      ['2023/24', '2024-09-01', 696],
      ['2022/23', '2023-09-01', 570],
      ['2021/22', '2022-09-01', 698],
      ['2020/21', '2021-09-01', 845],
    ];
    await stack.services.store.upsertMany([
      stored('WASDE#wheat#US', '2025-05-01', { report_month: 'May 2025', projection_year: '2025/26', market_years: '2025/26', ending_stocks: 923 }),
      stored('WASDE#wheat#US#2025/26', '2025-05-01', {
        report_month: 'May 2025',
        market_year: '2025/26',
        status: 'projection',
        ending_stocks: 923,
        use_total: 1959,
      }),
      ...prior.map(([my, asOf, ending]) => stored(`WASDE#wheat#US#${my}`, asOf, { market_year: my, status: 'final', ending_stocks: ending, use_total: 2000 })),
    ]);
    const res = await getJson(stack.url, '/v1/fundamentals/wasde?commodity=wheat&view=full');
    expect(res.status).toBe(200);
    expectAllObservations(res.body);
    const ending = line(res.body.commodities[0], '2025/26', 'ending_stocks');
    // (841 + 696 + 570 + 698 + 845) / 5 = 3650 / 5 = 730; 923 - 730 = 193
    expect(ending.five_year_average).toMatchObject({ value: 730, attributes: { periods: '2025-04-01,2024-09-01,2023-09-01,2022-09-01,2021-09-01' } });
    expect(ending.change_vs_five_year_average.value).toBe(193);
    expect(ending.change_vs_year_ago.value).toBe(82); // 923 - 841
    expect(res.body.commodities[0].market_years[0].lines.map((l: any) => l.statistic)).toEqual(['use_total', 'ending_stocks', 'stocks_to_use']);
  });

  it('export sales: a 5-year average from five prior marketing years, and no week-on-week change across the year boundary', async () => {
    // Corn weeks through the adapter (allCountries, one destination): 2022-09-01 opens marketing year
    // 2022/23; 2022-08-25 closes 2021/22; the same week of the five years before (364-day steps).
    const ctx = normalizeCtx(usdaFasEsr.def);
    const week = (date: string, netSales: number) => {
      const my = marketYearOf('corn', new Date(`${date}T00:00:00Z`));
      return usdaFasEsr.toItems(
        payload(
          `/exports/commodityCode/401/allCountries/marketYear/${my}`,
          JSON.stringify([esrRow({ commodityCode: 401, countryCode: 5700, week: date, currentMYNetSales: netSales })]),
        ),
        ctx,
      );
    };
    const prior = [1, 2, 3, 4, 5].map((k) => addDays('2022-09-01', -364 * k));
    const values = [100, 200, 300, 400, 500];
    await stack.services.store.upsertMany([...week('2022-09-01', 900), ...week('2022-08-25', 50), ...prior.flatMap((d, i) => week(d, values[i]!))]);
    const res = await getJson(stack.url, '/v1/fundamentals/export-sales?commodity=corn&view=full');
    expect(res.status).toBe(200);
    expectAllObservations(res.body);
    const net = res.body.commodities[0].lines.find((l: any) => l.statistic === 'net_sales');
    expect(net.latest).toMatchObject({ as_of: '2022-09-01', value: 900, attributes: { market_year: '2022/23' } });
    expect(net.previous_report).toBeNull();
    expect(net.notes[0]).toMatch(/the week before belongs to marketing year 2021\/22/);
    // same week a year earlier: 2021-09-02 = 100; 5-year mean (100+200+300+400+500)/5 = 300
    expect(net.year_ago).toMatchObject({ as_of: '2021-09-02', value: 100 });
    expect(net.change_vs_year_ago.value).toBe(800);
    expect(net.five_year_average).toMatchObject({ value: 300, quality: 'derived' });
    expect(net.change_vs_five_year_average.value).toBe(600);
  });
});
