/**
 * The fault behaviour of the World Bank, USGS, WASDE, NASS and FAS sources through the real
 * runner and the embedded store: a timeout, a 5xx, an empty file, a missing column, a renamed
 * field or an "NA"/"." value fails the run with a clear recorded error and keeps the stored data;
 * a re-run is idempotent; a revision overwrites.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES_DIR } from '../../shared/sources/common';
import { runSource } from '../../shared/sources/runner';
import type { FetchLike, SourceAdapter } from '../../shared/sources/types';
import { usdaFasEsr } from '../../shared/sources/usda-fas-esr';
import { usdaNassCropProgress } from '../../shared/sources/usda-nass-crop-progress';
import { usdaWasde } from '../../shared/sources/usda-wasde';
import { usgsMcs } from '../../shared/sources/usgs-mcs';
import { worldbank } from '../../shared/sources/worldbank';
import { startTestStore, type TestStore } from '../helpers/store';
import { buildPinkSheet, cornMay2025, esrRow, nassBody, nassRecord, wasdeMay2025, type PinkSheetSpec } from './fundamentals-builders';

type Body = string | Uint8Array | number | Error;
/** A fake fetch: the first matching [pattern, body] answers (a number is an HTTP status, an Error is thrown). */
const fake =
  (...routes: Array<[RegExp, Body | ((url: string) => Body)]>): FetchLike =>
  async (url) => {
    const u = String(url);
    const hit = routes.find(([re]) => re.test(u));
    if (!hit) return new Response('not found', { status: 404 });
    const body = typeof hit[1] === 'function' ? hit[1](u) : hit[1];
    if (body instanceof Error) throw body;
    if (typeof body === 'number') return new Response('upstream error', { status: body });
    return new Response(body);
  };
const timeout = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError');

interface SourceCase {
  adapter: SourceAdapter;
  now: Date;
  /** A series the replay writes, and its newest as_of. */
  key: string;
  asOf: string;
  /** Faults: [name, fetch, expected message]. */
  faults: Array<[string, FetchLike, RegExp]>;
  /** A good live answer that revises the value at `key`/`asOf` to `revised`. */
  revision: FetchLike;
  revised: number;
}

// ---- World Bank
const landing = '<a href="https://thedocs.worldbank.org/en/doc/x-0050012026/related/CMO-Historical-Data-Monthly.xlsx">Monthly</a>';
const pink = (spec: Partial<PinkSheetSpec>) => buildPinkSheet({ months: [{ period: '2025M11' }], ...spec });

// ---- USGS
const USGS_TEXT = new TextDecoder('windows-1252').decode(readFileSync(`${SAMPLES_DIR}usgs-mcs/MCS2026_Commodities_Data.csv`));
const cp1252 = (t: string) =>
  Uint8Array.from([...t].map((c) => (c === '\u2014' ? 0x97 : c === '\u2013' ? 0x96 : c === '\u00bd' ? 0xbd : c.charCodeAt(0) < 0x80 ? c.charCodeAt(0) : 0x3f)));
const copper2025 = /(COPPER,[^\r\n]*"Production: Mine, recoverable",thousand metric tons,2025,)"1,000"/;

// ---- NASS: one record per commodity URL
const nassFor = (over: Record<string, string | number>) => (url: string) => {
  const commodity = new URL(url).searchParams.get('commodity_desc')!;
  return nassBody([nassRecord({ commodity_desc: commodity, short_desc: `${commodity} - PROGRESS, MEASURED IN PCT PLANTED`, ...over })]);
};

// ---- FAS: rows for the commodity and marketing year of the URL
const esrFor =
  (over: (row: Record<string, unknown>) => Record<string, unknown> = (r) => r) =>
  (url: string) => {
    const [, cc, my] = /commodityCode\/(\d+)\/allCountries\/marketYear\/(\d+)/.exec(url)!;
    const week = cc === '107' ? `${Number(my) - 1}-12-02` : `${Number(my)}-03-31`;
    return JSON.stringify([
      over(esrRow({ commodityCode: Number(cc), countryCode: 5700, week, currentMYNetSales: 500000 })),
      over(esrRow({ commodityCode: Number(cc), countryCode: 1220, week, currentMYNetSales: 12345 })),
    ]);
  };

const buildCases = async (): Promise<Array<[string, SourceCase]>> => [
  [
    'worldbank',
    {
      adapter: worldbank,
      now: new Date('2025-12-03T17:00:00Z'),
      key: 'PRICE#GC',
      asOf: '2025-11-01',
      faults: [
        ['timeout', fake([/./, timeout()]), /failed: The operation was aborted due to timeout/],
        ['5xx', fake([/worldbank\.org/, 503]), /HTTP 503/],
        ['empty file', fake([/\.xlsx$/, ''], [/./, landing]), /empty body/],
        ['missing column', fake([/\.xlsx$/, await pink({ drop: ['COPPER'] })], [/./, landing]), /column COPPER \(HG\) is missing/],
        ['renamed field', fake([/\.xlsx$/, await pink({ rename: { MAIZE: 'CORN' } })], [/./, landing]), /column MAIZE \(ZC\) is missing/],
        ['NA value', fake([/\.xlsx$/, await pink({ months: [{ period: '2025M11', values: { GOLD: 'NA' } }] })], [/./, landing]), /GOLD: not a number: "NA"/],
      ],
      revision: fake([/\.xlsx$/, await pink({ months: [{ period: '2025M11', values: { GOLD: 4100.5 } }] })], [/./, landing]),
      revised: 4100.5,
    },
  ],
  [
    'usgs-mcs',
    {
      adapter: usgsMcs,
      now: new Date('2026-03-01T17:00:00Z'),
      key: 'USGS#copper#us_production',
      asOf: '2025-12-31',
      faults: [
        ['timeout', fake([/./, timeout()]), /aborted due to timeout/],
        ['5xx', fake([/./, 502]), /HTTP 502/],
        ['empty file', fake([/./, '']), /empty body/],
        ['missing column', fake([/./, cp1252(USGS_TEXT.replace(',Value,', ',Amount,'))]), /missing column\(s\) Value/],
        [
          'renamed field',
          fake([/./, cp1252(USGS_TEXT.replace(/"Production: Mine, recoverable"/g, '"Mine, recoverable"'))]),
          /COPPER has no row for us_production/,
        ],
        ['"." value', fake([/./, cp1252(USGS_TEXT.replace(copper2025, '$1.'))]), /value "\." is not a number or a documented USGS token/],
      ],
      revision: fake([/./, cp1252(USGS_TEXT.replace(copper2025, '$1"1,010"'))]),
      revised: 1010,
    },
  ],
  [
    'usda-wasde',
    {
      adapter: usdaWasde,
      now: new Date('2025-05-20T18:00:00Z'),
      key: 'WASDE#corn#US#2025/26',
      asOf: '2025-05-01',
      faults: [
        ['timeout', fake([/./, timeout()]), /aborted due to timeout/],
        ['5xx', fake([/wasde0425v2/, 500]), /HTTP 500/],
        ['empty file', fake([/wasde0425\.xml/, '']), /empty body/],
        [
          'missing column',
          fake(
            [/wasde0425\.xml/, wasdeMay2025('April 2025', 659)],
            [/wasde0525\.xml/, wasdeMay2025().replace(/forecast_month2="May"/g, 'forecast_month2="Jun"')],
          ),
          /no column for the report month may/,
        ],
        [
          'renamed field',
          fake(
            [/wasde0425\.xml/, wasdeMay2025('April 2025', 659)],
            [/wasde0525\.xml/, wasdeMay2025().replace('attribute2="Ending Stocks"', 'attribute2="Carryout"')],
          ),
          /line ending_stocks is missing/,
        ],
        [
          'NA value',
          fake(
            [/wasde0425\.xml/, wasdeMay2025('April 2025', 659)],
            [/wasde0525\.xml/, wasdeMay2025('May 2025', 660, cornMay2025({ Production: ['15,341', '14,867', 'NA', 'NA'] }))],
          ),
          /production 2025\/26 is NA/,
        ],
      ],
      revision: fake(
        [/wasde0425\.xml/, wasdeMay2025('April 2025', 659)],
        [/wasde0525\.xml/, wasdeMay2025('May 2025', 660, cornMay2025({ 'Ending Stocks': ['1,763', '1,415', 'NA', '1,825'] }))],
      ),
      revised: 1825,
    },
  ],
  [
    'usda-nass-crop-progress',
    {
      adapter: usdaNassCropProgress,
      now: new Date('2026-06-16T12:00:00Z'),
      // The replayed soybean table: planted is last reported for the week ending 2026-06-14 (95 %).
      key: 'CROP#soybeans#planted',
      asOf: '2026-06-14',
      faults: [
        ['timeout', fake([/./, timeout()]), /aborted due to timeout/],
        ['5xx', fake([/./, 503]), /HTTP 503/],
        ['empty file', fake([/./, '']), /empty body/],
        ['missing column', fake([/./, () => nassBody([{ ...nassRecord({}), week_ending: undefined } as never])]), /record 0: week_ending/],
        ['renamed field', fake([/./, () => nassBody([{ ...nassRecord({}), Value: undefined, value: '95' } as never])]), /record 0: Value/],
        ['NA value', fake([/./, nassFor({ Value: 'NA' })]), /Value "NA" is not a number or a NASS code/],
      ],
      revision: fake([/./, nassFor({ week_ending: '2026-06-14', year: 2026, Value: '96' })]),
      revised: 96,
    },
  ],
  [
    'usda-fas-esr',
    {
      adapter: usdaFasEsr,
      now: new Date('2022-04-08T12:00:00Z'),
      key: 'ESR#soybeans',
      asOf: '2022-03-31',
      faults: [
        ['timeout', fake([/./, timeout()]), /aborted due to timeout/],
        ['5xx', fake([/./, 500]), /HTTP 500/],
        ['empty file', fake([/./, '']), /empty body/],
        ['missing column', fake([/./, esrFor(({ outstandingSales: _, ...r }) => r)]), /row 0: outstandingSales/],
        ['renamed field', fake([/./, esrFor(({ currentMYNetSales, ...r }) => ({ ...r, netSales: currentMYNetSales }))]), /row 0: currentMYNetSales/],
        ['"." value', fake([/./, esrFor((r) => ({ ...r, weeklyExports: '.' }))]), /row 0: weeklyExports/],
      ],
      revision: fake([/./, esrFor()]),
      revised: 512345, // 500,000 + 12,345 over both destinations
    },
  ],
];

describe('fundamentals sources through the runner (embedded store)', async () => {
  const cases = await buildCases();
  let t: TestStore;
  beforeAll(async () => {
    t = await startTestStore({ NASS_API_KEY: 'nass-test-key', FAS_API_KEY: 'fas-test-key' });
  });
  afterAll(async () => t?.close());

  describe.each(cases)('%s', (_id, c) => {
    const replayAt = new Date('2026-11-21T22:00:00Z');

    it('replays its samples, and a re-run writes exactly the same items', async () => {
      const first = await runSource(c.adapter, { mode: 'replay', store: t.store, config: t.config, now: replayAt });
      expect(first.status, first.message).toBe('ok');
      const before = await t.store.range(c.key, { limit: 1000 });
      expect(before.items.at(-1)?.as_of).toBe(c.asOf);
      const again = await runSource(c.adapter, { mode: 'replay', store: t.store, config: t.config, now: replayAt });
      expect(again.items).toBe(first.items);
      expect(await t.store.range(c.key, { limit: 1000 })).toEqual(before);
    });

    it.each(c.faults)('fails on %s with a recorded error, and keeps the stored data', async (name, fetch, msg) => {
      const good = await t.store.latest(c.key);
      const r = await runSource(c.adapter, { mode: 'live', store: t.store, config: t.config, fetch, now: c.now });
      expect(r.status, name).toBe('failed');
      expect(r.message, name).toMatch(msg);
      const status = await t.store.getRunStatus(c.adapter.def.id);
      expect(status?.last_error, name).toMatch(msg);
      expect(status?.last_attempt_at).toBe(c.now.toISOString());
      expect(status?.last_success_at, name).toBe(replayAt.toISOString());
      expect(await t.store.latest(c.key), name).toEqual(good);
    });

    it('lets a revision overwrite the stored value of the same period', async () => {
      const r = await runSource(c.adapter, { mode: 'live', store: t.store, config: t.config, fetch: c.revision, now: c.now });
      expect(r.status, r.message).toBe('ok');
      const [item] = (await t.store.range(c.key, { start: c.asOf, end: c.asOf, limit: 1 })).items;
      expect(item).toMatchObject({ as_of: c.asOf, value: c.revised, retrieved_at: c.now.toISOString() });
      expect((await t.store.getRunStatus(c.adapter.def.id))?.last_error).toBeNull();
    });
  });
});
