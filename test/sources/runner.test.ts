import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fred } from '../../shared/sources/fred';
import { eiaSpot } from '../../shared/sources/eia-spot';
import { loadFreshness } from '../../shared/families/freshness';
import { createServices } from '../../shared/services';
import { releaseHeld } from '../../shared/sources/release';
import { runSource } from '../../shared/sources/runner';
import type { FetchLike, SourceAdapter } from '../../shared/sources/types';
import { startTestStore, type TestStore } from '../helpers/store';
import { WTI_AUGUST_2026 } from '../helpers/wti-august-2026';

const csv = (rows: string) => new Response(`observation_date,DEXUSEU\n${rows}`);

describe('runSource', () => {
  let t: TestStore;
  const now = new Date('2026-11-21T22:00:00Z');
  beforeAll(async () => {
    t = await startTestStore();
  });
  afterAll(async () => t.close());

  // Non-empty rows of the FRED samples: DTWEXBGS 624 rows less 24 holidays, DEXUSEU 605 less 25,
  // DEXCHUS 590 of 615 (2023-01-02..2025-05-09) plus 61 of 65 (2025-09-01..2025-11-28).
  const FRED_ITEMS = 600 + 580 + 651;

  it('replays the samples, records success, and writes the same items again on a re-run', async () => {
    const first = await runSource(fred, { mode: 'replay', store: t.store, config: t.config, now });
    expect(first).toMatchObject({ status: 'ok', items: FRED_ITEMS });
    const before = await t.store.range('PRICE#EURUSD', { limit: 1000 });
    const again = await runSource(fred, { mode: 'replay', store: t.store, config: t.config, now });
    expect(again.items).toBe(FRED_ITEMS);
    expect(await t.store.range('PRICE#EURUSD', { limit: 1000 })).toEqual(before);
    expect(await t.store.getRunStatus('fred')).toEqual({
      source: 'fred',
      last_attempt_at: now.toISOString(),
      last_success_at: now.toISOString(),
      last_error: null,
      last_items: FRED_ITEMS,
      last_mode: 'replay',
      last_outcome: 'ok',
      quarantined: [],
      // The newest FRED figure: the broad dollar index on 2026-05-22 (samples/fred/DTWEXBGS.csv; EUR/USD
      // ends 2026-04-24, USD/CNY 2025-11-28), and its series (what a past instant reads the source's newest from).
      data_newest: { as_of: '2026-05-22', freshness_class: 'eod', series: 'PRICE#DTWEXBGS' },
    });
  });

  it('keeps the last good data and records the error when the source answers 5xx, times out or sends garbage', async () => {
    const good = await t.store.latest('PRICE#EURUSD');
    const later = new Date('2026-11-22T22:00:00Z');
    const cases: Array<[string, FetchLike, RegExp]> = [
      ['5xx', async () => new Response('upstream down', { status: 502 }), /HTTP 502/],
      [
        'timeout',
        async () => {
          throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
        },
        /failed.*timeout/i,
      ],
      ['empty body', async () => new Response(''), /empty body/],
      [
        'non-numeric value',
        async (url) => (String(url).includes('DEXUSEU') ? csv('2025-12-01,NA\n') : new Response('observation_date,X\n')),
        /not a number|expected header/,
      ],
    ];
    for (const [name, fetch, msg] of cases) {
      const r = await runSource(fred, { mode: 'live', store: t.store, config: t.config, fetch, now: later });
      expect(r.status, name).toBe('failed');
      expect(r.message, name).toMatch(msg);
      const status = await t.store.getRunStatus('fred');
      expect(status?.last_error, name).toMatch(msg);
      expect(status?.last_success_at, name).toBe(now.toISOString()); // the earlier success stays on record
      expect(await t.store.latest('PRICE#EURUSD'), name).toEqual(good);
    }
  });

  it('writes nothing when one payload of a release is broken (no half-parsed writes)', async () => {
    // DTWEXBGS and DEXUSEU parse, DEXCHUS does not: none of the three may be written.
    const fetch: FetchLike = async (url) => {
      const u = String(url);
      if (u.includes('DEXCHUS')) return new Response('observation_date,DEXCHUS\n2026-11-20,seven\n');
      const id = u.includes('DEXUSEU') ? 'DEXUSEU' : 'DTWEXBGS';
      return new Response(`observation_date,${id}\n2026-11-20,1.5\n`);
    };
    const r = await runSource(fred, { mode: 'live', store: t.store, config: t.config, fetch, now });
    expect(r.status).toBe('failed');
    // Still the replayed newest figures (DEXUSEU to 2026-04-24, DTWEXBGS to 2026-05-22), not 2026-11-20.
    expect((await t.store.latest('PRICE#EURUSD'))?.as_of).toBe('2026-04-24');
    expect((await t.store.latest('PRICE#DTWEXBGS'))?.as_of).toBe('2026-05-22');
  });

  it('lets a revision overwrite the stored value for the same date', async () => {
    // Constructed revisions, each in its series' range (the guards hold a CNY rate of 1.2345).
    const revised: Record<string, number> = { DEXUSEU: 1.2345, DEXCHUS: 7.0777, DTWEXBGS: 121.2345 };
    const fetch: FetchLike = async (url) => {
      const id = Object.keys(revised).find((s) => String(url).includes(s))!;
      return new Response(`observation_date,${id}\n2025-11-28,${revised[id]}\n`);
    };
    const r = await runSource(fred, { mode: 'live', store: t.store, config: t.config, fetch, now });
    expect(r).toMatchObject({ status: 'ok', items: 3 });
    const day = await t.store.range('PRICE#EURUSD', { start: '2025-11-28', end: '2025-11-28', limit: 2 });
    expect(day.items).toEqual([expect.objectContaining({ as_of: '2025-11-28', value: 1.2345, retrieved_at: now.toISOString() })]);
  });

  it('skips a live source without its API key, with a clear message and no crash, and records the attempt as not ok', async () => {
    const r = await runSource(eiaSpot, { mode: 'live', store: t.store, config: t.config, now });
    expect(r).toEqual({ source: 'eia-spot', status: 'skipped', items: 0, message: 'eia-spot: live mode needs EIA_API_KEY; skipped' });
    expect(await t.store.getRunStatus('eia-spot')).toEqual({
      source: 'eia-spot',
      last_attempt_at: now.toISOString(),
      last_success_at: null,
      last_error: 'eia-spot: live mode needs EIA_API_KEY; skipped',
      last_items: null,
      last_outcome: 'skipped',
    });
  });

  it('collapses identical duplicates of a date and refuses a run whose duplicates disagree, recording why', async () => {
    const doubled: SourceAdapter = { ...fred, toItems: (p, ctx) => fred.toItems(p, ctx).flatMap((i) => [i, i]) };
    expect(await runSource(doubled, { mode: 'replay', store: t.store, config: t.config, now })).toMatchObject({ status: 'ok', items: FRED_ITEMS });
    const conflicting: SourceAdapter = {
      ...fred,
      toItems: (p, ctx) =>
        fred.toItems(p, ctx).flatMap((i, n) => (n === 0 ? [i, { ...i, observation: { ...i.observation, value: i.observation.value + 1 } }] : [i])),
    };
    const r = await runSource(conflicting, { mode: 'replay', store: t.store, config: t.config, now });
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/^fred: two different observations of PRICE#\w+ for \d{4}-\d{2}-\d{2} \(values [\d.]+ and [\d.]+\); the run is refused$/);
    expect(await t.store.getRunStatus('fred')).toMatchObject({ last_error: r.message, last_outcome: 'failed', last_success_at: now.toISOString() });
  });

  it('refuses observations that break the contract (NaN) before writing anything', async () => {
    const broken: SourceAdapter = {
      ...fred,
      toItems: (p, ctx) => fred.toItems(p, ctx).map((i) => ({ ...i, observation: { ...i.observation, value: Number.NaN } })),
    };
    const r = await runSource(broken, { mode: 'replay', store: t.store, config: t.config, now });
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/not a valid observation.*value/);
  });
});

describe('runSource guards: bad source data never reaches an agent', () => {
  let t: TestStore;
  const now = new Date('2026-11-21T22:00:00Z');
  beforeAll(async () => {
    t = await startTestStore();
    await runSource(fred, { mode: 'replay', store: t.store, config: t.config, now });
  });
  afterAll(async () => t.close());

  /** FRED's samples with one row of EURUSD changed by `edit`. */
  const editedFred = (edit: (o: { as_of: string; value: number }) => { as_of: string; value: number }): SourceAdapter => ({
    ...fred,
    toItems: (p, ctx) =>
      fred.toItems(p, ctx).map((i, n) => (i.seriesKey === 'PRICE#EURUSD' && n === 0 ? { ...i, observation: { ...i.observation, ...edit(i.observation) } } : i)),
  });

  it('refuses a whole run with an observation dated after tomorrow; the stored data stays as it was', async () => {
    const before = await t.store.latest('PRICE#EURUSD');
    const r = await runSource(
      editedFred((o) => ({ ...o, as_of: '2099-01-01' })),
      { mode: 'replay', store: t.store, config: t.config, now },
    );
    expect(r.status).toBe('failed');
    expect(r.message).toBe('fred: 1 observation(s) dated after tomorrow (e.g. PRICE#EURUSD 2099-01-01); the run is refused');
    expect(await t.store.latest('PRICE#EURUSD')).toEqual(before);
    expect((await t.store.getRunStatus('fred'))?.last_error).toMatch(/dated after tomorrow/);
    // tomorrow itself is allowed (a publisher a time zone ahead): 2026-11-22 on 2026-11-21
    const ok = await runSource(
      editedFred((o) => ({ ...o, as_of: '2026-11-22' })),
      { mode: 'replay', store: t.store, config: t.config, now },
    );
    expect(ok.status).toBe('ok');
    expect(await t.store.deleteRange('PRICE#EURUSD', '2026-11-22', '2026-11-22')).toBe(1);
  });

  it('quarantines an implausible price (outside its band) and writes the rest; the hold survives a failed run', async () => {
    const r = await runSource(
      editedFred((o) => ({ ...o, value: 7_253_000 })),
      { mode: 'replay', store: t.store, config: t.config, now },
    );
    expect(r).toMatchObject({ status: 'ok', items: 600 + 580 + 651 - 1 }); // every FRED figure but the held one
    expect(r.message).toMatch(/1 price\(s\) held in quarantine/);
    const status = await t.store.getRunStatus('fred');
    expect(status?.quarantined).toEqual([
      expect.objectContaining({
        series: 'PRICE#EURUSD',
        as_of: expect.any(String),
        value: 7_253_000,
        reason: 'outside the plausible band 0..10 USD/EUR',
        release: 'operator',
        held_since: now.toISOString(),
      }),
    ]);
    const held = status!.quarantined![0]!;
    expect((await t.store.range('PRICE#EURUSD', { start: held.as_of, end: held.as_of, limit: 1 })).items[0]?.value).not.toBe(7_253_000);
    // A failed run later (the publisher is down) records its error and keeps the list until a release.
    const failed = await runSource(fred, { mode: 'live', store: t.store, config: t.config, fetch: async () => new Response('down', { status: 503 }), now });
    expect(failed.status).toBe('failed');
    expect((await t.store.getRunStatus('fred'))?.quarantined).toEqual(status?.quarantined);
  });
});

describe('runSource guards: a poisoned latest and a real extreme', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await startTestStore();
  });
  afterAll(async () => t.close());

  /** An eia-spot adapter whose payload is a JSON list of [as_of, value] WTI rows. */
  const rows: SourceAdapter = {
    ...eiaSpot,
    toItems: (p) =>
      (JSON.parse(new TextDecoder().decode(p.body)) as Array<[string, number]>).map(([as_of, value]) => ({
        seriesKey: 'PRICE#CL',
        observation: {
          instrument: 'CL',
          value,
          unit: 'USD/bbl',
          as_of,
          observed_at: null,
          freshness_class: 'eod',
          quality: 'official',
          derived: false,
          source: { name: 'test rows', series_id: 'RWTC', url: null },
          license_tag: 'public-domain (US government work)',
          retrieved_at: p.retrievedAt,
          published_at: null,
          next_release_at: null,
          attributes: {},
        },
      })),
  };
  const runWith = (data: Array<[string, number]>, now: string) =>
    runSource(
      { ...rows, samples: async () => [{ name: 'rows', body: new TextEncoder().encode(JSON.stringify(data)), retrievedAt: now }] },
      {
        mode: 'replay',
        store: t.store,
        config: t.config,
        now: new Date(now),
      },
    );

  it('serves 70 as the latest, not -99, after the audit rows 70, 9.0, 7,253,000, -99; /health keeps listing the three', async () => {
    // EIA RWTC 2026-08-05..2026-08-18 (fixtures/eia/daily.RWTC…csv), then the audit's rows.
    const august = WTI_AUGUST_2026.map(([d, v]): [string, number] => [d, v]);
    expect(await runWith(august, '2026-08-19T15:00:00.000Z')).toMatchObject({ status: 'ok', items: 10, quarantined: 0 });
    const poisoned = await runWith(
      [
        ['2026-08-19', 70],
        ['2026-08-20', 9],
        ['2026-08-21', 7_253_000],
        ['2026-08-24', -99],
      ],
      '2026-08-25T15:00:00.000Z',
    );
    expect(poisoned).toMatchObject({ status: 'ok', items: 1, quarantined: 3 });
    expect((await t.store.latest('PRICE#CL'))?.value).toBe(70);
    const held = (await t.store.getRunStatus('eia-spot'))!.quarantined!;
    expect(held.map((h) => [h.as_of, h.value])).toEqual([
      ['2026-08-20', 9],
      ['2026-08-21', 7_253_000],
      ['2026-08-24', -99],
    ]);
    // /health lists them (what GET /health serves per source)
    const services = createServices(t.config, { doc: t.doc, store: t.store });
    const [health] = await loadFreshness(services, ['eia-spot']);
    expect(health!.quarantined.map((h) => [h.as_of, h.value])).toEqual(held.map((h) => [h.as_of, h.value]));
    // The next day's normal run does not confirm them; they stay held (and dated from their first hold).
    await runWith([['2026-08-25', 71.2]], '2026-08-26T15:00:00.000Z');
    expect((await t.store.latest('PRICE#CL'))?.value).toBe(71.2);
    expect((await t.store.getRunStatus('eia-spot'))!.quarantined!.map((h) => [h.value, h.held_since])).toEqual([
      [9, '2026-08-25T15:00:00.000Z'],
      [7_253_000, '2026-08-25T15:00:00.000Z'],
      [-99, '2026-08-25T15:00:00.000Z'],
    ]);
  });

  it("lets WTI's -37.63 of 2020-04-20 in by an operator's release, and a replay keeps it", async () => {
    // -37.63 as the issue states it; the days around it are constructed.
    const april: Array<[string, number]> = [
      ['2020-04-14', 20.1],
      ['2020-04-15', 19.9],
      ['2020-04-16', 19.8],
      ['2020-04-17', 18.3],
      ['2020-04-20', -37.63],
      ['2020-04-21', 8.91],
    ];
    await runWith(april, '2020-04-22T15:00:00.000Z');
    expect((await t.store.range('PRICE#CL', { start: '2020-04-20', end: '2020-04-20', limit: 1 })).items).toEqual([]);
    expect(await releaseHeld(t.store, 'PRICE#CL', '2020-04-20')).toMatchObject({ source: 'eia-spot', held: { value: -37.63 } });
    expect((await t.store.range('PRICE#CL', { start: '2020-04-20', end: '2020-04-20', limit: 1 })).items[0]?.value).toBe(-37.63);
    expect((await t.store.getRunStatus('eia-spot'))!.quarantined!.map((h) => h.as_of)).not.toContain('2020-04-20');
    // the same rows again: the released figure is stored, so it is accepted, not held again
    expect(await runWith(april, '2020-04-23T15:00:00.000Z')).toMatchObject({ status: 'ok', items: 6, quarantined: 0 });
    expect(await releaseHeld(t.store, 'PRICE#CL', '1999-01-01')).toBeNull();
  });
});

describe('runSource error records', () => {
  it('never stores a configured API key in last_error, even when an adapter leaks it', async () => {
    const t = await startTestStore({ EIA_API_KEY: 'k3y/with+chars' });
    try {
      const leaky: SourceAdapter = {
        ...eiaSpot,
        live: async () => {
          throw new Error('GET https://api.eia.gov/v2/x?api_key=k3y%2Fwith%2Bchars failed; key k3y/with+chars');
        },
      };
      const r = await runSource(leaky, { mode: 'live', store: t.store, config: t.config });
      expect(r.message).toBe('GET https://api.eia.gov/v2/x?api_key=*** failed; key ***');
      expect((await t.store.getRunStatus('eia-spot'))?.last_error).toBe(r.message);
    } finally {
      await t.close();
    }
  });
});
