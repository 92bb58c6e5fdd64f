import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { payloadText, SAMPLES_DIR } from '../../shared/sources/common';
import { currentEdition, parseUsgsValue, USGS_COMMODITIES, usgsMcs } from '../../shared/sources/usgs-mcs';
import { USGS_SERIES } from '../../shared/catalog/fundamentals';
import { SourceFormatError, type FetchLike } from '../../shared/sources/types';
import { HAVE_FIXTURES, fixtureBytes } from '../helpers/fixtures';
import { normalizeCtx, payload } from '../helpers/sources';

const ctx = normalizeCtx(usgsMcs.def);

/** Windows-1252 bytes of a text (the publisher's encoding): em dash 0x97, en dash 0x96, ½ 0xBD. */
const cp1252 = (text: string): Uint8Array => {
  const special: Record<string, number> = { '\u2014': 0x97, '\u2013': 0x96, '\u00bd': 0xbd };
  return Uint8Array.from([...text].map((ch) => special[ch] ?? (ch.charCodeAt(0) < 0x80 ? ch.charCodeAt(0) : 0x3f)));
};
const SAMPLE_TEXT = new TextDecoder('windows-1252').decode(readFileSync(`${SAMPLES_DIR}usgs-mcs/MCS2026_Commodities_Data.csv`));
const HEADER = SAMPLE_TEXT.split('\r\n')[0]!;
/** The sample's rows of one chapter, as CSV text with the header. */
const chapter = (name: string) => [HEADER, ...SAMPLE_TEXT.split('\r\n').filter((l) => l.startsWith(`${name},`))].join('\r\n');
const itemsOf = (text: string, name = 'MCS2026_Commodities_Data.csv') => usgsMcs.toItems(payload(name, cp1252(text)), ctx);
const get = (items: ReturnType<typeof itemsOf>, key: string, year: number) =>
  items.find((i) => i.seriesKey === key && i.observation.as_of === `${year}-12-31`)?.observation;

describe('USGS value tokens', () => {
  it.each([
    ['"1,230"', '1,230', { value: 1230, bound: null, note: null }],
    ['a decimal', '2,419.18', { value: 2419.18, bound: null, note: null }],
    ['W (withheld)', 'W', { value: null, bound: null, note: expect.stringMatching(/withheld/) }],
    ['NA', 'NA', { value: null, bound: null, note: 'not available' }],
    ['E (net exporter)', 'E', { value: null, bound: null, note: 'net exporter' }],
    ['an em dash (zero)', '\u2014', { value: 0, bound: null, note: 'zero' }],
    ['s (less than half a unit: an upper bound, not zero)', 's', { value: 0.5, bound: 'less than', note: 'less than ½ unit' }],
    ['>99', '>99', { value: 99, bound: 'greater than', note: null }],
    ['<1', '<1', { value: 1, bound: 'less than', note: null }],
    ['>140,000,000', '>140,000,000', { value: 140000000, bound: 'greater than', note: null }],
  ])('reads %s', (_n, raw, expected) => {
    expect(parseUsgsValue(raw, 't')).toEqual(expected);
  });

  it('reads "s" as no value when the row says a meaningful figure cannot be calculated (gold net import reliance 2025)', () => {
    const notes =
      'Estimated. -- Defined as imports – exports. -- Large unreported investor stock purchases preclude calculation of a meaningful net import reliance.';
    expect(parseUsgsValue('s', 't', notes)).toEqual({
      value: null,
      bound: null,
      note: 'Large unreported investor stock purchases preclude calculation of a meaningful net import reliance.',
    });
    expect(parseUsgsValue('s', 't', 'Less than ½ unit.')).toEqual({ value: 0.5, bound: 'less than', note: 'less than ½ unit' });
  });

  it.each(['.', 'n/a', 'XX', '', '1.2.3'])('refuses %j', (raw) => {
    expect(() => parseUsgsValue(raw, 't')).toThrow(SourceFormatError);
  });
});

describe('USGS files are Windows-1252', () => {
  it('decodes 0x96/0x97 as en and em dash (not the C1 controls Latin-1 gives), so a "—" cell is zero', () => {
    const text = payloadText({ name: 'cp1252.csv', body: new Uint8Array([0x31, 0x96, 0x32, 0x20, 0x97]) } as never, 'windows-1252');
    expect(text).toBe('1\u20132 \u2014');
    expect(parseUsgsValue(text.split(' ')[1]!, 'x')).toEqual({ value: 0, bound: null, note: 'zero' });
  });
});

describe('USGS MCS parser', () => {
  it('stores copper by statistic with as_of = year end, in the published unit (Windows-1252 decoded)', () => {
    const items = itemsOf(chapter('COPPER'));
    expect(get(items, 'USGS#copper#us_production', 2021)).toMatchObject({
      instrument: 'USGS:copper:us_production',
      value: 1230,
      unit: 'thousand metric tons',
      freshness_class: 'monthly',
      quality: 'official',
      // The data release's day (6 February 2026) without a time: its end, 23:59:59 EST (never 00:00Z).
      published_at: '2026-02-07T04:59:59.000Z',
      source: { series_id: 'MCS2026 COPPER: Production: Mine, recoverable', url: 'https://doi.org/10.5066/P1WKQ63T' },
      attributes: { frequency: 'annual', edition: 'MCS 2026', estimated: 'no', published_value: '1,230', year: 2021, published_at_estimated: false },
    });
    expect(get(items, 'USGS#copper#us_production', 2025)).toMatchObject({ value: 1000, attributes: { estimated: 'yes' } });
    expect(get(items, 'USGS#copper#price', 2024)).toMatchObject({ value: 421.6, unit: 'cents per pound' });
    expect(get(items, 'USGS#copper#world_production', 2025)?.value).toBe(23000);
    expect(get(items, 'USGS#copper#world_reserves', 2025)?.value).toBe(980000);
    expect(get(items, 'USGS#copper#net_import_reliance', 2025)).toMatchObject({ value: 57, unit: 'percent' });
    // Section names keep the em dash (0x97) of the original: "Salient Statistics—United States".
    expect(items.every((i) => i.seriesKey.startsWith('USGS#copper#'))).toBe(true);
  });

  it('gives no observation for W, NA, E or a figure USGS says cannot be calculated, and keeps what was printed as a note', () => {
    const gold = itemsOf(chapter('GOLD'));
    // Gold net import reliance is "E" (net exporter) for 2021-2024 and "s" for 2025, whose row notes
    // "Large unreported investor stock purchases preclude calculation of a meaningful net import reliance."
    expect(gold.filter((i) => i.seriesKey === 'USGS#gold#net_import_reliance')).toEqual([]);
    const notes = usgsMcs.toNotes!(payload('MCS2026_Commodities_Data.csv', cp1252(chapter('GOLD')))).filter(
      (n) => n.seriesKey === 'USGS#gold#net_import_reliance',
    );
    expect(notes.map((n) => [n.as_of, n.published_value, n.note, n.unit])).toEqual([
      ['2021-12-31', 'E', 'net exporter', 'percent'],
      ['2022-12-31', 'E', 'net exporter', 'percent'],
      ['2023-12-31', 'E', 'net exporter', 'percent'],
      ['2024-12-31', 'E', 'net exporter', 'percent'],
      ['2025-12-31', 's', 'Large unreported investor stock purchases preclude calculation of a meaningful net import reliance.', 'percent'],
    ]);
    const nickel = itemsOf(chapter('NICKEL'));
    expect(get(nickel, 'USGS#nickel#world_reserves', 2025)).toMatchObject({
      value: 140000000,
      attributes: { bound: 'greater than', published_value: '>140,000,000' },
    });
  });

  it('keeps platinum and palladium apart, with PGM reserves named as such', () => {
    const items = itemsOf(chapter('PLATINUM-GROUP METALS'));
    expect(get(items, 'USGS#palladium#price', 2024)).toMatchObject({
      value: 994.9,
      unit: 'dollars per troy ounce',
      attributes: { frequency: 'annual', notes: expect.stringMatching(/Engelhard unfabricated metal average annual prices/) },
    });
    expect(get(items, 'USGS#palladium#price', 2025)).toMatchObject({ value: 1100, attributes: { estimated: 'yes' } });
    expect(get(items, 'USGS#platinum#price', 2021)?.value).toBe(1094.31);
    expect(get(items, 'USGS#palladium#us_pgm_reserves', 2025)?.value).toBe(590000);
    expect(get(items, 'USGS#platinum#world_pgm_reserves', 2025)).toMatchObject({ value: 76000000, attributes: { bound: 'greater than' } });
    expect(items.some((i) => i.seriesKey === 'USGS#palladium#us_reserves')).toBe(false);
  });

  it.each<[string, string, RegExp]>([
    ['a renamed column', chapter('COPPER').replace(',Value,', ',Amount,'), /missing column\(s\) Value/],
    ['a column missing from the header only', chapter('COPPER').replace(',Value,', ','), /not a readable CSV/],
    [
      'a missing column',
      `MCS chapter,Section,Commodity,Country,Statistics,Statistics_detail,Unit,Year,Notes\r\nCOPPER,Salient,Copper,United States,Production,x,t,2021,`,
      /missing column\(s\) Value/,
    ],
    [
      'a renamed statistic',
      chapter('COPPER').replace(/"Production: Mine, recoverable"/g, '"Mine production, recoverable"'),
      /COPPER has no row for us_production/,
    ],
    ['a "." value', chapter('COPPER').replace('"1,230"', '.'), /value "\." is not a number or a documented USGS token/],
    ['an unknown token', chapter('ZINC').replace(',704,', ',n/a,'), /"n\/a" is not a number/],
    ['a header only', HEADER, /no data rows/],
    [
      'no served chapter',
      `${HEADER}\r\nLITHIUM,Salient Statistics\u2014United States,Lithium,United States,Production,Production,metric tons,2021,W,,Yes,x`,
      /none of the chapters/,
    ],
    ['a repeated year', `${chapter('GOLD')}\r\n${chapter('GOLD').split('\r\n')[1]}`, /two rows for the same year/],
  ])('refuses %s', (_n, text, msg) => {
    expect(() => itemsOf(text)).toThrow(msg);
  });

  it('refuses an empty file', () => {
    expect(() => usgsMcs.toItems(payload('x.csv', new Uint8Array()), ctx)).toThrow(/empty payload/);
  });
});

describe('USGS adapter', () => {
  it('parses exactly the statistics the catalog serves, in its order (labels come from the catalog)', () => {
    expect(USGS_COMMODITIES.map((c) => [c.slug, c.statistics.map((x) => x.statistic)])).toEqual(
      USGS_SERIES.map((c) => [c.commodity, c.statistics.map((x) => x.statistic)]),
    );
    const items = itemsOf(chapter('GOLD'));
    expect(get(items, 'USGS#gold#price', 2025)?.attributes.label).toBe('Gold price, annual average');
  });

  it('bundles the nine metals of MCS 2026 (real figures)', async () => {
    const items = (await usgsMcs.samples()).flatMap((p) => usgsMcs.toItems(p, ctx));
    const commodities = new Set(items.map((i) => i.seriesKey.split('#')[1]));
    expect([...commodities].sort()).toEqual(['aluminum', 'copper', 'gold', 'iron_ore', 'nickel', 'palladium', 'platinum', 'silver', 'zinc']);
    expect(get(items, 'USGS#copper#us_production', 2021)?.value).toBe(1230);
    expect(get(items, 'USGS#iron_ore#us_reserves', 2025)).toMatchObject({ value: 3600, unit: 'million metric tons' });
    expect(items.some((i) => i.seriesKey === 'USGS#iron_ore#net_import_reliance')).toBe(false); // "E" every year
  });

  it('live: fetches the newest known edition and checks every chapter is in it', async () => {
    expect(currentEdition(new Date('2026-03-01T00:00:00Z'))).toBe(2026);
    const config = loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c' });
    const full: FetchLike = async () => new Response(cp1252(SAMPLE_TEXT));
    const ok = await usgsMcs.live({ fetch: full, config, concurrency: 1, now: new Date('2026-03-01T00:00:00Z') });
    expect(ok.map((p) => p.name)).toEqual(['MCS2026_Commodities_Data.csv']);
    const partial: FetchLike = async () => new Response(cp1252(chapter('COPPER')));
    await expect(usgsMcs.live({ fetch: partial, config, concurrency: 1, now: new Date('2026-03-01T00:00:00Z') })).rejects.toThrow(
      /chapter\(s\) ALUMINUM, .* missing/,
    );
  });
});

describe.skipIf(!HAVE_FIXTURES)('contract: USGS MCS 2026 recorded chapters (../shared/fixtures/usgs)', () => {
  const file = (c: string) => usgsMcs.toItems(payload(`MCS2026_Commodities_Data.${c}.csv`, fixtureBytes(`usgs/MCS2026_Commodities_Data.${c}.csv`)), ctx);
  it('copper: U.S. mine production 2021 = 1,230 thousand metric tons', () => {
    expect(get(file('copper'), 'USGS#copper#us_production', 2021)).toMatchObject({ value: 1230, unit: 'thousand metric tons' });
  });
  it.each([
    ['aluminum', 'USGS#aluminum#us_production', 2021, 889],
    ['nickel', 'USGS#nickel#price', 2022, 25815],
    ['zinc', 'USGS#zinc#net_import_reliance', 2021, 76],
    ['iron-ore', 'USGS#iron_ore#price', 2021, 141.78],
    ['gold', 'USGS#gold#price', 2024, 2388],
    ['silver', 'USGS#silver#world_production', 2024, 25300],
    ['platinum-group-metals', 'USGS#palladium#price', 2021, 2419.18],
  ])('%s: %s %d = %d', (c, key, year, value) => {
    expect(get(file(c), key, year)?.value).toBe(value);
  });
});
