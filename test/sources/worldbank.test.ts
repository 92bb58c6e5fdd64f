import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { decodePinkSheet, findWorkbookLink, worldbank } from '../../shared/sources/worldbank';
import { SourceFormatError, type FetchLike, type Payload } from '../../shared/sources/types';
import { HAVE_FIXTURES, fixtureBytes } from '../helpers/fixtures';
import { normalizeCtx, payload } from '../helpers/sources';
import { buildPinkSheet, type PinkSheetSpec } from './fundamentals-builders';

const ctx = normalizeCtx(worldbank.def);

/** xlsx bytes -> decoded grid payload -> items, the path live() and samples() take. */
const itemsOf = async (bytes: Uint8Array, name = 'CMO-Historical-Data-Monthly.xlsx') => worldbank.toItems(await decodePinkSheet(payload(name, bytes)), ctx);
const build = (spec: Partial<PinkSheetSpec> = {}) => buildPinkSheet({ months: [{ period: '2025M11' }], ...spec });
const find = (items: Awaited<ReturnType<typeof itemsOf>>, code: string, asOf: string) =>
  items.find((i) => i.seriesKey === `PRICE#${code}` && i.observation.as_of === asOf)?.observation;

describe('World Bank Pink Sheet parser', () => {
  it('stores each month on its first day, published on the "Updated on" day, metals official in the catalog unit', async () => {
    const items = await itemsOf(await build());
    expect(items).toHaveLength(18); // one month, every served series
    expect(find(items, 'GC', '2025-11-01')).toMatchObject({
      value: 4087.19,
      unit: 'USD/oz',
      quality: 'official',
      derived: false,
      freshness_class: 'monthly',
      license_tag: 'CC BY 4.0',
      // The workbook's "Updated on" day states no time: its end, 23:59:59 EST (never 00:00Z, a day early).
      published_at: '2025-12-03T04:59:59.000Z',
      source: { series_id: 'GOLD', url: 'https://www.worldbank.org/en/research/commodity-markets' },
      attributes: { period: '2025M11', published_unit: '$/troy oz', published_on: '2025-12-02', published_at_estimated: false },
    });
    expect(find(items, 'ZN', '2025-11-01')).toMatchObject({ value: 3176.84, unit: 'USD/metric ton', source: { series_id: 'Zinc' } }); // the sheet's own code
    expect(find(items, 'IO', '2025-11-01')).toMatchObject({ value: 102.48, unit: 'USD/dmtu', quality: 'official' });
  });

  it('converts ags to the catalog unit as derived, keeping the published value and unit (hand-checked)', async () => {
    const items = await itemsOf(await build());
    // 202.01642333333 $/mt / 39.3682611 bu/mt = 5.131454061 USD/bu
    expect(find(items, 'ZC', '2025-11-01')).toMatchObject({
      value: 5.131454061,
      unit: 'USD/bu',
      quality: 'derived',
      derived: true,
      attributes: { published_value: 202.01642333333, published_unit: '$/mt', conversion: expect.stringMatching(/39\.3682611 bu\/mt/) },
    });
    // 225.194604696 / 36.7437103 = 6.128793267 USD/bu
    expect(find(items, 'ZW', '2025-11-01')?.value).toBe(6.128793267);
    // 1126.09998352941 $/mt / 2204.62262 lb/mt = 0.5107903604 USD/lb
    expect(find(items, 'ZL', '2025-11-01')).toMatchObject({ value: 0.5107903604, unit: 'USD/lb' });
    // 411.66666666667 $/mt * 0.90718474 mt/short ton = 373.457718 USD/short ton
    expect(find(items, 'ZM', '2025-11-01')).toMatchObject({ value: 373.457718, unit: 'USD/short ton' });
    // 9.045776322 $/kg * 0.45359237 kg/lb = 4.10309512 USD/lb
    expect(find(items, 'KC', '2025-11-01')).toMatchObject({ value: 4.10309512, unit: 'USD/lb' });
    // 5.61473 $/kg * 1000 = 5614.73 USD/metric ton
    expect(find(items, 'CC', '2025-11-01')).toMatchObject({ value: 5614.73, unit: 'USD/metric ton', quality: 'derived' });
    // 368 $/mt / 22.0462262 cwt/mt = 16.69219922 USD/cwt
    expect(find(items, 'ZR', '2025-11-01')).toMatchObject({ value: 16.69219922, unit: 'USD/cwt' });
  });

  it('skips the missing-value markers (…, ..., empty) without failing', async () => {
    const items = await itemsOf(
      await build({
        months: [{ period: '2023M01', values: { WHEAT_US_SRW: '...', COCOA: '\u2026', SILVER: null } }, { period: '2023M02' }],
      }),
    );
    expect(find(items, 'ZW', '2023-01-01')).toBeUndefined();
    expect(find(items, 'CC', '2023-01-01')).toBeUndefined();
    expect(find(items, 'SI', '2023-01-01')).toBeUndefined();
    expect(find(items, 'GC', '2023-01-01')?.value).toBe(4087.19);
    expect(items).toHaveLength(18 * 2 - 3);
  });

  it.each<[string, Partial<PinkSheetSpec>, RegExp]>([
    ['no release date', { updatedOn: null }, /Updated on/],
    ['a missing column', { drop: ['COPPER'] }, /column COPPER \(HG\) is missing/],
    ['a renamed series code', { rename: { MAIZE: 'CORN' } }, /column MAIZE \(ZC\) is missing/],
    ['a changed unit', { units: { MAIZE: '($/bu)' } }, /MAIZE is published in "\(\$\/bu\)", expected \(\$\/mt\)/],
    ['an NA value', { months: [{ period: '2025M11', values: { GOLD: 'NA' } }] }, /2025M11 GOLD: not a number: "NA"/],
    ['a "." value', { months: [{ period: '2025M11', values: { COPPER: '.' } }] }, /2025M11 COPPER: not a number/],
    ['a malformed period', { months: [{ period: '2025-11' }] }, /period "2025-11" is not YYYYMmm/],
    ['a repeated period', { months: [{ period: '2025M11' }, { period: '2025M11' }] }, /2025M11 appears twice/],
    ['no month rows', { months: [] }, /no monthly rows/],
  ])('refuses %s', async (_name, spec, msg) => {
    const p = await decodePinkSheet(payload('wb.xlsx', await build(spec)));
    expect(() => worldbank.toItems(p, ctx)).toThrow(SourceFormatError);
    expect(() => worldbank.toItems(p, ctx)).toThrow(msg);
  });

  it.each([
    ['an empty file', new Uint8Array(), /empty workbook/],
    ['bytes that are not xlsx', new TextEncoder().encode('<html>maintenance</html>'), /not a readable xlsx/],
  ])('refuses %s before parsing', async (_name, bytes, msg) => {
    await expect(decodePinkSheet(payload('wb.xlsx', bytes))).rejects.toThrow(msg);
  });

  it('refuses a workbook without the Monthly Prices sheet', async () => {
    await expect(decodePinkSheet(payload('wb.xlsx', await build({ sheetName: 'Monthly Indices' })))).rejects.toThrow(/no "Monthly Prices" sheet/);
  });

  it('refuses a payload that is not a decoded grid', () => {
    expect(() => worldbank.toItems(payload('x', '{"rows": 3}'), ctx)).toThrow(/not a decoded Pink Sheet grid/);
  });
});

describe('World Bank adapter', () => {
  it('bundles 13 real months (2024M11-2025M11) of the 18 series', async () => {
    const items = (await worldbank.samples()).flatMap((p) => worldbank.toItems(p, ctx));
    expect(items).toHaveLength(13 * 18);
    expect(new Set(items.map((i) => i.observation.as_of))).toEqual(
      new Set(['2024-11-01', '2024-12-01', ...Array.from({ length: 11 }, (_, i) => `2025-${String(i + 1).padStart(2, '0')}-01`)]),
    );
    expect(find(items, 'HG', '2025-11-01')?.value).toBe(10812.03);
    expect(find(items, 'GC', '2024-12-01')?.value).toBe(2648.01);
    // Each month is dated by its own first release, the second business day of the next month, at the
    // end of that day (Eastern; no time is stated), worked out by hand from the calendar (holidays: New
    // Year 2025, Labor Day 2025). Only the December 2025 workbook is recorded: the others are estimated.
    const firstRelease = Object.fromEntries(
      items
        .filter((i) => i.seriesKey === 'PRICE#GC')
        .map((i) => [i.observation.as_of, [i.observation.published_at, i.observation.attributes.published_at_estimated]]),
    );
    expect(firstRelease).toEqual({
      '2024-11-01': ['2024-12-04T04:59:59.000Z', true], // Tue 3 Dec 2024
      '2024-12-01': ['2025-01-04T04:59:59.000Z', true], // Fri 3 Jan (1 Jan a holiday)
      '2025-01-01': ['2025-02-05T04:59:59.000Z', true], // Tue 4 Feb
      '2025-02-01': ['2025-03-05T04:59:59.000Z', true], // Tue 4 Mar
      '2025-03-01': ['2025-04-03T03:59:59.000Z', true], // Wed 2 Apr (EDT)
      '2025-04-01': ['2025-05-03T03:59:59.000Z', true], // Fri 2 May
      '2025-05-01': ['2025-06-04T03:59:59.000Z', true], // Tue 3 Jun
      '2025-06-01': ['2025-07-03T03:59:59.000Z', true], // Wed 2 Jul
      '2025-07-01': ['2025-08-05T03:59:59.000Z', true], // Mon 4 Aug
      '2025-08-01': ['2025-09-04T03:59:59.000Z', true], // Wed 3 Sep (1 Sep Labor Day)
      '2025-09-01': ['2025-10-03T03:59:59.000Z', true], // Thu 2 Oct
      '2025-10-01': ['2025-11-05T04:59:59.000Z', true], // Tue 4 Nov (EST)
      '2025-11-01': ['2025-12-03T04:59:59.000Z', false], // Tue 2 Dec: the recorded workbook
    });
    expect(items.every((i) => firstRelease[i.observation.as_of]![0] === i.observation.published_at)).toBe(true);
  });

  it('scrapes the workbook link from the landing page, whatever its release hash', () => {
    const base = 'https://www.worldbank.org/en/research/commodity-markets';
    expect(
      findWorkbookLink(
        '<a href="https://thedocs.worldbank.org/en/doc/74e8be41ceb20fa0da750cda2f6b9e4e-0050012026/related/CMO-Historical-Data-Monthly.xlsx">Monthly prices</a>',
        base,
      ),
    ).toBe('https://thedocs.worldbank.org/en/doc/74e8be41ceb20fa0da750cda2f6b9e4e-0050012026/related/CMO-Historical-Data-Monthly.xlsx');
    expect(findWorkbookLink("<a class='x' href='/content/dam/CMO-Historical-Data-Monthly.xlsx'>", base)).toBe(
      'https://www.worldbank.org/content/dam/CMO-Historical-Data-Monthly.xlsx',
    );
    expect(() => findWorkbookLink('<a href="/CMO-Pink-Sheet-December-2025.pdf">pdf</a>', base)).toThrow(/no link to CMO-Historical-Data-Monthly\.xlsx/);
  });

  it('live: follows the scraped link and decodes the workbook', async () => {
    const xlsx = await build();
    const asked: string[] = [];
    const fetch: FetchLike = async (url) => {
      asked.push(String(url));
      return String(url).endsWith('.xlsx')
        ? new Response(xlsx)
        : new Response('<html><a href="https://thedocs.worldbank.org/en/doc/abc-0050012026/related/CMO-Historical-Data-Monthly.xlsx">x</a></html>');
    };
    const payloads: Payload[] = await worldbank.live({
      fetch,
      config: loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c' }),
      concurrency: 1,
      now: new Date('2025-12-03T17:00:00Z'),
    });
    expect(asked).toEqual([
      'https://www.worldbank.org/en/research/commodity-markets',
      'https://thedocs.worldbank.org/en/doc/abc-0050012026/related/CMO-Historical-Data-Monthly.xlsx',
    ]);
    expect(payloads.flatMap((p) => worldbank.toItems(p, ctx))).toHaveLength(18);
  });
});

describe.skipIf(!HAVE_FIXTURES)('contract: World Bank recorded workbook (../shared/fixtures/worldbank)', () => {
  it('parses the December 2025 release: 35 months x 18 series, less the one missing wheat month', async () => {
    const items = await itemsOf(fixtureBytes('worldbank/CMO-Historical-Data-Monthly.sample.xlsx'));
    expect(items).toHaveLength(35 * 18 - 1);
    expect(find(items, 'GC', '2023-01-01')?.value).toBe(1897.71);
    expect(find(items, 'GC', '2025-11-01')?.value).toBe(4087.19);
    expect(find(items, 'HG', '2025-11-01')?.value).toBe(10812.03);
    expect(find(items, 'ZC', '2025-11-01')?.attributes.published_value).toBe(202.01642333333);
    expect(find(items, 'ZC', '2025-11-01')?.value).toBe(5.131454061);
    expect(find(items, 'ZW', '2023-01-01')).toBeUndefined(); // "..." in the workbook
    expect(find(items, 'ZR', '2025-11-01')?.attributes.wb_series).toBe('Rice, Thai 5%');
    // 2023M01 first came out on Thu 2 Feb 2023, the second business day (Wed 1 Feb the first): its end, EST.
    expect(find(items, 'GC', '2023-01-01')?.published_at).toBe('2023-02-03T04:59:59.000Z');
    expect(items.every((i) => i.observation.published_at! <= '2025-12-03T04:59:59.000Z' && i.observation.published_at! > `${i.observation.as_of}`)).toBe(true);
    expect(items.some((i) => i.seriesKey === 'PRICE#PA')).toBe(false); // no palladium in the Pink Sheet
  });
});
