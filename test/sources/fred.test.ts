import { describe, expect, it } from 'vitest';
import { fred, parseFredCsv } from '../../shared/sources/fred';
import { SourceFormatError } from '../../shared/sources/types';
import { HAVE_FIXTURES, fixtureBytes } from '../helpers/fixtures';
import { normalizeCtx, payload } from '../helpers/sources';

const ctx = normalizeCtx(fred.def);

describe('FRED fredgraph.csv parser', () => {
  it('treats an empty or "." value as a holiday, not an error', () => {
    const rows = parseFredCsv('observation_date,DEXUSEU\n2025-11-26,1.1590\n2025-11-27,\n2025-11-28,.\n', 'DEXUSEU', 't');
    expect(rows).toEqual([
      { date: '2025-11-26', value: 1.159 },
      { date: '2025-11-27', value: null },
      { date: '2025-11-28', value: null },
    ]);
  });

  it('accepts the older DATE header', () => {
    expect(parseFredCsv('DATE,DEXCHUS\n2020-01-02,6.9618\n', 'DEXCHUS', 't')).toEqual([{ date: '2020-01-02', value: 6.9618 }]);
  });

  it.each([
    ['an empty file', '', /expected header/],
    ['a missing column', 'observation_date\n2025-11-26\n', /expected header|column/i],
    ['a renamed series', 'observation_date,DEXJPUS\n2025-11-26,150\n', /expected header/],
    ['an NA value', 'observation_date,DEXUSEU\n2025-11-26,NA\n', /not a number/],
    ['a bad date', 'observation_date,DEXUSEU\n26/11/2025,1.1\n', /bad date/],
    ['a header only', 'observation_date,DEXUSEU\n', /no rows/],
  ])('refuses %s', (_n, csv, msg) => {
    expect(() => parseFredCsv(csv, 'DEXUSEU', 't')).toThrow(msg);
  });
});

describe('fred adapter', () => {
  it('maps DEXUSEU to EURUSD and DEXCHUS to USDCNY with FRED series pages', async () => {
    const items = (await fred.samples()).flatMap((p) => fred.toItems(p, ctx));
    const eur = items.filter((i) => i.seriesKey === 'PRICE#EURUSD');
    expect(eur.length).toBeGreaterThan(40); // more than a month of business days
    expect(eur.find((i) => i.observation.as_of === '2025-11-28')?.observation).toMatchObject({
      instrument: 'EURUSD',
      unit: 'USD/EUR',
      quality: 'official',
      source: { series_id: 'DEXUSEU', url: 'https://fred.stlouisfed.org/series/DEXUSEU' },
    });
    expect(items.some((i) => i.observation.as_of === '2025-11-27')).toBe(false); // Thanksgiving: no value published
  });

  it('serves each series to its newest recorded figure, over two years and more', async () => {
    const items = (await fred.samples()).flatMap((p) => fred.toItems(p, ctx));
    const newest = (code: string) =>
      items
        .filter((i) => i.seriesKey === `PRICE#${code}`)
        .map((i) => i.observation)
        .sort((a, b) => a.as_of.localeCompare(b.as_of));
    // Last rows of fixtures/fred: DTWEXBGS.2024-01-02_2026-05-22.csv, DEXUSEU.2024-01-01_2026-04-24.csv, DEXCHUS.csv.
    expect(newest('DTWEXBGS').at(-1)).toMatchObject({ as_of: '2026-05-22', value: 119.2868 });
    expect(newest('EURUSD').at(-1)).toMatchObject({ as_of: '2026-04-24', value: 1.1718 });
    expect(newest('USDCNY').at(-1)).toMatchObject({ as_of: '2025-11-28', value: 7.0751 });
    // DEXCHUS.2023-01-02_2025-05-09.csv: 2023-01-02 is empty, 2023-01-03 = 6.9135.
    expect(newest('USDCNY')[0]).toMatchObject({ as_of: '2023-01-03', value: 6.9135 });
  });

  it('refuses a payload of an unknown series', () => {
    expect(() => fred.toItems(payload('fred/DEXJPUS.csv', 'observation_date,DEXJPUS\n2025-11-26,150\n'), ctx)).toThrow(SourceFormatError);
  });
});

describe.skipIf(!HAVE_FIXTURES)('contract: FRED recorded payloads (../shared/fixtures/fred)', () => {
  it.each([
    ['DTWEXBGS', 'DTWEXBGS'],
    ['DEXUSEU', 'EURUSD'],
    ['DEXCHUS', 'USDCNY'],
  ])('%s parses into 61 observations over 2025-09-02..2025-11-28 (4 holidays skipped)', (id, code) => {
    const items = fred.toItems(payload(`fred/${id}.csv`, fixtureBytes(`fred/${id}.csv`)), ctx);
    expect(items).toHaveLength(61);
    expect(items.every((i) => i.seriesKey === `PRICE#${code}`)).toBe(true);
    expect(items[0]!.observation.as_of).toBe('2025-09-02');
    expect(items.at(-1)!.observation.as_of).toBe('2025-11-28');
  });
});
