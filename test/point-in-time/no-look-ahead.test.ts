/**
 * No look-ahead in `as_known_at` (issue 34): over the replay store (every source's bundled samples,
 * through the real runner) and the real routes (the local server's family handlers), no figure
 * served at an instant, leg, input or pack signal included, had been released after that instant.
 *
 * The release floors below are not the service's calendar: they are what the recorded publications
 * and the publishers' stated schedules say, written out here, and each is the earliest instant the
 * figure can have been out (a holiday or a delay only makes a release later):
 * - EIA spot prices: the workbook of Wednesday 2025-06-18 (fixtures/eia/PET_PRI_SPT_S1_D.xls, stamped
 *   10:40:51 AM) ends on Monday 6/16 for crude, gasoline and ULSD; Henry Hub's of Wednesday 2024-07-10
 *   (RNGWHHDd.xls, stamped 12:16:47 PM) and 2026-08-19 end on the Tuesday. A day's price is out no
 *   earlier than the Wednesday 2 (petroleum) or 1 (gas) days or more after it, 10:30 ET (the WPSR time).
 * - EIA WPSR: Wednesday after the week, 10:30 ET; the week ending 2025-11-28 was not published on
 *   time on 2025-12-03 (EIA statement of that day). WNGSR: Thursday 10:30 ET, Wednesday 12:00 ET at
 *   the earliest (a Thursday holiday).
 * - CFTC COT: the Friday of the report week, 15:30 ET. FRED H.10 rates: the Monday after, 16:15 ET.
 * - World Bank Pink Sheet: the second business day of the next month (every "Updated on" date in
 *   fixtures/worldbank/SOURCE.md is one), from the start of that day, Eastern.
 * - USGS MCS 2026: first posted 2026-02-06 (fixtures/usgs/SOURCE.md), from the start of that day.
 * - WASDE: from the 8th of the report month, 12:00 ET (its days run 8th-14th). NASS crop progress:
 *   the Monday after the week, 16:00 ET. FAS export sales: the Thursday after the week, 08:30 ET.
 *
 * Each example of the issue is a test of its own below; each failed before the fix.
 * NO_LOOK_AHEAD_INSTANTS sets a longer run (default 2,000 instants, seeded).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../../infra/local/server';
import { federalHoliday } from '../../shared/calendar';
import { atLocal } from '../../shared/calendar/zoned';
import { loadConfig } from '../../shared/config';
import { addDays } from '../../shared/dates';
import { createServices } from '../../shared/services';
import { ADAPTERS } from '../../shared/sources/adapters';
import { runSource } from '../../shared/sources/runner';
import { MemoryObservationStore } from '../../shared/store/memory-observation-store';
import { fixtureText, HAVE_FIXTURES } from '../helpers/fixtures';
import { walkObservations } from '../helpers/walk-observations';

const ET = 'America/New_York';
const weekday = (d: string) => new Date(`${d}T00:00:00Z`).getUTCDay(); // 0 = Sunday
/** The first date on or after `d` with JS weekday `w`. */
const onOrAfter = (d: string, w: number) => addDays(d, (w - weekday(d) + 7) % 7);
const WPSR_SERIES = new Set(['crude_ex_spr', 'cushing', 'gasoline', 'distillate', 'refinery_util', 'crude_runs']);

/** The second business day (weekdays, not a federal holiday) of the month after `asOf`'s. */
const secondBusinessDayAfter = (asOf: string): string => {
  let d = addDays(`${asOf.slice(0, 7)}-28`, 4)
    .slice(0, 7)
    .concat('-01');
  let n = 0;
  for (;;) {
    if (weekday(d) % 6 !== 0 && !federalHoliday(d)) n += 1;
    if (n === 2) return d;
    d = addDays(d, 1);
  }
};

/**
 * The earliest instant a served observation can have been released, from the recorded facts above;
 * null for a figure this service computes (its inputs are served beside it and checked themselves).
 */
const releaseFloor = (o: { instrument: string; as_of: string; source: { name: string | null } | null }): string | null => {
  const name = o.source?.name ?? '';
  const code = o.instrument.split(':')[0]!;
  const d = o.as_of;
  if (name.startsWith('U.S. Energy Information Administration') && ['CL', 'BZ', 'HO', 'RB', 'NG'].includes(o.instrument)) {
    const wednesday = onOrAfter(addDays(d, o.instrument === 'NG' ? 1 : 2), 3);
    if (wednesday === '2025-06-18' && o.instrument !== 'NG') return atLocal(wednesday, 10, 40, ET, 51);
    if (wednesday === '2024-07-10' && o.instrument === 'NG') return atLocal(wednesday, 12, 16, ET, 47);
    return atLocal(wednesday, 10, 30, ET);
  }
  if (WPSR_SERIES.has(o.instrument)) {
    // Not on time on 2025-12-03: out after 10:30 ET that day at the earliest.
    return d === '2025-11-28' ? atLocal('2025-12-03', 10, 30, ET, 1) : atLocal(addDays(d, 5), 10, 30, ET);
  }
  if (o.instrument === 'ng_storage') return atLocal(addDays(d, 5), 12, 0, ET);
  if (name.startsWith('U.S. Commodity Futures Trading Commission')) return atLocal(onOrAfter(d, 5), 15, 30, ET);
  if (name.startsWith('World Bank')) return atLocal(secondBusinessDayAfter(d), 0, 0, ET);
  if (code === 'USGS') return atLocal('2026-02-06', 0, 0, ET);
  if (name.startsWith('Federal Reserve Bank of St. Louis')) return atLocal(onOrAfter(addDays(d, 1), 1), 16, 15, ET);
  if (code === 'WASDE') return atLocal(`${d.slice(0, 7)}-08`, 12, 0, ET);
  if (code === 'CROP') return atLocal(addDays(d, 1), 16, 0, ET);
  if (code === 'ESR') return atLocal(addDays(d, 7), 8, 30, ET);
  if (name.startsWith('computed by this service')) return null;
  throw new Error(`no release floor for ${o.instrument} (${name})`);
};

/** Routes a past instant is asked on, the costly packs less often (their inputs are on the other routes too). */
const ROUTES: ReadonlyArray<readonly [string, number]> = [
  ['/v1/price/CL', 6],
  ['/v1/price/NG', 4],
  ['/v1/price/HO', 3],
  ['/v1/prices?codes=CL,BZ,NG,HO,RB,GC,SI,HG,ZC,ZS,EURUSD,USDCNY,DTWEXBGS', 8],
  ['/v1/history/BZ?limit=20', 4],
  ['/v1/history/GC?limit=6', 4],
  ['/v1/fx/EURUSD', 3],
  ['/v1/inventory/eia/crude_ex_spr?view=full', 4],
  ['/v1/inventory/eia/ng_storage?view=full', 3],
  ['/v1/inventory/eia?view=full', 1],
  ['/v1/cot/GC', 2],
  ['/v1/cot/ZC', 2],
  ['/v1/spreads/crack', 4],
  ['/v1/spreads/crush', 4],
  ['/v1/spreads/basis', 4],
  ['/v1/fundamentals/wasde?view=full', 2],
  ['/v1/fundamentals/crop-progress?view=full', 2],
  ['/v1/fundamentals/export-sales?view=full', 2],
  ['/v1/fundamentals/usgs?view=full', 2],
  ['/v1/snapshot/metals?view=full', 2],
  ['/v1/snapshot/energy?view=full', 1],
];
const PACKS = ['/v1/decision/energy?view=full', '/v1/decision/metals?view=full', '/v1/decision/ags?view=full', '/v1/decision/all?view=full'];

/** mulberry32: a seeded generator, so a failure names an instant that fails again. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

/**
 * The instants asked: uniform over 2024-2026, and as many again where releases happen (each month's
 * second business day before dawn and at noon Eastern, each Wednesday around 10:30 ET), where an
 * early stamp shows.
 */
const instants = (count: number): string[] => {
  const random = seeded(34);
  const from = Date.parse('2024-01-01T00:00:00Z');
  const to = Date.parse('2026-11-26T00:00:00Z');
  const out: string[] = [];
  for (let i = 0; i < count / 2; i++) out.push(new Date(from + Math.floor(random() * ((to - from) / 60_000)) * 60_000).toISOString());
  const days = Math.floor((to - from) / 86_400_000);
  while (out.length < count) {
    const day = new Date(from + Math.floor(random() * days) * 86_400_000).toISOString().slice(0, 10);
    const month = secondBusinessDayAfter(`${addDays(day, -31).slice(0, 7)}-01`);
    const hot = random() < 0.5 ? [month, Math.floor(random() * 20) * 60] : [onOrAfter(day, 3), 14 * 60 + Math.floor(random() * 120)];
    out.push(new Date(Date.parse(`${hot[0]}T00:00:00Z`) + Number(hot[1]) * 60_000).toISOString());
  }
  return out;
};

describe('as_known_at never serves a figure before its release (replay store, every route)', () => {
  let server: LocalServer;
  const store = new MemoryObservationStore();
  const get = async (path: string, at: string) => {
    const res = await fetch(`${server.url}${path}${path.includes('?') ? '&' : '?'}as_known_at=${encodeURIComponent(at)}`);
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    const config = loadConfig({ OBSERVATIONS_TABLE: 'obs', CREDITS_TABLE: 'cred' });
    for (const adapter of Object.values(ADAPTERS)) {
      const r = await runSource(adapter, { mode: 'replay', store, config });
      if (r.status !== 'ok') throw new Error(r.message);
    }
    server = await startLocalServer(createServices(config, { store }), 0);
  }, 120_000);
  afterAll(async () => server?.close());

  /** Every observation of a body that was out after `at`, with why. */
  const lookAhead = (body: unknown, at: string): string[] =>
    (walkObservations(body) as any[]).flatMap((o) => {
      const floor = releaseFloor(o);
      const why = [
        Date.parse(o.attributes.known_from) > Date.parse(at) ? `known_from ${o.attributes.known_from}` : null,
        o.published_at && Date.parse(o.published_at) > Date.parse(at) ? `published_at ${o.published_at}` : null,
        floor && Date.parse(floor) > Date.parse(at) ? `released no earlier than ${floor}` : null,
      ].filter(Boolean);
      return why.length ? [`${o.instrument} ${o.as_of} (${o.source?.name?.slice(0, 40)}): ${why.join(', ')}`] : [];
    });

  it('a few thousand seeded instants across 2024-2026, each on a route: no figure, leg, input or signal ahead of it', async () => {
    const all = instants(Number(process.env.NO_LOOK_AHEAD_INSTANTS ?? 2000));
    const weighted = ROUTES.flatMap(([path, weight]) => Array<string>(weight).fill(path));
    const found: string[] = [];
    const answered = new Map<string, number>();
    for (let i = 0; i < all.length; i++) {
      // Every 25th instant asks a decision pack (each takes a few hundred ms); the others a route by weight.
      const path = i % 25 === 0 ? PACKS[(i / 25) % PACKS.length]! : weighted[i % weighted.length]!;
      const { status, body } = await get(path, all[i]!);
      expect([200, 404], `${path} at ${all[i]}: ${JSON.stringify(body).slice(0, 200)}`).toContain(status);
      if (status === 200) answered.set(path, (answered.get(path) ?? 0) + 1);
      for (const f of lookAhead(body, all[i]!)) found.push(`${path} at ${all[i]}: ${f}`);
    }
    expect(found.slice(0, 10)).toEqual([]);
    // Every route answered figures at some instants (not a vacuous pass of 404s).
    expect([...ROUTES.map(([p]) => p), ...PACKS].filter((p) => !answered.get(p))).toEqual([]);
  }, 120_000);

  it('WTI at 2025-06-18T14:45Z: the Monday of the 6/18 workbook (stamped 10:40:51 ET), not Tuesday 6/17; its legs in the basis too', async () => {
    const price = await get('/v1/price/CL', '2025-06-18T14:45:00Z');
    expect(price.body).toMatchObject({ as_of: '2025-06-16', published_at: '2025-06-18T14:40:51.000Z', attributes: { published_at_estimated: false } });
    const basis = await get('/v1/spreads/basis', '2025-06-18T14:45:00Z');
    expect(lookAhead(basis.body, '2025-06-18T14:45:00Z')).toEqual([]);
    expect((walkObservations(basis.body) as any[]).filter((o) => o.instrument === 'CL').map((o) => o.as_of)).toEqual(['2025-06-16']);
    // A minute before the workbook's stamp, the release of 6/11 (to Monday 6/9, dated by the end of its day).
    expect((await get('/v1/price/CL', '2025-06-18T14:40:00Z')).body.as_of).toBe('2025-06-09');
  });

  it('gold at 2025-12-02T01:00Z (the evening before the Pink Sheet of 2 December): October, first published 4 November', async () => {
    const gc = await get('/v1/price/GC', '2025-12-02T01:00:00Z');
    expect(gc.body).toMatchObject({ as_of: '2025-10-01', published_at: '2025-11-05T04:59:59.000Z', attributes: { published_at_estimated: true } });
    // November's, from the recorded workbook, once its day is over in Washington.
    expect((await get('/v1/price/GC', '2025-12-03T04:59:59Z')).body).toMatchObject({ as_of: '2025-11-01', attributes: { published_at_estimated: false } });
  });

  it('USGS at 2026-02-06T01:00Z (the evening before MCS 2026 was posted): nothing yet, 404 naming its first publication', async () => {
    const res = await get('/v1/fundamentals/usgs?view=full', '2026-02-06T01:00:00Z');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'NO_DATA', details: { first_known_from: '2026-02-07T04:59:59.000Z' } });
    expect((await get('/v1/fundamentals/usgs?view=full', '2026-02-07T05:00:00Z')).status).toBe(200);
  });

  it('crude stocks at 2025-12-03T16:00Z, the day EIA failed to publish the WPSR on time: the week before, not 2025-11-28', async () => {
    const res = await get('/v1/inventory/eia/crude_ex_spr?view=full', '2025-12-03T16:00:00Z');
    expect(res.status).toBe(200);
    expect(res.body.latest).toMatchObject({ as_of: '2025-11-21' });
    // Dated by the next scheduled release, marked estimated, with the statement in its reason.
    const week = (await get('/v1/inventory/eia/crude_ex_spr?view=full', '2025-12-10T15:30:00Z')).body.recent.find((h: any) => h.as_of === '2025-11-28');
    expect(week).toMatchObject({ published_at: '2025-12-10T15:30:00.000Z', attributes: { published_at_estimated: true } });
  });

  it('Pink Sheet months each from their own first release: gold, silver and the crush in mid-2025', async () => {
    // May 2025 came out on Tue 3 June 2025 (the second business day); before, April.
    expect((await get('/v1/price/GC', '2025-06-10T12:00:00Z')).body).toMatchObject({ as_of: '2025-05-01', published_at: '2025-06-04T03:59:59.000Z' });
    expect((await get('/v1/price/SI', '2025-06-03T20:00:00Z')).body).toMatchObject({ as_of: '2025-04-01' });
    const crush = await get('/v1/spreads/crush', '2025-07-10T12:00:00Z');
    expect(crush.status).toBe(200);
    expect(crush.body.as_of).toBe('2025-06-01');
  });

  it.runIf(HAVE_FIXTURES)('serves the recorded figures of the examples: WTI of 6/16 and October gold (../shared/fixtures)', async () => {
    const value = async (path: string, at: string) => (await get(path, at)).body.value;
    const wti = fixtureText('eia/daily.RWTC.2024-01-02_2026-08-18.csv')
      .split(/\r?\n/)
      .find((l) => l.startsWith('2025-06-16,'))!;
    expect(await value('/v1/price/CL', '2025-06-18T14:45:00Z')).toBe(Number(wti.split(',')[1]));
    const sheet = fixtureText('worldbank/CMO-Historical-Data-Monthly.Monthly-Prices.sample.csv').split(/\r?\n/);
    const col = sheet
      .find((l) => l.includes(',GOLD,'))!
      .split(',')
      .indexOf('GOLD');
    const october = sheet.find((l) => l.startsWith('2025M10,'))!.split(',')[col];
    expect(await value('/v1/price/GC', '2025-12-02T01:00:00Z')).toBe(Number(october));
  });
});
