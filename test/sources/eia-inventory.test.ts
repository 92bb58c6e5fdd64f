import { describe, expect, it } from 'vitest';
import { ObservationSchema } from '../../shared/observation/schema';
import * as z from '../../shared/zod';
import { findSource } from '../../shared/sources/registry';
import { EIA_INVENTORY_SERIES, eiaGasStorage, eiaPetroleum } from '../../shared/sources/eia-inventory';
import { findInventorySeries } from '../../shared/catalog/inventory';
import { releaseOfPeriod } from '../../shared/sources/schedule';
import { SourceFormatError, type SourceAdapter } from '../../shared/sources/types';
import { HAVE_FIXTURES, fixtureText } from '../helpers/fixtures';
import { normalizeCtx, payload, text } from '../helpers/sources';

const petCtx = normalizeCtx(eiaPetroleum.def);
const gasCtx = normalizeCtx(eiaGasStorage.def);
const StoredSchema = z.omit(ObservationSchema, { provenance: true });

const doc = (rows: unknown[]) => JSON.stringify({ response: { total: String(rows.length), frequency: 'weekly', data: rows } });
const row = (period: string, value: string | null, series = 'WCESTUS1', units = 'MBBL') => ({ period, series, 'series-description': 'x', value, units });

const itemsOf = async (a: SourceAdapter) => (await a.samples()).flatMap((p) => a.toItems(p, normalizeCtx(a.def)));
const latestOf = (items: Awaited<ReturnType<typeof itemsOf>>, key: string) =>
  items
    .filter((i) => i.seriesKey === key)
    .sort((a, b) => a.observation.as_of.localeCompare(b.observation.as_of))
    .at(-1)!.observation;

describe('eia-petroleum and eia-gas-storage samples', () => {
  it('normalise to complete official weekly observations in the catalog units (figures from EIA psw01/psw02/psw04 and ngshistory.xls)', async () => {
    const pet = await itemsOf(eiaPetroleum);
    const gas = await itemsOf(eiaGasStorage);
    for (const { observation } of [...pet, ...gas]) expect(StoredSchema.safeParse(observation).success).toBe(true);
    // Every week since 2019-01-04: to 2026-02-06 for the four psw01 series (371 weeks), to
    // 2025-11-21 for refinery utilization (360), to 2026-07-31 for Cushing (396).
    expect(pet).toHaveLength(4 * 371 + 360 + 396);
    expect(gas).toHaveLength(369); // 2019-01-04..2026-01-23
    // Values of the week ending 2026-02-06 as printed in psw01.xls (release 2026-02-11).
    expect(latestOf(pet, 'INV#crude_ex_spr')).toMatchObject({
      instrument: 'crude_ex_spr',
      as_of: '2026-02-06',
      value: 428829,
      unit: 'Mbbl',
      quality: 'official',
      derived: false,
      freshness_class: 'weekly',
    });
    expect(latestOf(pet, 'INV#gasoline')).toMatchObject({ as_of: '2026-02-06', value: 259058, unit: 'Mbbl' });
    expect(latestOf(pet, 'INV#distillate')).toMatchObject({ as_of: '2026-02-06', value: 124665, unit: 'Mbbl' });
    expect(latestOf(pet, 'INV#crude_runs')).toMatchObject({ as_of: '2026-02-06', value: 16000, unit: 'kb/d' });
    expect(latestOf(pet, 'INV#cushing')).toMatchObject({ as_of: '2026-07-31', value: 20955 });
    expect(pet.find((i) => i.seriesKey === 'INV#cushing' && i.observation.as_of === '2019-08-23')!.observation.value).toBe(40356);
    expect(pet.find((i) => i.seriesKey === 'INV#cushing' && i.observation.as_of === '2020-05-01')!.observation.value).toBe(65446);
    // psw02.xls, week ending 2025-11-21: 92.3 % of operable capacity.
    expect(latestOf(pet, 'INV#refinery_util')).toMatchObject({ as_of: '2025-11-21', value: 92.3, unit: '%', quality: 'official' });
    // ngshistory.xls Total Lower 48, week ending 2026-01-23 (net change -242 = 2823 - 3065).
    expect(latestOf(gas, 'INV#ng_storage')).toMatchObject({ as_of: '2026-01-23', value: 2823, unit: 'Bcf' });
    expect(gas.find((i) => i.observation.as_of === '2026-01-16')!.observation.value).toBe(3065);
  });

  it('stamps each week with its scheduled release and the per-series EIA page', async () => {
    const pet = await itemsOf(eiaPetroleum);
    const crude = latestOf(pet, 'INV#crude_ex_spr');
    expect(crude.published_at).toBe('2026-02-11T15:30:00.000Z'); // Wed 10:30 EST
    expect(latestOf(pet, 'INV#cushing').published_at).toBe('2026-08-05T14:30:00.000Z'); // Wed 10:30 EDT
    expect(crude.next_release_at).toBe(petCtx.nextReleaseAt);
    expect(crude.source).toEqual({
      name: 'U.S. Energy Information Administration, Weekly Petroleum Status Report',
      series_id: 'PET.WCESTUS1.W',
      url: 'https://www.eia.gov/dnav/pet/hist/LeafHandler.ashx?n=PET&s=WCESTUS1&f=W',
    });
    const ng = latestOf(await itemsOf(eiaGasStorage), 'INV#ng_storage');
    expect(ng.published_at).toBe('2026-01-29T15:30:00.000Z'); // Thu 10:30 EST
    expect(ng.source?.series_id).toBe('NW2_EPG0_SWO_R48_BCF.W');
  });

  it('serves refinery_util (WPULEUS3) from its real history, released with the WPSR of the week after', async () => {
    const util = latestOf(await itemsOf(eiaPetroleum), 'INV#refinery_util');
    expect(util.published_at).toBe('2025-11-26T15:30:00.000Z'); // Wednesday 10:30 EST
    expect(util.source).toMatchObject({ series_id: 'PET.WPULEUS3.W' });
  });
});

describe('releaseOfPeriod', () => {
  const pet = findSource('eia-petroleum')!.schedule;
  const gas = findSource('eia-gas-storage')!.schedule;
  const cot = findSource('cftc-cot')!.schedule;
  it("is the release after the period, at the publisher's New York time across DST", () => {
    expect(releaseOfPeriod(pet, '2026-03-06')?.at).toBe('2026-03-11T14:30:00.000Z'); // DST began 2026-03-08
    expect(releaseOfPeriod(pet, '2025-10-31')?.at).toBe('2025-11-05T15:30:00.000Z'); // DST ended 2025-11-02
    expect(releaseOfPeriod(gas, '2025-10-31')?.at).toBe('2025-11-06T15:30:00.000Z');
    expect(releaseOfPeriod(cot, '2026-04-14')?.at).toBe('2026-04-17T19:30:00.000Z'); // Tue positions, Fri 15:30 EDT
  });
});

describe('EIA inventory parsing: broken and edge payloads', () => {
  const crude = (body: string) => payload('PET.WCESTUS1.W', body);
  it('skips withheld (null) values', () => {
    const items = eiaPetroleum.toItems(crude(doc([row('2026-02-06', null), row('2026-01-30', '420299')])), petCtx);
    expect(items.map((i) => [i.observation.as_of, i.observation.value])).toEqual([['2026-01-30', 420299]]);
  });

  it("reads refinery utilization (WPULEUS3) in percent under any of EIA's percent spellings", () => {
    // A constructed payload per spelling (EIA's percent code was not seen in a recorded response).
    for (const units of ['%', 'PERCENT', 'Percent']) {
      const [item] = eiaPetroleum.toItems(payload('PET.WPULEUS3.W', doc([row('2026-02-06', '90.5', 'WPULEUS3', units)])), petCtx);
      expect(item).toMatchObject({ seriesKey: 'INV#refinery_util', observation: { unit: '%', value: 90.5, instrument: 'refinery_util' } });
    }
  });

  it.each([
    ['an empty body', '', /empty payload/],
    ['an HTML error page', '<html>502 Bad Gateway</html>', /not JSON/],
    ['an error document', JSON.stringify({ error: 'API_KEY_INVALID' }), /not an EIA v2 response/],
    ['a renamed value field', doc([{ period: '2026-02-06', series: 'WCESTUS1', amount: '1', units: 'MBBL' }]), /value/],
    ['a renamed period field', doc([{ date: '2026-02-06', series: 'WCESTUS1', value: '1', units: 'MBBL' }]), /period/],
    ['an "NA" value', doc([row('2026-02-06', 'NA')]), /non-numeric/],
    ['a "." value', doc([row('2026-02-06', '.')]), /non-numeric/],
    ['another unit', doc([row('2026-02-06', '1', 'WCESTUS1', 'MMBBL')]), /unit "MMBBL"/],
    ['a row of another series', doc([row('2026-02-06', '1', 'WGTSTUS1')]), /is series WGTSTUS1/],
    ['a negative level', doc([row('2026-02-06', '-5')]), /negative/],
  ])('refuses %s with a SourceFormatError', (_n, body, msg) => {
    expect(() => eiaPetroleum.toItems(crude(body), petCtx)).toThrow(SourceFormatError);
    expect(() => eiaPetroleum.toItems(crude(body), petCtx)).toThrow(msg);
  });

  it('refuses a payload that is not one of its own series', () => {
    expect(() => eiaPetroleum.toItems(payload('NG.NW2_EPG0_SWO_R48_BCF.W', doc([])), petCtx)).toThrow(/not an inventory series of eia-petroleum/);
    expect(() => eiaGasStorage.toItems(crude(doc([])), gasCtx)).toThrow(/not an inventory series of eia-gas-storage/);
  });
});

describe('live fetch', () => {
  const config = { EIA_API_KEY: 'sekret-key' } as never;
  const now = new Date('2026-11-21T12:00:00Z');

  it('asks /v2/seriesid for each series with six years of history (NG ids get their NG. prefix)', async () => {
    const urls: string[] = [];
    const fetchOk = async (url: string) => {
      urls.push(url);
      return new Response(doc([]));
    };
    const pet = await eiaPetroleum.live({ fetch: fetchOk, config, concurrency: 2, now });
    expect(pet.map((p) => p.name)).toEqual(EIA_INVENTORY_SERIES.filter((s) => findInventorySeries(s.key)!.sourceId === 'eia-petroleum').map((s) => s.apiId));
    expect(urls[0]).toMatch(/^https:\/\/api\.eia\.gov\/v2\/seriesid\/PET\.WCESTUS1\.W\?api_key=sekret-key&start=2020-11-21&/);
    expect(urls.some((u) => u.includes('/seriesid/PET.WPULEUS3.W?'))).toBe(true);
    urls.length = 0;
    await eiaGasStorage.live({ fetch: fetchOk, config, concurrency: 1, now, since: '2010-01-01' });
    expect(urls).toEqual([expect.stringMatching(/\/v2\/seriesid\/NG\.NW2_EPG0_SWO_R48_BCF\.W\?api_key=sekret-key&start=2010-01-01&/)]);
  });

  it('fails on 5xx and timeouts without leaking the key', async () => {
    const fetch503 = async () => new Response('busy', { status: 503 });
    await expect(eiaGasStorage.live({ fetch: fetch503, config, concurrency: 1, now })).rejects.toThrow(/HTTP 503/);
    const timeout = async () => {
      throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    };
    const err = await eiaGasStorage.live({ fetch: timeout, config, concurrency: 1, now }).catch((e: Error) => e);
    expect(String(err)).toMatch(/timeout/);
    expect(String(err)).not.toMatch(/sekret/);
    expect(String(err)).toMatch(/api_key=\*\*\*/);
  });
});

describe.skipIf(!HAVE_FIXTURES)('contract: bundled inventory samples against the recorded EIA histories (../shared/fixtures/eia)', () => {
  /** Rows of EIA's per-series CSV download (`MM/D/YYYY,value`, any preamble skipped). */
  const download = (file: string) =>
    fixtureText(`eia/${file}`)
      .split(/\r?\n/)
      .map((l) => /^(\d{2})\/(\d{1,2})\/(\d{4}),(\d+)$/.exec(l.trim()))
      .flatMap((m) => (m ? [[`${m[3]}-${m[1]}-${m[2]!.padStart(2, '0')}`, Number(m[4])] as const] : []));
  /** Rows of a converted `Date,<series>` history. */
  const converted = (file: string) =>
    fixtureText(`eia/${file}`)
      .split(/\r?\n/)
      .slice(1)
      .filter(Boolean)
      .map((l) => [l.split(',')[0]!, Number(l.split(',')[1])] as const);
  const sampleItems = async (a: SourceAdapter, apiId: string) => {
    const p = (await a.samples()).find((s) => s.name.endsWith(`/${apiId}.json`))!;
    expect(text(p)).toMatch(/"units":"(MBBL|MBBL\/D|%|BCF)"/);
    return new Map(a.toItems(p, normalizeCtx(a.def)).map((i) => [i.observation.as_of, i.observation.value] as const));
  };

  it.each([
    ['Weekly_Cushing_OK_Ending_Stocks_excluding_SPR_of_Crude_Oil.2019-01-04_2026-07-31.csv', 396],
    ['Weekly_Cushing_OK_Ending_Stocks_excluding_SPR_of_Crude_Oil.csv', 13],
    ['Weekly_Cushing_OK_Ending_Stocks_excluding_SPR_of_Crude_Oil.2019.csv', 13],
  ])('Cushing: every week of %s equals the sample', async (file, weeks) => {
    const recorded = download(file);
    expect(recorded).toHaveLength(weeks);
    const sample = await sampleItems(eiaPetroleum, 'PET.W_EPC0_SAX_YCUOK_MBBL.W');
    for (const [week, value] of recorded) expect([week, sample.get(week)]).toEqual([week, value]);
  });

  it.each([
    [eiaPetroleum, 'PET.WCESTUS1.W', 'weekly.WCESTUS1.2019-01-04_2026-02-06.csv'],
    [eiaPetroleum, 'PET.WGTSTUS1.W', 'weekly.WGTSTUS1.2019-01-04_2026-02-06.csv'],
    [eiaPetroleum, 'PET.WDISTUS1.W', 'weekly.WDISTUS1.2019-01-04_2026-02-06.csv'],
    [eiaPetroleum, 'PET.WCRRIUS2.W', 'weekly.WCRRIUS2.2019-01-04_2026-02-06.csv'],
    [eiaPetroleum, 'PET.WPULEUS3.W', 'weekly.WPULEUS3.2019-01-04_2025-11-21.csv'],
    [eiaGasStorage, 'NG.NW2_EPG0_SWO_R48_BCF.W', 'weekly.NW2_EPG0_SWO_R48_BCF.2019-01-04_2026-01-23.csv'],
  ] as const)('%#: the sample %s holds exactly the weeks of %s', async (adapter, apiId, file) => {
    expect(await sampleItems(adapter, apiId)).toEqual(new Map(converted(file)));
  });

  it('agrees with the psw04-derived Cushing copy wherever both have a week (an independent reading of the transcribed file)', async () => {
    const sample = await sampleItems(eiaPetroleum, 'PET.W_EPC0_SAX_YCUOK_MBBL.W');
    const psw04 = converted('weekly.W_EPC0_SAX_YCUOK_MBBL.2019-01-04_2025-11-21.csv');
    expect(psw04).toHaveLength(360);
    for (const [week, value] of psw04) expect([week, sample.get(week)]).toEqual([week, value]);
  });
});
