import { describe, expect, it } from 'vitest';
import { ObservationSchema } from '../../shared/observation/schema';
import { eiaSpot, EIA_SPOT_SERIES } from '../../shared/sources/eia-spot';
import { parseEiaV2 } from '../../shared/sources/eia-v2';
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
    for (const { observation } of items) expect(ObservationSchema.omit({ provenance: true }).safeParse(observation).success).toBe(true);
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
