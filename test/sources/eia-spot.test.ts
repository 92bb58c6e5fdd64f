import { describe, expect, it } from 'vitest';
import { ObservationSchema } from '../../shared/observation/schema';
import * as z from '../../shared/zod';
import { eiaSpot, EIA_SPOT_SERIES } from '../../shared/sources/eia-spot';
import { addDays } from '../../shared/dates';
import { EIA_PAGE_ROWS, nextEiaOffset, parseEiaV2 } from '../../shared/sources/eia-v2';
import { SourceFormatError } from '../../shared/sources/types';
import { normalizeCtx, payload, text } from '../helpers/sources';

const ctx = normalizeCtx(eiaSpot.def);
const doc = (rows: unknown[]) => JSON.stringify({ response: { total: String(rows.length), data: rows } });

describe('EIA v2 parser', () => {
  it('reads string values, drops withheld (null) values to null, and sorts ascending', () => {
    const rows = parseEiaV2(
      doc([
        { period: '2025-06-16', series: 'RWTC', value: '72.53', units: '$/BBL' },
        { period: '2025-06-13', series: 'RWTC', value: null, units: '$/BBL' },
        { period: '2025-06-12', series: 'RWTC', value: 68.73, units: '$/BBL' },
      ]),
      't',
    );
    expect(rows.map((r) => [r.period, r.value])).toEqual([
      ['2025-06-12', 68.73],
      ['2025-06-13', null],
      ['2025-06-16', 72.53],
    ]);
  });

  it.each([
    ['not JSON', '<html>502 Bad Gateway</html>', /not JSON/],
    ['no response.data', JSON.stringify({ error: 'invalid api_key' }), /not an EIA v2 response/],
    ['renamed field', doc([{ date: '2025-06-16', value: '1' }]), /period/],
    ['non-numeric value', doc([{ period: '2025-06-16', value: 'NA' }]), /non-numeric/],
    ['bad period', doc([{ period: '16/06/2025', value: '1' }]), /period/],
  ])('refuses %s with a SourceFormatError', (_n, body, msg) => {
    expect(() => parseEiaV2(body, 't')).toThrow(SourceFormatError);
    expect(() => parseEiaV2(body, 't')).toThrow(msg);
  });
});

describe('eia-spot adapter', () => {
  it('turns every bundled sample into complete official observations in catalog units', async () => {
    const samples = await eiaSpot.samples();
    expect(samples.map((s) => s.name)).toEqual(EIA_SPOT_SERIES.map((s) => `eia-spot/${s.seriesId}.json`));
    const items = samples.flatMap((p) => eiaSpot.toItems(p, ctx));
    for (const { observation } of items) expect(z.omit(ObservationSchema, { provenance: true }).safeParse(observation).success).toBe(true);
    const last = (key: string) =>
      items
        .filter((i) => i.seriesKey === key)
        .sort((a, b) => a.observation.as_of.localeCompare(b.observation.as_of))
        .at(-1)!.observation;
    // Last rows of the recorded EIA histories (fixtures/eia daily.*.csv): WTI, Brent and Henry Hub
    // to 2026-08-18; NY Harbor ULSD and Gulf Coast gasoline to 2025-06-16 (the latest real copy).
    expect(last('PRICE#CL')).toMatchObject({ as_of: '2026-08-18', value: 86.48, unit: 'USD/bbl', quality: 'official', derived: false });
    expect(last('PRICE#BZ')).toMatchObject({ as_of: '2026-08-18', value: 95.29 });
    expect(last('PRICE#NG')).toMatchObject({ as_of: '2026-08-18', value: 2.82, unit: 'USD/MMBtu' });
    expect(last('PRICE#RB')).toMatchObject({ as_of: '2025-06-16', value: 2.162, unit: 'USD/gal' });
    expect(last('PRICE#HO')).toMatchObject({ as_of: '2025-06-16', value: 2.398, unit: 'USD/gal' });
    expect(last('PRICE#CL').source).toEqual({
      name: 'U.S. Energy Information Administration',
      series_id: 'PET.RWTC.D',
      url: 'https://www.eia.gov/dnav/pet/hist/RWTCD.htm',
    });
    expect(last('PRICE#CL').next_release_at).toBe('2026-12-01T15:30:00.000Z');
    // Every trading day with a price, 2024-01-02..2026-08-18 (EIA's blank holiday rows are absent).
    expect(items.filter((i) => i.seriesKey === 'PRICE#CL')).toHaveLength(655);
    expect(items.filter((i) => i.seriesKey === 'PRICE#HO')).toHaveLength(612); // 2023-01-03..2025-06-16
  });

  it('refuses a series whose unit changed', async () => {
    const [wti] = await eiaSpot.samples();
    const changed = text(wti!).replaceAll('"$/BBL"', '"$/GAL"');
    expect(() => eiaSpot.toItems(payload('eia-spot/PET.RWTC.D.json', changed), ctx)).toThrow(/unit/);
  });

  it('fetches each series from /v2/seriesid with the key, and never leaks the key in errors', async () => {
    const urls: string[] = [];
    const fetchOk = async (url: string) => {
      urls.push(url);
      return new Response(doc([{ period: '2026-11-20', value: '60.1', units: '$/BBL' }]));
    };
    const config = { EIA_API_KEY: 'sekret-key' } as never;
    const now = new Date('2026-11-21T12:00:00Z');
    const got = await eiaSpot.live({ fetch: fetchOk, config, concurrency: 2, now });
    expect(got).toHaveLength(5);
    expect(urls[0]).toMatch(/^https:\/\/api\.eia\.gov\/v2\/seriesid\/PET\.RWTC\.D\?api_key=sekret-key&start=2026-10-07/);
    const fetch503 = async () => new Response('busy', { status: 503 });
    await expect(eiaSpot.live({ fetch: fetch503, config, concurrency: 1, now })).rejects.toThrow(/HTTP 503/);
    await expect(eiaSpot.live({ fetch: fetch503, config, concurrency: 1, now })).rejects.not.toThrow(/sekret/);
  });
});

describe('EIA v2 paging (a response holds at most 5,000 rows)', () => {
  const config = { EIA_API_KEY: 'sekret-key' } as never;
  const now = new Date('2026-11-21T12:00:00Z');
  // A backfill of 6,234 daily rows, newest first, as EIA sorts them for this request.
  const ROWS = Array.from({ length: 6234 }, (_, i) => ({
    period: addDays('2026-11-20', -i),
    series: 'RWTC',
    value: String(40 + (i % 500) / 10),
    units: '$/BBL',
  }));
  // EIA's documented warning on a capped JSON response.
  const CAPPED = {
    warning: 'incomplete return',
    description:
      'The API can only return 5000 rows in JSON format.  Please consider constraining your request with facet, start, or end, or using offset to paginate results.',
  };
  /** A loopback EIA: serves ROWS by offset/length, with the warning on a capped page; logs what was asked. */
  const loopback = (opts: { total: boolean; emptyAt?: number }) => {
    const asked: URL[] = [];
    const fetch = async (url: string) => {
      const u = new URL(url);
      asked.push(u);
      const offset = Number(u.searchParams.get('offset'));
      const length = Number(u.searchParams.get('length'));
      const data = offset === opts.emptyAt ? [] : ROWS.slice(offset, offset + Math.min(length, 5000));
      const capped = offset + data.length < ROWS.length && data.length > 0;
      return new Response(
        JSON.stringify({ response: { ...(opts.total ? { total: String(ROWS.length) } : {}), ...(capped ? { warnings: [CAPPED] } : {}), data } }),
      );
    };
    return { asked, fetch };
  };
  const wtiItems = (pages: Awaited<ReturnType<typeof eiaSpot.live>>) =>
    pages.filter((p) => p.name.startsWith('PET.RWTC.D')).flatMap((p) => eiaSpot.toItems(p, ctx).map((i) => i.observation));

  it.each([
    ['with total', true],
    ['with the warning only', false],
  ])('pages on with offset instead of truncating a backfill (%s): 5,000 rows, then the rest', async (_n, total) => {
    const eia = loopback({ total });
    const pages = await eiaSpot.live({ fetch: eia.fetch, config, concurrency: 1, now, since: '2002-01-01' });
    const wtiAsked = eia.asked.filter((u) => u.pathname.endsWith('/PET.RWTC.D'));
    expect(wtiAsked.map((u) => [u.searchParams.get('offset'), u.searchParams.get('length'), u.searchParams.get('start')])).toEqual([
      ['0', '5000', '2002-01-01'],
      ['5000', '5000', '2002-01-01'],
    ]);
    expect(pages.filter((p) => p.name.startsWith('PET.RWTC.D')).map((p) => p.name)).toEqual(['PET.RWTC.D', 'PET.RWTC.D.offset-5000']);
    const wti = wtiItems(pages);
    expect(wti).toHaveLength(6234); // 5,000 + 1,234: nothing cut, nothing repeated
    expect(new Set(wti.map((o) => o.as_of)).size).toBe(6234);
    expect(wti.map((o) => o.as_of).sort()[0]).toBe(addDays('2026-11-20', -6233));
  });

  it('asks once when the first page holds everything', async () => {
    const eia = loopback({ total: true });
    const short = async (url: string) => {
      const res = await eia.fetch(url);
      const body = (await res.json()) as { response: { data: unknown[] } };
      return new Response(JSON.stringify({ response: { total: '30', data: body.response.data.slice(0, 30) } }));
    };
    const pages = await eiaSpot.live({ fetch: short, config, concurrency: 1, now });
    expect(pages.map((p) => p.name)).toEqual(EIA_SPOT_SERIES.map((s) => s.seriesId));
  });

  it('fails the run when EIA says rows remain but sends none (paging would never end)', async () => {
    const eia = loopback({ total: true, emptyAt: 5000 });
    await expect(eiaSpot.live({ fetch: eia.fetch, config, concurrency: 1, now, since: '2002-01-01' })).rejects.toThrow(
      /EIA sent no rows at offset 5000 of 6234/,
    );
  });

  it('nextEiaOffset: total decides; without it a warned or full page means more', () => {
    expect(nextEiaOffset(0, { rows: EIA_PAGE_ROWS, total: 6234, incomplete: true }, 't')).toBe(5000);
    expect(nextEiaOffset(5000, { rows: 1234, total: 6234, incomplete: false }, 't')).toBeNull();
    expect(nextEiaOffset(0, { rows: 5000, total: 5000, incomplete: false }, 't')).toBeNull(); // exactly one full page
    expect(nextEiaOffset(0, { rows: 5000, total: null, incomplete: false }, 't')).toBe(5000);
    expect(nextEiaOffset(0, { rows: 120, total: null, incomplete: false }, 't')).toBeNull();
  });
});
