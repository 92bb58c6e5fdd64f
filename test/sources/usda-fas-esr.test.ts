import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { marketYearOf, marketYearWindow, usdaFasEsr } from '../../shared/sources/usda-fas-esr';
import type { FetchLike } from '../../shared/sources/types';
import { HAVE_FIXTURES, fixtureBytes } from '../helpers/fixtures';
import { normalizeCtx, payload } from '../helpers/sources';
import { esrRow } from './fundamentals-builders';

const ctx = normalizeCtx(usdaFasEsr.def);
const ALL = (cc: number, my: number) => `/exports/commodityCode/${cc}/allCountries/marketYear/${my}`;
const itemsOf = (rows: unknown, name = ALL(801, 2022)) => usdaFasEsr.toItems(payload(name, typeof rows === 'string' ? rows : JSON.stringify(rows)), ctx);

describe('FAS ESR parser', () => {
  it('sums the destination rows of a week into one derived item (hand-checked on the real sample)', async () => {
    const items = (await usdaFasEsr.samples()).flatMap((p) => usdaFasEsr.toItems(p, ctx));
    expect(items).toHaveLength(31);
    const last = items.at(-1)!;
    expect(last.seriesKey).toBe('ESR#soybeans');
    expect(last.observation).toMatchObject({
      instrument: 'ESR:soybeans',
      as_of: '2022-03-31',
      value: 465242, // net sales: 435,665 China + 29,577 Mexico
      unit: 'metric tons',
      freshness_class: 'weekly',
      quality: 'derived',
      derived: true,
      published_at: '2022-04-07T12:30:00.000Z', // Thursday 08:30 EDT
      attributes: {
        market_year: '2021/22',
        market_year_end: 2022,
        countries: 2,
        scope: 'only destinations 5700 (China), 2010 (Mexico): NOT total U.S. export sales',
        outstanding_sales: 3990757, // 2,168,981 + 1,821,776
        accumulated_exports: 29667587, // 26,578,615 + 3,088,972
        weekly_exports: 533104, // 458,761 + 74,343
        total_commitment: 33658344, // 28,747,596 + 4,910,748
        next_my_net_sales: 208000, // 0 + 208,000
      },
    });
    expect(items[0]!.observation).toMatchObject({ as_of: '2021-09-02', value: 843102 }); // 764,000 + 79,102
  });

  it('labels an allCountries response as all destinations', () => {
    const [item] = itemsOf([esrRow({ countryCode: 5700, week: '2022-03-31' }), esrRow({ countryCode: 2010, week: '2022-03-31', currentMYNetSales: 25 })]);
    expect(item!.observation).toMatchObject({ value: 75, attributes: { scope: 'all destination countries in the allCountries response', countries: 2 } });
  });

  it('keeps the boundary week in the marketing year that contains its week ending only', () => {
    const rows = [esrRow({ countryCode: 5700, week: '2022-08-25' }), esrRow({ countryCode: 5700, week: '2022-09-01' })];
    expect(itemsOf(rows, ALL(801, 2022)).map((i) => i.observation.as_of)).toEqual(['2022-08-25']);
    expect(itemsOf(rows, ALL(801, 2023)).map((i) => i.observation.as_of)).toEqual(['2022-09-01']);
    expect(marketYearWindow('soybeans', 2022)).toEqual(['2021-09-01', '2022-08-31']);
    expect(marketYearWindow('wheat', 2023)).toEqual(['2022-06-01', '2023-05-31']);
    expect(marketYearOf('corn', new Date('2025-09-01T00:00:00Z'))).toBe(2026);
    expect(marketYearOf('corn', new Date('2025-08-31T00:00:00Z'))).toBe(2025);
    expect(marketYearOf('wheat', new Date('2025-06-01T00:00:00Z'))).toBe(2026);
  });

  it.each<[string, unknown, RegExp, string?]>([
    ['a "." quantity', [{ ...esrRow({ countryCode: 1, week: '2022-03-31' }), outstandingSales: '.' }], /row 0: outstandingSales/],
    ['an NA quantity', [{ ...esrRow({ countryCode: 1, week: '2022-03-31' }), weeklyExports: 'NA' }], /row 0: weeklyExports/],
    ['a renamed field', [{ ...esrRow({ countryCode: 1, week: '2022-03-31' }), currentMYNetSales: undefined, netSales: 5 }], /row 0: currentMYNetSales/],
    ['another unit', [esrRow({ countryCode: 1, week: '2022-03-31', unitId: 2 })], /unitId 2 is not 1 \(metric tons\)/],
    ['a bad date', [{ ...esrRow({ countryCode: 1, week: '2022-03-31' }), weekEndingDate: '03/31/2022' }], /weekEndingDate must be/],
    ['an empty array', [], /no rows/],
    ['an object instead of rows', { message: 'API rate limit exceeded' }, /expected a JSON array/],
    ['another commodity', [esrRow({ commodityCode: 401, countryCode: 1, week: '2022-03-31' })], /row for commodity 401, expected 801/],
    [
      'a country that was not asked for',
      [esrRow({ countryCode: 1220, week: '2022-03-31' })],
      /row for country 1220, not requested/,
      'exports.commodityCode-801.countryCode-5700.marketYear-2022.json',
    ],
    ['an unknown payload name', [esrRow({ countryCode: 1, week: '2022-03-31' })], /not an ESR exports payload name/, 'exports.json'],
  ])('refuses %s', (_n, rows, msg, name) => {
    expect(() => itemsOf(rows, name)).toThrow(msg);
  });
});

describe('FAS ESR live', () => {
  const config = loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', FAS_API_KEY: 'fas-key' });

  it('asks each commodity for the current and previous marketing year, with the key in a header', async () => {
    const asked: Array<[string, string | null]> = [];
    const fetch: FetchLike = async (url, init) => {
      asked.push([String(url), new Headers(init?.headers).get('x-api-key')]);
      return new Response(JSON.stringify([esrRow({ countryCode: 1, week: '2025-06-05' })]));
    };
    const payloads = await usdaFasEsr.live({ fetch, config, concurrency: 2, now: new Date('2025-06-10T00:00:00Z') });
    expect(asked.map(([u]) => u.replace('https://api.fas.usda.gov/api/esr', ''))).toEqual([
      ALL(801, 2024),
      ALL(801, 2025),
      ALL(401, 2024),
      ALL(401, 2025),
      ALL(107, 2025),
      ALL(107, 2026),
    ]);
    expect(asked.every(([, key]) => key === 'fas-key')).toBe(true);
    expect(payloads).toHaveLength(6);
  });

  it('skips an empty answer for a marketing year that began less than three weeks ago, not for an older one', async () => {
    // Wheat's 2025/26 year (marketYear 2026) began on 2025-06-01 and has no rows yet.
    const fetch: FetchLike = async (url) => {
      const [, cc, my] = /commodityCode\/(\d+)\/allCountries\/marketYear\/(\d+)/.exec(String(url))!;
      return new Response(
        cc === '107' && my === '2026' ? '[]' : JSON.stringify([esrRow({ commodityCode: Number(cc), countryCode: 1, week: `${Number(my) - 1}-12-04` })]),
      );
    };
    const payloads = await usdaFasEsr.live({ fetch, config, concurrency: 1, now: new Date('2025-06-10T00:00:00Z') });
    expect(payloads.map((p) => p.name)).not.toContain(ALL(107, 2026));
    expect(payloads).toHaveLength(5);
    expect(payloads.flatMap((p) => usdaFasEsr.toItems(p, ctx))).toHaveLength(5);
    // Ten weeks into the marketing year an empty answer is kept, and fails the run as "no rows".
    const later = await usdaFasEsr.live({ fetch, config, concurrency: 1, now: new Date('2025-08-10T00:00:00Z') });
    expect(later.map((p) => p.name)).toContain(ALL(107, 2026));
    expect(() => {
      for (const p of later) usdaFasEsr.toItems(p, ctx);
    }).toThrow(/marketYear\/2026: no rows/);
  });

  it('reports HTTP failures without the key', async () => {
    const err = await usdaFasEsr.live({ fetch: async () => new Response('', { status: 429 }), config, concurrency: 1, now: new Date() }).catch((e: Error) => e);
    expect(String(err)).toMatch(/HTTP 429/);
    expect(String(err)).not.toMatch(/fas-key/);
  });
});

describe.skipIf(!HAVE_FIXTURES)('contract: FAS ESR recorded exports (../shared/fixtures/fas)', () => {
  const file = (country: number) =>
    usdaFasEsr.toItems(
      payload(
        `esr-exports.commodityCode-801.countryCode-${country}.marketYear-2022.json`,
        fixtureBytes(`fas/esr-exports.commodityCode-801.countryCode-${country}.marketYear-2022.reconstructed.json`),
      ),
      ctx,
    );

  it('soybeans to China: the documented values of 2021-09-02 and 2022-03-31', () => {
    const items = file(5700);
    expect(items).toHaveLength(31);
    expect(items[0]!.observation).toMatchObject({
      as_of: '2021-09-02',
      value: 764000,
      attributes: {
        weekly_exports: 0,
        outstanding_sales: 9422282,
        gross_new_sales: 1479782,
        total_commitment: 9422282,
        scope: expect.stringMatching(/only destinations 5700 \(China\)/),
      },
    });
    expect(items.at(-1)!.observation).toMatchObject({
      as_of: '2022-03-31',
      attributes: { accumulated_exports: 26578615, total_commitment: 28747596, next_my_outstanding_sales: 5626000 },
    });
  });

  it('soybeans to Mexico parse too', () => {
    expect(file(2010).at(-1)!.observation).toMatchObject({ as_of: '2022-03-31', value: 29577 });
  });
});
