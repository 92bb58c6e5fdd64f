import { crc32, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ObservationSchema } from '../../shared/observation/schema';
import * as z from '../../shared/zod';
import { COT_CONTRACTS } from '../../shared/catalog/cot-markets';
import { WEEKLY_URL, annualZipUrl, cftcCot, parseCotText, unzipSingle } from '../../shared/sources/cftc-cot';
import { SourceFormatError } from '../../shared/sources/types';
import { HAVE_FIXTURES, fixtureBytes } from '../helpers/fixtures';
import { normalizeCtx, payload } from '../helpers/sources';

const ctx = normalizeCtx(cftcCot.def);
const StoredSchema = z.omit(ObservationSchema, { provenance: true });
const ALL_CODES = new Set(COT_CONTRACTS.map((c) => c.cftcCode));

/** A minimal zip writer for tests: one deflated (or stored) member per entry. */
const zip = (members: Array<{ name: string; data: Uint8Array; store?: boolean }>): Uint8Array => {
  const chunks: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name);
    const body = m.store ? Buffer.from(m.data) : deflateRawSync(m.data);
    const crc = crc32(m.data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(m.store ? 0 : 8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(m.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(m.store ? 0 : 8, 10);
    cd.writeUInt32LE(crc, 16);
    cd.writeUInt32LE(body.length, 20);
    cd.writeUInt32LE(m.data.length, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(offset, 42);
    chunks.push(local, name, body);
    central.push(cd, name);
    offset += local.length + name.length + body.length;
  }
  const cdBuf = Buffer.concat(central);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(members.length, 8);
  eocd.writeUInt16LE(members.length, 10);
  eocd.writeUInt32LE(cdBuf.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...chunks, cdBuf, eocd]));
};

/** The text of the bundled annual sample of one year (fut_disagg_txt_<year>.zip, member f_year.txt). */
const annualText = async (year: number) => {
  const p = (await cftcCot.samples()).find((s) => s.name.endsWith(`fut_disagg_txt_${year}.zip`))!;
  return new TextDecoder().decode(unzipSingle(p.body, p.name).data);
};
/** The header-less rows of one report date: what the weekly f_disagg.txt carries that week (mapped markets). */
const weeklyText = async (date = '2026-05-26') =>
  (await annualText(Number(date.slice(0, 4))))
    .split('\r\n')
    .filter((l) => l.includes(`,${date},`))
    .join('\r\n');
/** The WTI row of 2026-05-26, 191 columns. */
const wtiLine = async () => (await weeklyText()).split('\r\n').find((l) => l.includes(',067651,'))!;
/** Replace the 0-based field `i` of a (quote-free numeric) CSV line. */
const setField = (line: string, i: number, v: string) => {
  const cells = line.match(/("[^"]*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, ''));
  cells[i] = v;
  return cells.slice(0, 191).join(',');
};

describe('cftc-cot samples', () => {
  it('normalise the 20 mapped markets x 178 weekly reports (2023-01-03..2026-05-26) into managed-money nets (hand-checked WTI rows)', async () => {
    const items = (await cftcCot.samples()).flatMap((p) => cftcCot.toItems(p, ctx));
    expect(items).toHaveLength(20 * 178);
    for (const { observation } of items) expect(StoredSchema.safeParse(observation).success).toBe(true);
    expect(new Set(items.map((i) => i.seriesKey))).toEqual(new Set(COT_CONTRACTS.map((c) => `COT#${c.code}`)));
    const cl = items
      .filter((i) => i.seriesKey === 'COT#CL')
      .map((i) => i.observation)
      .sort((a, b) => a.as_of.localeCompare(b.as_of));
    expect(cl[0]!.as_of).toBe('2023-01-03');
    // M_Money long - short of WTI-PHYSICAL 067651 per report date (fixtures/cftc 20-market file).
    expect(cl.slice(-4).map((o) => [o.as_of, o.value])).toEqual([
      ['2026-05-05', 70791], // 185755 - 114964
      ['2026-05-12', 72801], // 187332 - 114531
      ['2026-05-19', 98219], // 207565 - 109346
      ['2026-05-26', 79924], // 200581 - 120657
    ]);
    expect(cl.at(-1)).toMatchObject({
      instrument: 'CL',
      unit: 'contracts',
      freshness_class: 'weekly',
      quality: 'derived',
      derived: true,
      published_at: '2026-05-29T19:30:00.000Z', // Friday 15:30 EDT
      retrieved_at: '2026-05-29T19:30:00.000Z',
      source: { series_id: '067651' },
      attributes: {
        cftc_code: '067651',
        market: 'WTI-PHYSICAL - NEW YORK MERCANTILE EXCHANGE',
        mm_long: 200581,
        mm_short: 120657,
        mm_spreading: 283688,
        open_interest: 2003795,
      },
    });
  });

  it('serve BZ from NYMEX Brent Last Day (06765T), a row of the fixture checked by hand', async () => {
    const items = (await cftcCot.samples()).flatMap((p) => cftcCot.toItems(p, ctx));
    const bz = items.filter((i) => i.seriesKey === 'COT#BZ').map((i) => i.observation);
    expect(bz).toHaveLength(178);
    // "BRENT LAST DAY - NEW YORK MERCANTILE EXCHANGE",260526,2026-05-26,06765T,...,249447,14232,4664,4186,...
    expect(bz.find((o) => o.as_of === '2026-05-26')).toMatchObject({
      instrument: 'BZ',
      value: 9568, // 14232 - 4664
      source: { series_id: '06765T' },
      attributes: { market: 'BRENT LAST DAY - NEW YORK MERCANTILE EXCHANGE', mm_long: 14232, mm_short: 4664, mm_spreading: 4186, open_interest: 249447 },
    });
  });

  it('maps each CFTC code to one catalog instrument', () => {
    expect(new Set(COT_CONTRACTS.map((c) => c.code)).size).toBe(COT_CONTRACTS.length);
    expect(new Set(COT_CONTRACTS.map((c) => c.cftcCode)).size).toBe(COT_CONTRACTS.length);
  });
});

describe('parseCotText: broken and edge files', () => {
  it('reads a file with a header row by column name, and one without by position', async () => {
    const weekly = await weeklyText();
    const header = `"Market_and_Exchange_Names","As_of_Date_In_Form_YYMMDD","Report_Date_as_YYYY-MM-DD","CFTC_Contract_Market_Code",${Array.from({ length: 3 }, (_, i) => `"X${i}"`).join(',')},"Open_Interest_All",${Array.from({ length: 5 }, (_, i) => `"Y${i}"`).join(',')},"M_Money_Positions_Long_All","M_Money_Positions_Short_All","M_Money_Positions_Spread_All",${Array.from({ length: 174 }, (_, i) => `"Z${i}"`).join(',')},"FutOnly_or_Combined"`;
    expect(parseCotText(`${header}\r\n${weekly}`, 't', ALL_CODES)).toEqual(parseCotText(weekly, 't', ALL_CODES));
  });

  it('accepts "." in a trader count it does not read', async () => {
    const line = await wtiLine();
    expect(parseCotText(setField(line, 120, '     .'), 't', ALL_CODES)[0]!.mmLong).toBe(200581);
  });

  it('reads only the mapped markets and ignores the others', async () => {
    const rows = parseCotText(await weeklyText(), 't', new Set(['067651']));
    expect(rows).toEqual([
      {
        market: 'WTI-PHYSICAL - NEW YORK MERCANTILE EXCHANGE',
        reportDate: '2026-05-26',
        cftcCode: '067651',
        openInterest: 2003795,
        mmLong: 200581,
        mmShort: 120657,
        mmSpread: 283688,
      },
    ]);
  });

  it.each([
    ['an empty file', async () => '', /empty payload/],
    ['a missing column (short row)', async () => (await wtiLine()).split(',').slice(0, 150).join(','), /columns, expected 191/],
    [
      'a renamed column in a header file',
      async () =>
        `"Market_and_Exchange_Names","As_of_Date_In_Form_YYMMDD","Report_Date_as_YYYY-MM-DD","CFTC_Contract_Market_Code","Open_Interest_All","MM_Long","M_Money_Positions_Short_All","M_Money_Positions_Spread_All","FutOnly_or_Combined"\n"WTI",260414,2026-04-14,067651,10,1,1,1,"FutOnly"`,
      /missing column M_Money_Positions_Long_All/,
    ],
    ['a "." managed-money long', async () => setField(await wtiLine(), 13, '      .'), /M_Money_Positions_Long_All: not a whole number/],
    ['an "NA" open interest', async () => setField(await wtiLine(), 7, 'NA'), /Open_Interest_All: not a whole number/],
    ['a report date that disagrees with YYMMDD', async () => setField(await wtiLine(), 1, '260407'), /disagrees/],
    ['a bad report date', async () => setField(await wtiLine(), 2, '14.04.2026'), /bad report date/],
    ['a combined (futures and options) file', async () => setField(await wtiLine(), 190, '"FutOpt"'), /expected FutOnly/],
    ['positions larger than the open interest (shifted column)', async () => setField(await wtiLine(), 7, '   1000'), /exceed open interest/],
    ['the same market and date twice', async () => `${await wtiLine()}\n${await wtiLine()}`, /appears twice/],
  ])('refuses %s', async (_n, make, msg) => {
    const body = await make();
    expect(() => cftcCot.toItems(payload('f_disagg.txt', body), ctx)).toThrow(SourceFormatError);
    expect(() => cftcCot.toItems(payload('f_disagg.txt', body), ctx)).toThrow(msg);
  });

  it('returns no items for a file without any mapped market (the runner then fails the run)', async () => {
    const other = (await wtiLine()).replace(',067651,', ',099741,');
    expect(cftcCot.toItems(payload('f_disagg.txt', other), ctx)).toEqual([]);
  });
});

describe('annual zips', () => {
  it('unzips the single member (deflated or stored) and parses it like the text', async () => {
    const weekly = await weeklyText();
    const data = new TextEncoder().encode(weekly);
    for (const store of [false, true]) {
      const z = zip([{ name: 'f_year.txt', data, store }]);
      expect(unzipSingle(z, 'z')).toEqual({ member: 'f_year.txt', data });
      expect(cftcCot.toItems(payload('fut_disagg_txt_2026.zip', z), ctx)).toEqual(cftcCot.toItems(payload('f_disagg.txt', weekly), ctx));
    }
  });

  it.each([
    ['not a zip', () => new TextEncoder().encode('PK but not really a zip archive at all, just text'), /unreadable zip archive/],
    [
      'two members',
      () =>
        zip([
          { name: 'a.txt', data: new Uint8Array([1]) },
          { name: 'b.txt', data: new Uint8Array([2]) },
        ]),
      /expected one file in the zip, found 2/,
    ],
    [
      'a truncated download',
      () => {
        const whole = zip([{ name: 'f_year.txt', data: new TextEncoder().encode('hello') }]);
        return whole.subarray(0, whole.length - 12);
      },
      /unreadable zip archive/,
    ],
  ])('refuses %s', (_n, make, msg) => {
    expect(() => unzipSingle(make(), 'z')).toThrow(SourceFormatError);
    expect(() => unzipSingle(make(), 'z')).toThrow(msg);
  });
});

describe('live fetch', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  const config = {} as never;
  it('fetches the weekly file, and with since also each annual zip from that year', async () => {
    const urls: string[] = [];
    const fetchOk = async (url: string) => {
      urls.push(url);
      return new Response('x');
    };
    expect((await cftcCot.live({ fetch: fetchOk, config, concurrency: 2, now })).map((p) => p.name)).toEqual(['f_disagg.txt']);
    expect(urls).toEqual([WEEKLY_URL]);
    urls.length = 0;
    const got = await cftcCot.live({ fetch: fetchOk, config, concurrency: 2, now, since: '2024-06-01' });
    expect(got.map((p) => p.name)).toEqual(['fut_disagg_txt_2024.zip', 'fut_disagg_txt_2025.zip', 'fut_disagg_txt_2026.zip', 'f_disagg.txt']);
    expect(urls.sort()).toEqual([annualZipUrl(2024), annualZipUrl(2025), annualZipUrl(2026), WEEKLY_URL].sort());
    expect(annualZipUrl(2024)).toBe('https://www.cftc.gov/files/dea/history/fut_disagg_txt_2024.zip');
  });

  it('fails on 5xx and on an empty body', async () => {
    await expect(cftcCot.live({ fetch: async () => new Response('down', { status: 500 }), config, concurrency: 1, now })).rejects.toThrow(/HTTP 500/);
    await expect(cftcCot.live({ fetch: async () => new Response(''), config, concurrency: 1, now })).rejects.toThrow(/empty body/);
  });
});

/** Comparable form of items: series, date, value and every attribute. */
const key = (xs: ReturnType<typeof cftcCot.toItems>) =>
  xs.map((i) => `${i.seriesKey}|${i.observation.as_of}|${i.observation.value}|${JSON.stringify(i.observation.attributes)}`).sort();

describe.skipIf(!HAVE_FIXTURES)('contract: the recorded CFTC annual file (../shared/fixtures/cftc/f_year_sample.txt, all 191 columns)', () => {
  const fixture = () => payload('f_year.txt', fixtureBytes('cftc/f_year_sample.txt'), '2026-04-17T19:30:00.000Z');

  it('parses all 44 rows (header file, quoted commas, "." trader counts) with net = long - short', () => {
    const items = cftcCot.toItems(fixture(), ctx);
    expect(items).toHaveLength(44);
    for (const { observation: o } of items) {
      expect(o.value).toBe((o.attributes.mm_long as number) - (o.attributes.mm_short as number));
      expect(o.attributes.open_interest as number).toBeGreaterThan(o.attributes.mm_long as number);
    }
    // GOLD 088691 on 2026-03-24: long 119562, short 27941, spreading 43825, OI 403925.
    expect(items.find((i) => i.seriesKey === 'COT#GC' && i.observation.as_of === '2026-03-24')!.observation).toMatchObject({
      value: 91621,
      attributes: { mm_long: 119562, mm_short: 27941, mm_spreading: 43825, open_interest: 403925, market: 'GOLD - COMMODITY EXCHANGE INC.' },
    });
  });

  it('gives exactly what the bundled samples give for those 44 market-weeks, also from inside an annual zip', async () => {
    const fromFixture = cftcCot.toItems(fixture(), ctx);
    const weeks = new Set(fromFixture.map((i) => `${i.seriesKey}|${i.observation.as_of}`));
    const fromSamples = key(
      (await cftcCot.samples()).flatMap((p) => cftcCot.toItems(p, ctx)).filter((i) => weeks.has(`${i.seriesKey}|${i.observation.as_of}`)),
    );
    expect(key(fromFixture)).toEqual(fromSamples);
    const zipped = payload('fut_disagg_txt_2026.zip', zip([{ name: 'f_year.txt', data: fixture().body }]));
    expect(key(cftcCot.toItems(zipped, ctx))).toEqual(fromSamples);
  });
});

describe.skipIf(!HAVE_FIXTURES)('contract: the recorded 20-market managed-money history (../shared/fixtures/cftc, 24 of 191 columns)', () => {
  const history = () => payload('f_year.csv', fixtureBytes('cftc/f_year.disagg-futonly.managed-money.20-markets.2023-01-03_2026-05-26.csv'));

  it('holds every mapped market, and the bundled samples give exactly its figures (the parser reads it by header)', async () => {
    const fromFixture = cftcCot.toItems(history(), ctx);
    expect(new Set(fromFixture.map((i) => i.observation.source?.series_id))).toEqual(ALL_CODES);
    const fromSamples = (await cftcCot.samples()).flatMap((p) => cftcCot.toItems(p, ctx));
    expect(key(fromSamples)).toEqual(key(fromFixture));
  });
});
