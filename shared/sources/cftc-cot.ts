/**
 * CFTC Commitments of Traders, disaggregated futures-only: managed-money positioning per
 * contract market, stored under COT#<instrument> with as_of = the report date (Tuesday
 * positions) and value = managed-money net (long - short) in contracts.
 *
 * Formats (fixtures/cftc/SOURCE.md): the weekly current file `f_disagg.txt` (no header row) and,
 * for backfill, the annual zips `fut_disagg_txt_<YYYY>.zip` holding one `f_year.txt` (header
 * row, same 191 columns). Numbers are space-padded, text fields quoted (some with commas).
 */
import { unzipSync } from 'fflate';
import { parse } from 'csv-parse/sync';
import { COT_CONTRACTS, type CotContract } from '../catalog/cot-markets';
import { seriesKey } from '../catalog/series-keys';
import type { SeriesItem } from '../store/observation-store';
import { fetchPayload, makeObservation, payloadText, readSamples } from './common';
import { releaseOfPeriod } from './schedule';
import { findSource } from './registry';
import { mapLimit } from '../concurrency/map-limit';
import { SourceFormatError, type NormalizeContext, type Payload, type SourceAdapter } from './types';

const BY_CFTC_CODE: ReadonlyMap<string, CotContract> = new Map(COT_CONTRACTS.map((c) => [c.cftcCode, c]));

/** The columns read, with their 0-based position in the 191-column layout (header-less weekly file). */
const COLUMNS = {
  market: { name: 'Market_and_Exchange_Names', pos: 0 },
  yymmdd: { name: 'As_of_Date_In_Form_YYMMDD', pos: 1 },
  reportDate: { name: 'Report_Date_as_YYYY-MM-DD', pos: 2 },
  cftcCode: { name: 'CFTC_Contract_Market_Code', pos: 3 },
  openInterest: { name: 'Open_Interest_All', pos: 7 },
  mmLong: { name: 'M_Money_Positions_Long_All', pos: 13 },
  mmShort: { name: 'M_Money_Positions_Short_All', pos: 14 },
  mmSpread: { name: 'M_Money_Positions_Spread_All', pos: 15 },
  futOnly: { name: 'FutOnly_or_Combined', pos: 190 },
} as const;
type Column = keyof typeof COLUMNS;
const COLUMN_COUNT = 191;

/** One market-week of the report, as read. */
interface CotRow {
  market: string;
  reportDate: string;
  cftcCode: string;
  openInterest: number;
  mmLong: number;
  mmShort: number;
  mmSpread: number;
}

const parseCount = (raw: string | undefined, where: string): number => {
  const s = (raw ?? '').trim();
  // Positions are whole numbers of contracts; "." (no value) or "NA" in a position is a broken release.
  if (!/^\d+$/.test(s)) throw new SourceFormatError(`${where}: not a whole number of contracts: ${JSON.stringify(raw ?? null)}`);
  return Number(s);
};

/** `2026-04-14` (annual file) or `04/14/2026`; anything else is a format change. */
const parseReportDate = (raw: string, where: string): string => {
  const s = raw.trim();
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  const us = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(s);
  const date = iso ? s : us ? `${us[3]}-${us[1]}-${us[2]}` : null;
  if (!date || Number.isNaN(Date.parse(`${date}T00:00:00Z`))) throw new SourceFormatError(`${where}: bad report date ${JSON.stringify(raw)}`);
  return date;
};

/**
 * Parses a disaggregated futures-only text file (annual with header, or weekly without) and
 * returns the rows of the contract markets in `codes`, in file order.
 * @throws SourceFormatError on a missing or renamed column, a short row, a position that is
 *   not a whole number, a report date that disagrees with its YYMMDD twin, a combined
 *   (futures-and-options) file, or positions larger than the open interest
 */
const parseCotText = (text: string, name: string, codes: ReadonlySet<string>): CotRow[] => {
  let records: string[][];
  try {
    records = parse(text, { relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (err) {
    throw new SourceFormatError(`${name}: not a CFTC comma-separated file: ${(err as Error).message}`, { cause: err });
  }
  if (records.length === 0) throw new SourceFormatError(`${name}: no rows`);
  const first = records[0]!;
  const hasHeader = first[0]?.trim() === COLUMNS.market.name;
  const pos = {} as Record<Column, number>;
  if (hasHeader) {
    const header = first.map((h) => h.trim());
    for (const [key, col] of Object.entries(COLUMNS) as Array<[Column, (typeof COLUMNS)[Column]]>) {
      const at = header.indexOf(col.name);
      if (at < 0) throw new SourceFormatError(`${name}: missing column ${col.name}`);
      pos[key] = at;
    }
  } else {
    for (const [key, col] of Object.entries(COLUMNS) as Array<[Column, (typeof COLUMNS)[Column]]>) pos[key] = col.pos;
  }
  const width = hasHeader ? first.length : COLUMN_COUNT;
  const data = hasHeader ? records.slice(1) : records;
  if (data.length === 0) throw new SourceFormatError(`${name}: header only, no rows`);
  const rows: CotRow[] = [];
  const seen = new Set<string>();
  data.forEach((r, i) => {
    const line = i + (hasHeader ? 2 : 1);
    // Every row, of any market, must be whole: a short row means a truncated or re-shaped file.
    if (r.length !== width) throw new SourceFormatError(`${name}: line ${line} has ${r.length} columns, expected ${width}`);
    const cftcCode = (r[pos.cftcCode] ?? '').trim();
    if (!codes.has(cftcCode)) return;
    const where = `${name} line ${line} (${cftcCode})`;
    const reportDate = parseReportDate(r[pos.reportDate] ?? '', where);
    const yymmdd = (r[pos.yymmdd] ?? '').trim();
    if (yymmdd !== reportDate.slice(2).replace(/-/g, '')) {
      throw new SourceFormatError(`${where}: report date ${reportDate} disagrees with ${COLUMNS.yymmdd.name} ${JSON.stringify(yymmdd)}`);
    }
    const kind = (r[pos.futOnly] ?? '').trim();
    if (kind !== 'FutOnly') throw new SourceFormatError(`${where}: ${COLUMNS.futOnly.name} is ${JSON.stringify(kind)}, expected FutOnly`);
    const row: CotRow = {
      market: (r[pos.market] ?? '').trim(),
      reportDate,
      cftcCode,
      openInterest: parseCount(r[pos.openInterest], `${where} ${COLUMNS.openInterest.name}`),
      mmLong: parseCount(r[pos.mmLong], `${where} ${COLUMNS.mmLong.name}`),
      mmShort: parseCount(r[pos.mmShort], `${where} ${COLUMNS.mmShort.name}`),
      mmSpread: parseCount(r[pos.mmSpread], `${where} ${COLUMNS.mmSpread.name}`),
    };
    // A shifted column shows up as positions larger than the whole market.
    if (Math.max(row.mmLong, row.mmShort, row.mmSpread) > row.openInterest) {
      throw new SourceFormatError(`${where}: managed-money positions exceed open interest ${row.openInterest}`);
    }
    const key = `${cftcCode}:${reportDate}`;
    if (seen.has(key)) throw new SourceFormatError(`${where}: ${cftcCode} ${reportDate} appears twice`);
    seen.add(key);
    rows.push(row);
  });
  return rows;
};

/** True when the bytes start with a zip local-file header ("PK\x03\x04"). */
const isZip = (b: Uint8Array) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

/**
 * Extracts the single file of a zip archive (the CFTC annual zips hold one `f_year.txt`) with fflate.
 * @throws SourceFormatError on an unreadable archive or anything but exactly one file
 */
const unzipSingle = (zip: Uint8Array, name: string): { member: string; data: Uint8Array } => {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip, { filter: (f) => !f.name.endsWith('/') });
  } catch (err) {
    throw new SourceFormatError(`${name}: unreadable zip archive: ${(err as Error).message}`, { cause: err });
  }
  const members = Object.keys(files);
  if (members.length !== 1) throw new SourceFormatError(`${name}: expected one file in the zip, found ${members.length} (${members.join(', ')})`);
  return { member: members[0]!, data: files[members[0]!]! };
};

const def = findSource('cftc-cot')!;
const WEEKLY_URL = 'https://www.cftc.gov/dea/newcot/f_disagg.txt';
const annualZipUrl = (year: number) => `https://www.cftc.gov/files/dea/history/fut_disagg_txt_${year}.zip`;

/** Pure: payload (weekly text, annual text, or annual zip) -> COT#<code> items. */
const cotItems = (payload: Payload, ctx: NormalizeContext): SeriesItem[] => {
  let text: string;
  let name = payload.name;
  if (isZip(payload.body)) {
    const { member, data } = unzipSingle(payload.body, payload.name);
    name = `${payload.name}:${member}`;
    text = payloadText({ ...payload, name, body: data });
  } else {
    text = payloadText(payload);
  }
  return parseCotText(text, name, new Set(BY_CFTC_CODE.keys())).map((r) => {
    const contract = BY_CFTC_CODE.get(r.cftcCode)!;
    return {
      seriesKey: seriesKey.cot(contract.code),
      observation: makeObservation(ctx, {
        instrument: contract.code,
        value: r.mmLong - r.mmShort,
        unit: 'contracts',
        as_of: r.reportDate,
        freshness_class: 'weekly',
        // CFTC publishes long and short; the net is our subtraction.
        quality: 'derived',
        series_id: r.cftcCode,
        retrievedAt: payload.retrievedAt,
        attributes: {
          cftc_code: r.cftcCode,
          market: r.market,
          mm_long: r.mmLong,
          mm_short: r.mmShort,
          mm_spreading: r.mmSpread,
          open_interest: r.openInterest,
        },
      }),
    };
  });
};

/**
 * The bundled samples: the annual zips a backfill from 2023 fetches, by the last report date each
 * holds (released the Friday after, 15:30 ET). See samples/cftc-cot/README.md.
 */
const SAMPLE_YEARS = [
  { year: 2023, lastReport: '2023-12-26' },
  { year: 2024, lastReport: '2024-12-31' },
  { year: 2025, lastReport: '2025-12-30' },
  { year: 2026, lastReport: '2026-05-26' },
] as const;

const cftcCot: SourceAdapter = {
  def,
  /**
   * The current weekly file; with `since`, also every annual zip from that year on (the
   * current year's zip is updated weekly by the CFTC, so a backfill ends up complete).
   */
  live: (ctx) => {
    const targets: Array<{ url: string; name: string }> = [];
    if (ctx.since) {
      for (let y = Number(ctx.since.slice(0, 4)); y <= ctx.now.getUTCFullYear(); y++) {
        targets.push({ url: annualZipUrl(y), name: `fut_disagg_txt_${y}.zip` });
      }
    }
    targets.push({ url: WEEKLY_URL, name: 'f_disagg.txt' });
    return mapLimit(targets, ctx.concurrency, async (t, i) => {
      const p = await fetchPayload(ctx, t.url, t.name);
      ctx.onProgress?.(i + 1, targets.length);
      return p;
    });
  },
  samples: async () =>
    (
      await Promise.all(
        SAMPLE_YEARS.map((y) =>
          readSamples(def.id, [`fut_disagg_txt_${y.year}.zip`], releaseOfPeriod(def.schedule, y.lastReport)?.at ?? `${y.lastReport}T00:00:00.000Z`),
        ),
      )
    ).flat(),
  toItems: cotItems,
};

export { cftcCot, parseCotText, unzipSingle, WEEKLY_URL, annualZipUrl };
export type { CotRow };
