import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fred } from '../../shared/sources/fred';
import { eiaSpot } from '../../shared/sources/eia-spot';
import { runSource } from '../../shared/sources/runner';
import type { FetchLike, SourceAdapter } from '../../shared/sources/types';
import { startTestStore, type TestStore } from '../helpers/store';

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
      last_quarantined: [],
      // The newest FRED figure: the broad dollar index on 2026-05-22 (samples/fred/DTWEXBGS.csv; EUR/USD
      // ends 2026-04-24, USD/CNY 2025-11-28).
      data_newest: { as_of: '2026-05-22', freshness_class: 'eod' },
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
    const fetch: FetchLike = async (url) => {
      const id = ['DEXUSEU', 'DEXCHUS', 'DTWEXBGS'].find((s) => String(url).includes(s))!;
      return new Response(`observation_date,${id}\n2025-11-28,1.2345\n`);
    };
    const r = await runSource(fred, { mode: 'live', store: t.store, config: t.config, fetch, now });
    expect(r).toMatchObject({ status: 'ok', items: 3 });
    const day = await t.store.range('PRICE#EURUSD', { start: '2025-11-28', end: '2025-11-28', limit: 2 });
    expect(day.items).toEqual([expect.objectContaining({ as_of: '2025-11-28', value: 1.2345, retrieved_at: now.toISOString() })]);
  });

  it('skips a live source without its API key, with a clear message and no crash', async () => {
    const r = await runSource(eiaSpot, { mode: 'live', store: t.store, config: t.config, now });
    expect(r).toEqual({ source: 'eia-spot', status: 'skipped', items: 0, message: 'eia-spot: live mode needs EIA_API_KEY; skipped' });
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

  it('quarantines an implausible price (outside its band) and writes the rest; /health lists it', async () => {
    const r = await runSource(
      editedFred((o) => ({ ...o, value: 7_253_000 })),
      { mode: 'replay', store: t.store, config: t.config, now },
    );
    expect(r).toMatchObject({ status: 'ok', items: 600 + 580 + 651 - 1 }); // every FRED figure but the held one
    expect(r.message).toMatch(/1 implausible price\(s\) quarantined/);
    const status = await t.store.getRunStatus('fred');
    expect(status?.last_quarantined).toEqual([
      { series: 'PRICE#EURUSD', as_of: expect.any(String), value: 7_253_000, reason: 'outside the plausible band 0..10 USD/EUR' },
    ]);
    const held = status!.last_quarantined![0]!;
    expect((await t.store.range('PRICE#EURUSD', { start: held.as_of, end: held.as_of, limit: 1 })).items[0]?.value).not.toBe(7_253_000);
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
