/**
 * The three weekly sources through the real ingestion runner against the embedded store:
 * replay, idempotent re-runs, faults that must fail the run and keep the stored data, revisions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cftcCot, unzipSingle } from '../../shared/sources/cftc-cot';
import { eiaGasStorage, eiaPetroleum } from '../../shared/sources/eia-inventory';
import { runSource } from '../../shared/sources/runner';
import { PointInTimeStore } from '../../shared/store/point-in-time-store';
import type { FetchLike, SourceAdapter } from '../../shared/sources/types';
import { startTestStore, type TestStore } from '../helpers/store';

const doc = (rows: unknown[]) => JSON.stringify({ response: { total: String(rows.length), data: rows } });
/** A v2 answer for whichever series the URL asks for, with the given value (or value per series) on 2026-02-06. */
const eiaAnswer =
  (value: unknown): FetchLike =>
  async (url) => {
    const id = /seriesid\/([^?]+)/.exec(String(url))![1]!;
    const bare = id.replace(/^(PET|NG)\./, '').replace(/\.W$/, '');
    const units = bare === 'WCRRIUS2' ? 'MBBL/D' : bare === 'WPULEUS3' ? '%' : bare.startsWith('NW2') ? 'BCF' : 'MBBL';
    const v = typeof value === 'function' ? (value as (id: string) => unknown)(bare) : value;
    return new Response(doc([{ period: '2026-02-06', series: bare, value: v, units }]));
  };

describe('inventory and COT sources through runSource', () => {
  let t: TestStore;
  const now = new Date('2026-11-21T22:00:00Z');
  const later = new Date('2026-11-28T22:00:00Z');
  beforeAll(async () => {
    t = await startTestStore({ EIA_API_KEY: 'test-key' });
  });
  afterAll(async () => t.close());

  // Every week of the samples: 4 psw01 series x 371 + WPULEUS3 360 + Cushing 396; Lower 48 369; 20 CFTC markets x 178.
  const adapters: Array<[SourceAdapter, number, string]> = [
    [eiaPetroleum, 4 * 371 + 360 + 396, 'INV#crude_ex_spr'],
    [eiaGasStorage, 369, 'INV#ng_storage'],
    [cftcCot, 20 * 178, 'COT#CL'],
  ];
  /** The rows of the newest report (2026-05-26) in the 2026 annual sample: a weekly f_disagg.txt of the mapped markets. */
  const latestWeekly = async () => {
    const zip = (await cftcCot.samples()).find((p) => p.name.endsWith('_2026.zip'))!;
    return new TextDecoder()
      .decode(unzipSingle(zip.body, zip.name).data)
      .split('\r\n')
      .filter((l) => l.includes(',2026-05-26,'))
      .join('\r\n');
  };

  it.each(adapters)('%s replays its samples, and a re-run writes the same items', async (adapter, count, key) => {
    const first = await runSource(adapter, { mode: 'replay', store: t.store, config: t.config, now });
    expect(first).toMatchObject({ status: 'ok', items: count });
    const before = await t.store.range(key, { limit: 1000 });
    const again = await runSource(adapter, { mode: 'replay', store: t.store, config: t.config, now });
    expect(again.items).toBe(count);
    expect(await t.store.range(key, { limit: 1000 })).toEqual(before);
  });

  const timeout: FetchLike = async () => {
    throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
  };
  const eiaFaults: Array<[string, FetchLike, RegExp]> = [
    ['timeout', timeout, /failed.*timeout/i],
    ['5xx', async () => new Response('bad gateway', { status: 502 }), /HTTP 502/],
    ['empty body', async () => new Response(''), /empty body/],
    ['renamed field (value -> amount)', async () => new Response(doc([{ period: '2026-02-06', amount: '1' }])), /value/],
    ['missing column (no period)', async () => new Response(doc([{ value: '1' }])), /period/],
    ['"." value', eiaAnswer('.'), /non-numeric/],
    ['"NA" value', eiaAnswer('NA'), /non-numeric/],
    ['all values withheld', eiaAnswer(null), /no observations in payload/],
  ];

  it.each(eiaFaults)('EIA %s: the run fails, the error is recorded, stored data stays', async (name, fetch, msg) => {
    for (const [adapter, , key] of adapters.slice(0, 2)) {
      const good = await t.store.range(key, { limit: 1000 });
      const r = await runSource(adapter, { mode: 'live', store: t.store, config: t.config, fetch, now: later });
      expect(r.status, name).toBe('failed');
      expect(r.message, name).toMatch(msg);
      expect(r.message, name).not.toMatch(/test-key/);
      const status = await t.store.getRunStatus(adapter.def.id);
      expect(status?.last_error, name).toMatch(msg);
      expect(status?.last_success_at, name).toBe(now.toISOString());
      expect(await t.store.range(key, { limit: 1000 }), name).toEqual(good);
    }
  });

  const cotFaults: Array<[string, FetchLike, RegExp]> = [
    ['timeout', timeout, /failed.*timeout/i],
    ['5xx', async () => new Response('unavailable', { status: 503 }), /HTTP 503/],
    ['empty body', async () => new Response(''), /empty body/],
    [
      'missing column',
      async () => new Response('"WTI-PHYSICAL - NEW YORK MERCANTILE EXCHANGE",260414,2026-04-14,067651,NYME,01,067 , 2094492\n'),
      /columns, expected 191/,
    ],
    [
      'renamed column',
      async () =>
        new Response('"Market_and_Exchange_Names","As_of_Date_In_Form_YYMMDD","Report_Date","CFTC_Contract_Market_Code"\n"X",260414,2026-04-14,067651\n'),
      /missing column Report_Date_as_YYYY-MM-DD/,
    ],
    ['an unrelated document', async () => new Response('<html><body>Maintenance</body></html>'), /columns, expected 191|no observations/],
  ];

  it.each(cotFaults)('CFTC %s: the run fails, the error is recorded, stored data stays', async (name, fetch, msg) => {
    const good = await t.store.range('COT#CL', { limit: 1000 });
    const r = await runSource(cftcCot, { mode: 'live', store: t.store, config: t.config, fetch, now: later });
    expect(r.status, name).toBe('failed');
    expect(r.message, name).toMatch(msg);
    expect((await t.store.getRunStatus('cftc-cot'))?.last_error, name).toMatch(msg);
    expect(await t.store.range('COT#CL', { limit: 1000 }), name).toEqual(good);
  });

  it('CFTC "." / "NA" in a position fails the run and writes nothing of the release', async () => {
    const weekly = await latestWeekly();
    // Break gold's managed-money long; WTI in the same file parses but must not be written either.
    const broken = weekly.replace(/("GOLD - COMMODITY EXCHANGE INC\.",260526,2026-05-26,088691,(?:[^,]*,){9})[^,]*/, '$1      .');
    expect(broken).not.toBe(weekly);
    const revisedWti = broken.replace(/("WTI-PHYSICAL[^"]*",260526,2026-05-26,067651,(?:[^,]*,){9})[^,]*/, '$1  999999');
    expect(revisedWti).not.toBe(broken);
    const r = await runSource(cftcCot, { mode: 'live', store: t.store, config: t.config, fetch: async () => new Response(revisedWti), now: later });
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/088691.*M_Money_Positions_Long_All: not a whole number/);
    expect((await t.store.latest('COT#CL'))?.attributes.mm_long).toBe(200581); // WTI 2026-05-26 as replayed
  });

  // The revised values below (428,900 Mbbl, 90.5 %, 200,000 contracts) are test values, not publications.
  it('EIA revision: a re-published week replaces the current value and keeps the old one as a vintage', async () => {
    const r = await runSource(eiaPetroleum, {
      mode: 'live',
      store: t.store,
      config: t.config,
      fetch: eiaAnswer((id: string) => (id === 'WPULEUS3' ? '90.5' : '428900')),
      now: later,
    });
    expect(r).toMatchObject({ status: 'ok', items: 6 }); // one week of each of the 6 series, refinery_util included
    // Five revisions: refinery utilisation's replayed weeks end 2025-11-21, so its 2026-02-06 is a first print.
    expect(r.message).toMatch(/5 revision\(s\), the old values kept as vintages/);
    expect(await t.store.latest('INV#crude_ex_spr')).toMatchObject({
      as_of: '2026-02-06',
      value: 428900,
      retrieved_at: later.toISOString(),
      known_from: later.toISOString(),
    });
    expect((await t.store.range('INV#crude_ex_spr', { limit: 1000 })).items).toHaveLength(371); // replaced, not added
    expect(await t.store.latest('INV#refinery_util')).toMatchObject({ value: 90.5, unit: '%', as_of: '2026-02-06' });
    // The week as first published (WCESTUS1 2026-02-06 = 428,829, fixtures/eia/SOURCE.md), known from the
    // WPSR of Wednesday 2026-02-11 10:30 ET until the run that saw the revision.
    const [old] = await t.store.vintages('INV#crude_ex_spr', '2026-02-06', '2026-02-06');
    expect(old).toMatchObject({ value: 428829, known_from: '2026-02-11T15:30:00.000Z', known_to: later.toISOString() });
    expect((await new PointInTimeStore(t.store, new Date('2026-11-01T00:00:00Z')).latest('INV#crude_ex_spr'))?.value).toBe(428829);
    expect((await new PointInTimeStore(t.store, later).latest('INV#crude_ex_spr'))?.value).toBe(428900);
    // The same revision fetched again is no new revision: one vintage, and the revision keeps its known-from.
    const again = await runSource(eiaPetroleum, {
      mode: 'live',
      store: t.store,
      config: t.config,
      fetch: eiaAnswer((id: string) => (id === 'WPULEUS3' ? '90.5' : '428900')),
      now: new Date('2026-12-05T22:00:00Z'),
    });
    expect(again.message).not.toMatch(/revision/);
    expect(await t.store.vintages('INV#crude_ex_spr', '2026-02-06', '2026-02-06')).toHaveLength(1);
    expect((await t.store.latest('INV#crude_ex_spr'))?.known_from).toBe(later.toISOString());
  });

  it('CFTC revision: a re-published report overwrites the stored one', async () => {
    const weekly = await latestWeekly();
    const revised = weekly.replace(/("WTI-PHYSICAL[^"]*",260526,2026-05-26,067651,(?:[^,]*,){9})[^,]*/, '$1  200000');
    expect(revised).not.toBe(weekly);
    const r = await runSource(cftcCot, { mode: 'live', store: t.store, config: t.config, fetch: async () => new Response(revised), now: later });
    expect(r).toMatchObject({ status: 'ok', items: 20 }); // the 20 mapped markets of that week
    expect(await t.store.latest('COT#CL')).toMatchObject({ as_of: '2026-05-26', value: 200000 - 120657, attributes: { mm_long: 200000 } });
    // Only WTI changed: one vintage, the report as the CFTC released it on Friday 2026-05-29 15:30 ET
    // (067651 on 2026-05-26: MM long 200581, short 120657, fixtures/cftc/SOURCE.md).
    expect(r.message).toMatch(/1 revision\(s\)/);
    const [old] = await t.store.vintages('COT#CL', '2026-05-26', '2026-05-26');
    expect(old).toMatchObject({ value: 200581 - 120657, known_from: '2026-05-29T19:30:00.000Z', known_to: later.toISOString() });
    expect(await t.store.vintages('COT#GC', '2026-05-26', '2026-05-26')).toEqual([]);
  });
});
