import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { expectError, expectObservation } from '../helpers/contract';
import { getJson, startTestStack } from '../helpers/stack';

describe('price family over HTTP (local runtime, replayed samples)', () => {
  let stack: LocalStack;
  /** The service's clock: real unless a test sets a day (after the replay seed has run). */
  let day: Date | null = null;
  const get = (path: string, init?: RequestInit) => getJson(stack.url, path, init);
  beforeAll(async () => {
    stack = await startTestStack({}, true, { now: () => day ?? new Date() });
  });
  afterAll(async () => stack?.close());

  describe('GET /v1/price/{code}', () => {
    it('answers a complete observation of the latest figure', async () => {
      const res = await get('/v1/price/CL');
      expect(res.status).toBe(200);
      expectObservation(res.body);
      // The last row of fixtures/eia/daily.RWTC.2024-01-02_2026-08-18.csv.
      expect(res.body).toMatchObject({ instrument: 'CL', value: 86.48, as_of: '2026-08-18', unit: 'USD/bbl', freshness_class: 'eod' });
      expect(res.headers.get('cache-control')).toBe('private, no-store');
      expect(res.headers.get('x-request-id')).toBeTruthy();
    });

    it('serves a repeat read from the in-Lambda cache and says so', async () => {
      const first = await get('/v1/price/BZ');
      const second = await get('/v1/price/BZ');
      expect(first.body.provenance).toMatchObject({ cache_hit: false, cache_ttl_s: 300 });
      expect(second.body.provenance).toMatchObject({ cache_hit: true, cache_ttl_s: 300 });
    });

    it('says in its provenance whether the figure is stale today and which as_of comes next', async () => {
      // WTI's last sample row is Tue 2026-08-18; eod figures may lag 10 days (README, /health).
      try {
        day = new Date('2026-08-20T15:00:00Z');
        const fresh = await get('/v1/price/CL');
        expect(fresh.body.provenance).toMatchObject({ stale: false, expected_next_as_of: '2026-08-19' });
        day = new Date('2026-11-25T15:00:00Z');
        const old = await get('/v1/price/CL');
        expect(old.body.provenance).toMatchObject({ cache_hit: true, stale: true, expected_next_as_of: '2026-08-19' });
        expectObservation(old.body);
        const bundle = await get('/v1/prices?codes=CL,EURUSD');
        expect(bundle.body.observations.map((o: { provenance: { stale: boolean } }) => o.provenance.stale)).toEqual([true, true]);
      } finally {
        day = null;
      }
    });

    it("computes next_release_at when answering, from the publisher's calendar, on the latest and on history points", async () => {
      try {
        // EIA spot prices come out with the WPSR's week, no time stated: after Wed 2026-12-02 the next is Wed
        // 2026-12-09, dated by its end (23:59:59 EST); a value frozen at ingestion would stay in the past.
        day = new Date('2026-12-03T15:00:00Z');
        expect((await get('/v1/price/CL')).body.next_release_at).toBe('2026-12-10T04:59:59.000Z');
        const history = await get('/v1/history/CL?limit=5');
        expect(new Set(history.body.observations.map((o: any) => o.next_release_at))).toEqual(new Set(['2026-12-10T04:59:59.000Z']));
        // FRED follows the Board's H.10, Mondays 16:15 ET: from Thu 3 Dec the next is Mon 7 Dec, 16:15 EST (21:15Z).
        expect((await get('/v1/fx/EURUSD')).body.next_release_at).toBe('2026-12-07T21:15:00.000Z');
        // Christmas week 2026 (Fri 25 Dec) moves nothing; New Year 2027 (Fri 1 Jan) neither: Wed 30 Dec (its end, EST)
        day = new Date('2026-12-24T12:00:00Z');
        expect((await get('/v1/price/CL')).body.next_release_at).toBe('2026-12-31T04:59:59.000Z');
        // World Bank: the second business day of January 2027 is Tue 5 Jan (1 Jan a holiday), no time stated: its end (EST)
        expect((await get('/v1/price/GC')).body.next_release_at).toBe('2027-01-06T04:59:59.000Z');
      } finally {
        day = null;
      }
    });

    it('says on each observation that it was replayed from the bundled samples', async () => {
      expect((await get('/v1/price/CL')).body.provenance.retrieval).toBe('replay');
      const history = await get('/v1/history/EURUSD?limit=3');
      expect(history.body.observations.map((o: any) => o.provenance.retrieval)).toEqual(['replay', 'replay', 'replay']);
    });

    it('normalises a lower-case code to upper case', async () => {
      const res = await get('/v1/price/cl');
      expect(res.status).toBe(200);
      expect(res.body.instrument).toBe('CL');
    });

    it('serves FX codes too', async () => {
      const res = await get('/v1/price/USDCNY');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ instrument: 'USDCNY', unit: 'CNY/USD', as_of: '2025-11-28' });
    });

    it.each([
      ['an unknown code', '/v1/price/XX', 404, 'UNKNOWN_INSTRUMENT'],
      ['a listed but not live code (PA)', '/v1/price/PA', 404, 'NO_DATA'],
      ['a path of 5,000 characters', `/v1/price/${'A'.repeat(5000)}`, 400, 'INVALID_PARAMETER'],
      ['an injection-like code', `/v1/price/${encodeURIComponent("CL' OR '1'='1")}`, 400, 'INVALID_PARAMETER'],
      ['a script tag', `/v1/price/${encodeURIComponent('<script>alert(1)</script>')}`, 400, 'INVALID_PARAMETER'],
      ['a NoSQL-like code', `/v1/price/${encodeURIComponent('{"$gt":""}')}`, 400, 'INVALID_PARAMETER'],
      ['a traversal', '/v1/price/..%2F..%2Fetc%2Fpasswd', 400, 'INVALID_PARAMETER'],
    ])('refuses %s with a JSON error', async (_n, path, status, code) => {
      expectError(await get(path), status, code);
    });
  });

  describe('GET /v1/prices', () => {
    it('bundles de-duplicated codes in request order, with nothing missing', async () => {
      const res = await get('/v1/prices?codes=cl,BZ,CL,%20ng%20');
      expect(res.status).toBe(200);
      expect(res.body.requested).toEqual(['CL', 'BZ', 'NG']);
      expect(res.body.observations.map((o: any) => o.instrument)).toEqual(['CL', 'BZ', 'NG']);
      res.body.observations.forEach(expectObservation);
      expect(res.body.missing).toEqual([]);
    });

    it('lists codes without data under missing, with the reason', async () => {
      const res = await get('/v1/prices?codes=CL,PA');
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(1);
      expect(res.body.missing).toEqual([{ instrument: 'PA', reason: expect.stringMatching(/^not live/) }]);
    });

    it.each([
      ['missing codes', '/v1/prices', 400, 'INVALID_PARAMETER'],
      ['empty codes', '/v1/prices?codes=', 400, 'INVALID_PARAMETER'],
      ['only commas', '/v1/prices?codes=,,,', 400, 'INVALID_PARAMETER'],
      ['500 codes', `/v1/prices?codes=${Array.from({ length: 500 }, (_, i) => `C${i}`).join(',')}`, 400, 'INVALID_PARAMETER'],
      ['31 distinct codes', `/v1/prices?codes=${Array.from({ length: 31 }, (_, i) => `C${i}`).join(',')}`, 400, 'INVALID_PARAMETER'],
      ['an unknown code among known ones', '/v1/prices?codes=CL,NOPE', 404, 'UNKNOWN_INSTRUMENT'],
      ['an injection-like code', `/v1/prices?codes=${encodeURIComponent('CL;DROP TABLE')}`, 400, 'INVALID_PARAMETER'],
    ])('refuses %s', async (_n, path, status, code) => {
      expectError(await get(path), status, code);
    });

    it('names the offending parameter in details.issues', async () => {
      const res = await get('/v1/prices?codes=');
      expect(res.body.error.details.issues).toEqual([{ path: 'codes', message: 'codes must name at least one instrument' }]);
    });
  });

  describe('GET /v1/history/{code}', () => {
    it('defaults to the year before the latest observation, ascending, with a summary of the window', async () => {
      const res = await get('/v1/history/CL');
      expect(res.status).toBe(200);
      const b = res.body;
      expect(b).toMatchObject({
        instrument: 'CL',
        start: '2025-08-18',
        end: '2026-08-18',
        frequency: 'native',
        total: 250,
        returned: 250,
        truncated: false,
        next: null,
      });
      const dates = b.observations.map((o: any) => o.as_of);
      expect(dates).toEqual([...dates].sort());
      b.observations.forEach(expectObservation);
      // Worked on EIA's RWTC series (fixtures/eia/daily.RWTC…csv), the 250 rows 2025-08-18..2026-08-18:
      // first 64.51 on 2025-08-18, min 55.44 on 2025-12-16, max 114.58 on 2026-04-07, last 86.48 on
      // 2026-08-18; change 86.48 - 64.51 = 21.97 = 34.0567 % of 64.51.
      expect(b.summary).toEqual({
        first: { as_of: '2025-08-18', value: 64.51 },
        last: { as_of: '2026-08-18', value: 86.48 },
        min: { as_of: '2025-12-16', value: 55.44 },
        max: { as_of: '2026-04-07', value: 114.58 },
        change: 21.97,
        change_pct: 34.0567,
      });
    });

    it('pages with limit and the next cursor, without gaps or repeats', async () => {
      const first = await get('/v1/history/CL?limit=100');
      expect(first.body).toMatchObject({ total: 250, returned: 100, truncated: true });
      const second = await get(`/v1/history/CL?limit=100&cursor=${first.body.next}`);
      const third = await get(`/v1/history/CL?limit=100&cursor=${second.body.next}`);
      expect(third.body).toMatchObject({ returned: 50, truncated: false, next: null });
      const all = [first, second, third].flatMap((r) => r.body.observations.map((o: any) => o.as_of));
      expect(all).toHaveLength(250);
      expect(new Set(all).size).toBe(250);
    });

    it('resamples to weekly and monthly with the stated aggregation', async () => {
      const weekly = await get('/v1/history/CL?frequency=weekly');
      expect(weekly.body.aggregation).toMatch(/last published observation of each ISO week/);
      // 2025-08-18 (a Monday)..2026-08-18 (a Tuesday) spans 53 ISO weeks; the last point of the week of
      // 2026-08-10 is Friday 2026-08-14.
      expect(weekly.body.total).toBe(53);
      expect(weekly.body.observations.map((o: any) => o.as_of)).toContain('2026-08-14');
      const monthly = await get('/v1/history/CL?frequency=monthly');
      // 13 months, each its last trading day with a price: 2025-08-29 .. 2026-07-31, then 2026-08-18.
      expect(monthly.body.total).toBe(13);
      expect(monthly.body.observations.map((o: any) => o.as_of).slice(0, 3)).toEqual(['2025-08-29', '2025-09-30', '2025-10-31']);
      expect(monthly.body.observations.map((o: any) => o.as_of).slice(-2)).toEqual(['2026-07-31', '2026-08-18']);
    });

    it('answers a window with no points as 200 with total 0 (start after the latest point), never a 500', async () => {
      // Pink Sheet gold ends 2025-11 and WTI 2026-08-18 in the samples: both windows are empty.
      for (const path of ['/v1/history/GC?start=2026-01-01', '/v1/history/CL?start=2026-08-19', '/v1/history/CL?start=2026-08-19&frequency=weekly']) {
        const res = await get(path);
        expect(res.status, path).toBe(200);
        expect(res.body, path).toMatchObject({ total: 0, returned: 0, truncated: false, next: null, summary: null, observations: [] });
      }
      expect((await get('/v1/history/GC?start=2026-01-01')).body).toMatchObject({ start: '2026-01-01', end: '2026-01-01' });
    });

    it('honours an explicit window', async () => {
      const res = await get('/v1/history/EURUSD?start=2025-11-01&end=2025-11-14');
      expect(res.body.observations.map((o: any) => o.as_of)).toEqual([
        '2025-11-03',
        '2025-11-04',
        '2025-11-05',
        '2025-11-06',
        '2025-11-07',
        '2025-11-10',
        '2025-11-12',
        '2025-11-13',
        '2025-11-14',
      ]); // 2025-11-11 (Veterans Day) has no published value
    });

    it.each([
      ['a negative limit', '/v1/history/CL?limit=-5', 400, 'INVALID_PARAMETER'],
      ['a zero limit', '/v1/history/CL?limit=0', 400, 'INVALID_PARAMETER'],
      ['a non-numeric limit', '/v1/history/CL?limit=ten', 400, 'INVALID_PARAMETER'],
      ['a huge limit', '/v1/history/CL?limit=100000', 400, 'INVALID_PARAMETER'],
      ['a non-date start', '/v1/history/CL?start=yesterday', 400, 'INVALID_PARAMETER'],
      ['an impossible date', '/v1/history/CL?start=2025-02-30', 400, 'INVALID_PARAMETER'],
      ['start after end', '/v1/history/CL?start=2025-06-01&end=2025-05-01', 400, 'INVALID_PARAMETER'],
      ['an unknown frequency', '/v1/history/CL?frequency=hourly', 400, 'INVALID_PARAMETER'],
      ['a bad cursor', '/v1/history/CL?cursor=abc', 400, 'INVALID_PARAMETER'],
      ['an unknown code', '/v1/history/ZZZ', 404, 'UNKNOWN_INSTRUMENT'],
      ['an injection-like date', `/v1/history/CL?start=${encodeURIComponent("2025-01-01' OR 1=1")}`, 400, 'INVALID_PARAMETER'],
    ])('refuses %s', async (_n, path, status, code) => {
      expectError(await get(path), status, code);
    });
  });

  describe('GET /v1/fx/{pair}', () => {
    it('answers the latest figure of a pair', async () => {
      const res = await get('/v1/fx/eurusd');
      expect(res.status).toBe(200);
      expectObservation(res.body);
      // The last row of fixtures/fred/DEXUSEU.2024-01-01_2026-04-24.csv.
      expect(res.body).toMatchObject({ instrument: 'EURUSD', as_of: '2026-04-24', value: 1.1718, source: { series_id: 'DEXUSEU' } });
    });

    it('refuses a code that is not an FX pair, listing the pairs', async () => {
      const res = await get('/v1/fx/CL');
      expectError(res, 404, 'UNKNOWN_INSTRUMENT');
      expect(res.body.error.details.valid).toEqual(['DTWEXBGS', 'EURUSD', 'USDCNY']);
    });
  });

  describe('payment switch (demo mode)', () => {
    it('serves paid routes without a challenge when enforcement is off, and challenges on X-Force-402', async () => {
      expect((await get('/v1/price/CL')).status).toBe(200);
      const forced = await get('/v1/price/CL', { headers: { 'X-Force-402': '1' } });
      expect(forced.status).toBe(402);
    });

    it('validates before it challenges: bad input is a 400 even with X-Force-402', async () => {
      expectError(await get('/v1/price/%3Cx%3E', { headers: { 'X-Force-402': '1' } }), 400, 'INVALID_PARAMETER');
    });
  });
});
