/**
 * `as_known_at` over HTTP against the local runtime on the replayed samples (issue 25): the same
 * figure just before and just after its release instant for three publishers (EIA's weekly petroleum
 * report, WASDE, CFTC COT), a revised figure inside its old interval, a decision pack at a past
 * instant equal to the pack computed from only the data published by then, and the errors.
 *
 * Expected figures come from the recorded publications (../shared/fixtures), release instants from
 * the publishers' stated schedules: the WPSR Wednesdays 10:30 ET, WASDE 12:00 ET on its date, the
 * COT Fridays 15:30 ET.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import type { StoredObservation } from '../../shared/observation/schema';
import { knownFrom } from '../../shared/observation/vintage';
import { eiaPetroleum } from '../../shared/sources/eia-inventory';
import { runSource } from '../../shared/sources/runner';
import { MemoryObservationStore } from '../../shared/store/memory-observation-store';
import type { SeriesItem } from '../../shared/store/observation-store';
import { expectError, expectObservation } from '../helpers/contract';
import { fixtureText, HAVE_FIXTURES } from '../helpers/fixtures';
import { getJson, startTestStack } from '../helpers/stack';
import { connect, ERAS } from '../mcp/clients';
import { walkObservations } from '../helpers/walk-observations';

/** A figure of a fixture CSV `Date,<series>` by date. */
const eiaWeekly = (file: string, date: string): number => {
  const row = fixtureText(`eia/${file}`)
    .split('\n')
    .find((l) => l.startsWith(`${date},`));
  return Number(row!.split(',')[1]);
};

/** Managed-money net (long minus short) of a CFTC market on a report date, from the 24-column fixture. */
const cotNet = (code: string, date: string): number => {
  const row = fixtureText('cftc/f_year.disagg-futonly.managed-money.20-markets.2023-01-03_2026-05-26.csv')
    .split(/\r?\n/)
    .find((l) => l.includes(`,${date},${code},`))!;
  const cells = row.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/);
  return Number(cells[8]!.trim()) - Number(cells[9]!.trim());
};

const minuteBefore = (iso: string) => new Date(Date.parse(iso) - 60_000).toISOString();
const minuteAfter = (iso: string) => new Date(Date.parse(iso) + 60_000).toISOString();
const q = (iso: string) => encodeURIComponent(iso);

/** Only what had been published by `at`: the store a pack computed at that instant could have read. */
class PublishedBy extends MemoryObservationStore {
  constructor(private readonly at: number) {
    super();
  }
  override async upsertMany(items: SeriesItem[]): Promise<number> {
    return super.upsertMany(items.filter(({ observation }) => Date.parse(knownFrom(observation as StoredObservation)) <= this.at));
  }
}

// The petroleum report week: inventories, COT, WTI/Brent current; the crack's product legs long stale.
const PACK_AT = '2026-02-11T15:31:00.000Z';

// One stack for the file (the replayed samples), and one standing at PACK_AT for the packs: both
// seeded at once.
let stack: LocalStack;
let then: LocalStack;
beforeAll(async () => {
  if (!HAVE_FIXTURES) return;
  [stack, then] = await Promise.all([
    startTestStack(),
    // Seeded through the same runs, keeping only what was published by the instant, on a clock standing there.
    startTestStack({}, true, { store: new PublishedBy(Date.parse(PACK_AT)), now: () => new Date(PACK_AT) }),
  ]);
}, 300_000);
afterAll(async () => Promise.all([stack?.close(), then?.close()]));

describe.runIf(HAVE_FIXTURES)('as_known_at over HTTP (replayed samples)', () => {
  const get = (path: string, init?: RequestInit) => getJson(stack.url, path, init);

  it("EIA's weekly petroleum report: crude stocks a minute before and after the WPSR of Wednesday 2026-02-11 10:30 ET", async () => {
    const release = '2026-02-11T15:30:00.000Z';
    const before = await get(`/v1/inventory/eia/crude_ex_spr?as_known_at=${q(minuteBefore(release))}`);
    const after = await get(`/v1/inventory/eia/crude_ex_spr?as_known_at=${q(minuteAfter(release))}`);
    expect(before.status).toBe(200);
    expect(after.status).toBe(200);
    const file = 'weekly.WCESTUS1.2019-01-04_2026-02-06.csv';
    expect([before.body.as_of, before.body.value]).toEqual(['2026-01-30', eiaWeekly(file, '2026-01-30')]);
    expect([after.body.as_of, after.body.value]).toEqual(['2026-02-06', eiaWeekly(file, '2026-02-06')]);
    // The compact view links the full view at the same instant, whose figures say when they became known.
    expect(after.body.full_view).toBe(`/v1/inventory/eia/crude_ex_spr?view=full&as_known_at=${q(minuteAfter(release))}`);
    const full = await get(after.body.full_view);
    expect(full.body.latest).toMatchObject({ as_of: '2026-02-06', attributes: { as_known_at: minuteAfter(release), known_from: release } });
  });

  it('WASDE: corn 2024/25 ending stocks a minute before and after the May 2025 report (2025-05-12 12:00 ET)', async () => {
    const release = '2025-05-12T16:00:00.000Z';
    const endingStocks = async (at: string) => {
      const res = await get(`/v1/fundamentals/wasde?commodity=corn&view=full&as_known_at=${q(at)}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const corn = res.body.commodities[0];
      const my = corn.market_years.find((m: any) => m.market_year === '2024/25');
      return [corn.report.report_month, my.status, my.lines.find((l: any) => l.statistic === 'ending_stocks').latest.value];
    };
    // fixtures/wasde/SOURCE.md: April's projection 1,465; in May 2024/25 is an estimate and its ending
    // stocks are 2025/26's beginning stocks, 1,415.
    expect(await endingStocks(minuteBefore(release))).toEqual(['April 2025', 'projection', 1465]);
    expect(await endingStocks(minuteAfter(release))).toEqual(['May 2025', 'estimate', 1415]);
    // A revised figure inside its old interval (2025-04-10 12:00 ET .. 2025-05-12 12:00 ET) answers the old value.
    expect(await endingStocks('2025-04-25T00:00:00Z')).toEqual(['April 2025', 'projection', 1465]);
  });

  it('CFTC COT: WTI managed-money net a minute before and after the report of Friday 2026-05-15 15:30 ET', async () => {
    const release = '2026-05-15T19:30:00.000Z';
    const before = await get(`/v1/cot/CL?as_known_at=${q(minuteBefore(release))}`);
    const after = await get(`/v1/cot/CL?as_known_at=${q(minuteAfter(release))}`);
    expect([before.body.as_of, before.body.managed_money.net.value]).toEqual(['2026-05-05', cotNet('067651', '2026-05-05')]);
    expect([after.body.as_of, after.body.managed_money.net.value]).toEqual(['2026-05-12', cotNet('067651', '2026-05-12')]);
    // Its staleness is judged at the instant, not today.
    expect(after.body.stale).toBe(false);
  });

  it('marks every observation of every data route answered at a past instant with the instant and its known-from', async () => {
    const at = '2026-02-11T15:31:00.000Z';
    const paths = [
      '/v1/price/CL',
      '/v1/prices?codes=CL,GC,EURUSD',
      '/v1/history/CL?limit=30',
      '/v1/fx/EURUSD',
      '/v1/inventory/eia?view=full',
      '/v1/inventory/eia/cushing?view=full',
      '/v1/cot/GC',
      '/v1/spreads/basis',
      '/v1/fundamentals/wasde?view=full',
      '/v1/fundamentals/crop-progress?view=full',
      '/v1/fundamentals/export-sales?view=full',
      '/v1/fundamentals/usgs?view=full',
      '/v1/snapshot/all?view=full',
      '/v1/decision/all?view=full',
    ];
    for (const path of paths) {
      const res = await get(`${path}${path.includes('?') ? '&' : '?'}as_known_at=${q(at)}`);
      expect(res.status, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200);
      const observations = walkObservations(res.body) as any[];
      expect(observations.length, path).toBeGreaterThan(0);
      for (const o of observations) {
        expectObservation(o);
        expect(o.attributes.as_known_at, `${path} ${o.instrument}`).toBe(at);
        expect(Date.parse(o.attributes.known_from), `${path} ${o.instrument}`).toBeLessThanOrEqual(Date.parse(at));
      }
    }
  });

  it('answers an instant before the first publication of a series with 404 NO_DATA naming that publication', async () => {
    const [first] = (await get('/v1/history/CL?start=2000-01-01&end=2030-12-31&limit=1')).body.observations;
    const res = await get('/v1/price/CL?as_known_at=2020-01-01T00:00:00Z');
    expectError(res, 404, 'NO_DATA');
    expect(res.body.error.retryable).toBe(false);
    expect(res.body.error.details).toMatchObject({ as_known_at: '2020-01-01T00:00:00.000Z', first_known_from: first.published_at });
    const cot = await get('/v1/cot/CL?as_known_at=2020-01-01T00:00:00Z');
    expectError(cot, 404, 'NO_DATA');
    // The first stored report, 2023-01-03, was released on Friday 2023-01-06 at 15:30 ET.
    expect(cot.body.error.details.first_known_from).toBe('2023-01-06T20:30:00.000Z');
  });

  it('refuses an instant in the future and a malformed one with 400 before any payment is asked for', async () => {
    const force = { headers: { 'x-force-402': '1' } };
    const future = await get(`/v1/price/CL?as_known_at=${q(new Date(Date.now() + 86_400_000).toISOString())}`, force);
    expectError(future, 400, 'INVALID_PARAMETER');
    expect(future.body.error.details.issues[0]).toMatchObject({ path: 'as_known_at', message: expect.stringMatching(/in the future/) });
    for (const bad of ['2026-02-11', '2026-02-11T15:29Z', '2026-02-11T15:29:00', '2026-02-30T00:00:00Z', 'yesterday']) {
      const res = await get(`/v1/cot/CL?as_known_at=${q(bad)}`, force);
      expectError(res, 400, 'INVALID_PARAMETER');
      expect(res.body.error.details.issues[0].message, bad).toMatch(/ISO 8601 instant with seconds and a UTC offset, e\.g\. 2026-02-11T15:29:00Z/);
    }
    // A valid past instant with the same header gets the challenge, for the same amount: the parameter changes no price.
    const past = await get('/v1/decision/all?as_known_at=2026-02-11T15:31:00Z', force);
    const now = await get('/v1/decision/all', force);
    expect([past.status, now.status]).toEqual([402, 402]);
    expect(past.body.accepts[0].amount).toBe(now.body.accepts[0].amount);
    expect(past.body.accepts[0].amount).toBe('250000'); // 0.25 USD (SPEC.md DECISION_ALL) in USDC atomic units
  });

  it.each(ERAS)('MCP tools take as_known_at too (protocol %s), with the same answer and the same refusals', async (era) => {
    const client = await connect(stack.url, era);
    try {
      const at = '2026-02-11T15:29:00Z';
      const res = await client.callTool({ name: 'get_inventory_series', arguments: { series: 'crude_ex_spr', as_known_at: at } });
      expect(res.isError).toBeFalsy();
      const http = await get(`/v1/inventory/eia/crude_ex_spr?as_known_at=${q(at)}`);
      expect(res.structuredContent).toEqual(http.body);
      expect(res.structuredContent.as_of).toBe('2026-01-30');
      const bad = await client.callTool({ name: 'get_cot', arguments: { code: 'CL', as_known_at: '2026-02-11' } });
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent.error).toMatchObject({ code: 'INVALID_PARAMETER', details: { issues: [{ path: 'as_known_at' }] } });
    } finally {
      await client.close();
    }
  });

  it('leaves answers without the parameter free of point-in-time fields', async () => {
    for (const path of ['/v1/price/CL', '/v1/inventory/eia/crude_ex_spr?view=full', '/v1/cot/CL', '/v1/decision/energy?view=full']) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body), path).not.toMatch(/as_known_at|known_from|known_to/);
    }
  });

  it('answers a figure revised by a later run with its old value inside its old interval (a test revision, not a publication)', async () => {
    // A run on 2026-11-20 fetches week 2026-02-06 again with crude stocks 428,900 (test value).
    const seen = new Date('2026-11-20T00:00:00Z');
    // The other series answer their recorded week as published (no revision): refinery utilisation its
    // last recorded week, Cushing its transcribed 2026-02-06.
    const cushing = fixtureText('eia/Weekly_Cushing_OK_Ending_Stocks_excluding_SPR_of_Crude_Oil.2019-01-04_2026-07-31.csv')
      .split('\n')
      .find((l) => l.startsWith('02/6/2026,'))!
      .split(',')[1]!
      .trim();
    const row = (id: string): [string, string, string] => {
      if (id === 'WCESTUS1') return ['2026-02-06', '428900', 'MBBL'];
      if (id === 'WPULEUS3') return ['2025-11-21', String(eiaWeekly('weekly.WPULEUS3.2019-01-04_2025-11-21.csv', '2025-11-21')), '%'];
      if (id.startsWith('W_EPC0')) return ['2026-02-06', cushing, 'MBBL'];
      return ['2026-02-06', String(eiaWeekly(`weekly.${id}.2019-01-04_2026-02-06.csv`, '2026-02-06')), id === 'WCRRIUS2' ? 'MBBL/D' : 'MBBL'];
    };
    const fetch = async (url: string) => {
      const id = /seriesid\/(?:PET|NG)\.([^?]+)\.W/.exec(url)![1]!;
      const [period, value, units] = row(id);
      return new Response(JSON.stringify({ response: { total: '1', data: [{ period, series: id, value, units }] } }));
    };
    const config = { ...stack.config, EIA_API_KEY: 'test-key' };
    const run = await runSource(eiaPetroleum, { mode: 'live', store: stack.services.store, config, fetch: fetch as never, now: seen });
    expect(run.status, run.message).toBe('ok');
    expect(run.message).toMatch(/; 1 revision\(s\)/);
    const level = async (at: string) => (await get(`/v1/inventory/eia/crude_ex_spr?as_known_at=${q(at)}`)).body.value;
    expect(await level('2026-11-19T23:59:59Z')).toBe(eiaWeekly('weekly.WCESTUS1.2019-01-04_2026-02-06.csv', '2026-02-06'));
    expect(await level('2026-11-20T00:00:00Z')).toBe(428900);
  });
});

describe.runIf(HAVE_FIXTURES)('a decision pack at a past instant (replayed samples)', () => {
  // Asked of the file's stack: its one revision (seen 2026-11-20) is not known at the instant.
  const at = PACK_AT;

  it.each(['energy', 'metals', 'ags', 'all'])(
    'GET /v1/decision/%s?as_known_at equals the pack computed from only the data published by then',
    async (sector) => {
      const past = await getJson(stack.url, `/v1/decision/${sector}?as_known_at=${q(at)}`);
      const computedThen = await getJson(then.url, `/v1/decision/${sector}`);
      expect(past.status).toBe(200);
      expect(computedThen.status).toBe(200);
      expect(past.body.full_view).toBe(`/v1/decision/${sector}?view=full&as_known_at=${q(at)}`);
      const { full_view: _a, ...pastPack } = past.body;
      const { full_view: _b, ...thenPack } = computedThen.body;
      expect(JSON.stringify(pastPack)).toBe(JSON.stringify(thenPack));
      // The same pack asked again is the same bytes (reproducible).
      expect(JSON.stringify((await getJson(stack.url, `/v1/decision/${sector}?as_known_at=${q(at)}`)).body)).toBe(JSON.stringify(past.body));
    },
  );

  it('judges the gate at the instant: the energy pack has signals then that the same data gives none of today', async () => {
    const past = (await getJson(stack.url, `/v1/decision/energy?as_known_at=${q(at)}`)).body;
    const today = (await getJson(stack.url, '/v1/decision/energy')).body;
    const live = (pack: any) => pack.signals.filter((s: any) => !s.stale).map((s: any) => s.instrument);
    expect(live(past)).toContain('CL');
    expect(live(today)).not.toContain('CL');
  });
});
