/**
 * World Bank Commodity Price Data ("Pink Sheet"), monthly: GC SI PL AL HG NI ZN IO ZC ZW ZS ZL
 * ZM KC CC SB CT ZR from the `Monthly Prices` sheet of CMO-Historical-Data-Monthly.xlsx.
 *
 * Two steps, because decoding is a step of its own that `toItems` (pure) should not repeat:
 * 1. `decodePinkSheet` (xlsx.ts) turns the workbook into a plain grid of the
 *    `Monthly Prices` sheet, serialised as the payload body (JSON). live() and samples() both
 *    go through it, so the runner records a broken or empty workbook as a failed run.
 * 2. `parsePinkSheet` / `toItems` (pure, sync) read the grid: the "Updated on" release date,
 *    the series-code row, the units row, and one row per month (`YYYYMmm`).
 *
 * Choices (documented in the samples README and llms-full.txt by the lead):
 * - as_of = the first day of the month the average covers (2025M11 -> 2025-11-01), the same
 *   convention FRED uses for monthly series; `attributes.period` keeps "2025M11".
 * - published_at = each month's first release: the release after the month (the second business
 *   day rule of shared/calendar), or this workbook's "Updated on" day for the months it is the
 *   first to carry. The World Bank states no time: the end of that day (Eastern), never 00:00 UTC,
 *   which would date it before the release. Marked `published_at_estimated` unless the day comes
 *   from the workbook itself (this one, or a recorded one: shared/calendar/recorded.ts). Values are
 *   those of this workbook (a release may revise earlier months).
 * - Catalog-unit conversions come from units.ts; a converted figure is `derived` and keeps
 *   the published value and unit in its attributes. Metals already in the catalog unit are
 *   `official`.
 * - Missing values are the text `…` (U+2026) or `...`, or an empty cell: no observation. Any
 *   other text in a price cell (e.g. "NA") is a format change and fails the run.
 * - Palladium is not in the Pink Sheet; PA is not served from here (see usgs-mcs.ts).
 */
import * as z from '../zod';
import { CASH_PROXY_NOTES, findInstrument } from '../catalog/instruments';
import { seriesKey } from '../catalog/series-keys';
import type { SeriesItem } from '../store/observation-store';
import { fetchPayload, makeObservation, parseNumber, payloadText, readSamples } from './common';
import { findSource } from './registry';
import { CONVERSIONS, convert, type Conversion } from './units';
import { SourceFormatError, type LiveContext, type NormalizeContext, type Payload, type SourceAdapter } from './types';
import { readSheet, SheetNotFoundError } from './xlsx';
import { endOfDay } from '../calendar';
import { releaseOfPeriod } from './schedule';

const SHEET = 'Monthly Prices';
const LANDING_PAGE = 'https://www.worldbank.org/en/research/commodity-markets';
const WORKBOOK = 'CMO-Historical-Data-Monthly.xlsx';

interface PinkSheetSeries {
  /** Catalog code. */
  readonly code: string;
  /** Series code in row 7 (matched case-insensitively: the sheet writes `Zinc`, `Tin`). */
  readonly wb: string;
  /** Unit as row 6 writes it; anything else is a format change. */
  readonly publishedUnit: string;
  /** Conversion to the catalog unit, or null when the published unit is the catalog unit. */
  readonly conversion: Conversion | null;
}

const s = (code: string, wb: string, publishedUnit: string, conversion: Conversion | null = null): PinkSheetSeries =>
  Object.freeze({ code, wb, publishedUnit, conversion });

/** Catalog code -> Pink Sheet series (fixtures/worldbank/SOURCE.md lists columns and units). */
const PINK_SHEET_SERIES: readonly PinkSheetSeries[] = Object.freeze([
  s('GC', 'GOLD', '($/troy oz)'),
  s('SI', 'SILVER', '($/troy oz)'),
  s('PL', 'PLATINUM', '($/troy oz)'),
  s('AL', 'ALUMINUM', '($/mt)'),
  s('HG', 'COPPER', '($/mt)'),
  s('NI', 'NICKEL', '($/mt)'),
  s('ZN', 'ZINC', '($/mt)'),
  s('IO', 'IRON_ORE', '($/dmtu)'),
  s('ZC', 'MAIZE', '($/mt)', CONVERSIONS.maizeMtToBu),
  s('ZW', 'WHEAT_US_SRW', '($/mt)', CONVERSIONS.wheatMtToBu),
  s('ZS', 'SOYBEANS', '($/mt)', CONVERSIONS.soybeansMtToBu),
  s('ZL', 'SOYBEAN_OIL', '($/mt)', CONVERSIONS.mtToLb),
  s('ZM', 'SOYBEAN_MEAL', '($/mt)', CONVERSIONS.mtToShortTon),
  s('KC', 'COFFEE_ARABIC', '($/kg)', CONVERSIONS.kgToLb),
  s('CC', 'COCOA', '($/kg)', CONVERSIONS.kgToMt),
  s('SB', 'SUGAR_WLD', '($/kg)', CONVERSIONS.kgToLb),
  s('CT', 'COTTON_A_INDX', '($/kg)', CONVERSIONS.kgToLb),
  s('ZR', 'RICE_05', '($/mt)', CONVERSIONS.mtToCwt),
]);

// ---------------------------------------------------------------------------------------------
// Step 1: xlsx -> grid

type GridCell = string | number | null;
const GridSchema = z.object({ sheet: z.string(), rows: z.array(z.array(z.union([z.string(), z.number(), z.null()]))) });
type Grid = z.infer<typeof GridSchema>;

/**
 * Reads the `Monthly Prices` sheet of a Pink Sheet workbook into a grid (row 1 = index 0,
 * column A = index 0) and returns it as a JSON payload for toItems.
 * @throws SourceFormatError when the bytes are not an xlsx or the sheet is missing
 */
const decodePinkSheet = async (xlsx: Payload): Promise<Payload> => {
  if (xlsx.body.length === 0) throw new SourceFormatError(`${xlsx.name}: empty workbook`);
  let rows: GridCell[][];
  try {
    rows = readSheet(xlsx.body, SHEET);
  } catch (err) {
    if (err instanceof SheetNotFoundError) throw new SourceFormatError(`${xlsx.name}: ${err.message}`);
    throw new SourceFormatError(`${xlsx.name}: not a readable xlsx workbook (${(err as Error).message})`, { cause: err });
  }
  const grid: Grid = { sheet: SHEET, rows };
  return {
    name: `${xlsx.name}#${SHEET}`,
    body: new TextEncoder().encode(JSON.stringify(grid)),
    retrievedAt: xlsx.retrievedAt,
  };
};

// ---------------------------------------------------------------------------------------------
// Step 2: grid -> monthly rows (pure)

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MISSING_MARKERS = new Set(['', '\u2026', '...']);

interface PinkSheetColumn {
  series: PinkSheetSeries;
  /** 0-based column index. */
  col: number;
  /** Name in row 5, trimmed (e.g. "Rice, Thai 5%"). */
  name: string;
  /** The series code exactly as the sheet writes it (`Zinc`, not `ZINC`): the publisher's id. */
  publishedCode: string;
}

interface PinkSheet {
  /** Release day from "Updated on December 02, 2025": 2025-12-02. */
  updatedOn: string;
  columns: PinkSheetColumn[];
  /** Oldest first; value null when the sheet marks the month missing. */
  months: Array<{ period: string; asOf: string; values: Map<string, number | null> }>;
}

const text = (c: GridCell | undefined): string => (c === null || c === undefined ? '' : String(c)).trim();

/** "Updated on December 02, 2025" -> "2025-12-02". */
const parseUpdatedOn = (cell: string): string | null => {
  const m = /updated on\s+([a-z]+)\s+(\d{1,2}),\s*(\d{4})/i.exec(cell);
  if (!m) return null;
  const month = MONTHS.indexOf(m[1]!.toLowerCase()) + 1;
  if (month === 0) return null;
  return `${m[3]}-${String(month).padStart(2, '0')}-${m[2]!.padStart(2, '0')}`;
};

/**
 * Parses the grid of the `Monthly Prices` sheet.
 * @throws SourceFormatError when the release date, the code row, a series column or its unit is
 *   missing or changed, a period is malformed or repeated, or a price cell holds other text
 */
const parsePinkSheet = (grid: Grid, name: string): PinkSheet => {
  const { rows } = grid;
  const head = rows.slice(0, 12);
  const updatedOn = head.map((r) => parseUpdatedOn(text(r[0]))).find(Boolean);
  if (!updatedOn) throw new SourceFormatError(`${name}: no "Updated on <Month DD, YYYY>" release date in column A of the title rows`);

  // The series-code row holds the codes in capitals (row 7 in every release checked; the name row
  // above it says "Gold"); units and names sit in the two rows above it. It is the last title row
  // with at least half of our codes, so one renamed code still gets its own clear error below.
  const wanted = new Set(PINK_SHEET_SERIES.map((p) => p.wb));
  const codeRow = head.findLastIndex((r) => r.filter((c) => /^[A-Z_]+$/.test(text(c)) && wanted.has(text(c))).length >= wanted.size / 2);
  if (codeRow < 2) throw new SourceFormatError(`${name}: series-code row (GOLD, MAIZE, …) not found in the first rows`);
  const codes = rows[codeRow]!.map((c) => text(c).toUpperCase());
  const columns = PINK_SHEET_SERIES.map((series) => {
    const col = codes.indexOf(series.wb);
    if (col < 0) throw new SourceFormatError(`${name}: column ${series.wb} (${series.code}) is missing from the series-code row`);
    const unit = text(rows[codeRow - 1]![col]);
    if (unit !== series.publishedUnit) {
      throw new SourceFormatError(`${name}: ${series.wb} is published in ${JSON.stringify(unit)}, expected ${series.publishedUnit}`);
    }
    return { series, col, name: text(rows[codeRow - 2]![col]) || series.wb, publishedCode: text(rows[codeRow]![col]) };
  });

  const seen = new Set<string>();
  const months: PinkSheet['months'] = [];
  for (let r = codeRow + 1; r < rows.length; r++) {
    const row = rows[r]!;
    const period = text(row[0]);
    if (period === '' && row.every((c) => text(c) === '')) continue; // formatted but empty trailing rows
    const m = /^(\d{4})M(0[1-9]|1[0-2])$/.exec(period);
    if (!m) throw new SourceFormatError(`${name}: row ${r + 1}: period ${JSON.stringify(period)} is not YYYYMmm`);
    if (seen.has(period)) throw new SourceFormatError(`${name}: row ${r + 1}: period ${period} appears twice`);
    seen.add(period);
    const values = new Map<string, number | null>();
    for (const { series, col } of columns) {
      const cell = row[col] ?? null;
      if (typeof cell === 'number') {
        if (!Number.isFinite(cell)) throw new SourceFormatError(`${name}: ${period} ${series.wb}: not a finite number`);
        values.set(series.code, cell);
      } else if (MISSING_MARKERS.has(text(cell))) {
        values.set(series.code, null);
      } else {
        values.set(series.code, parseNumber(cell, `${name}: ${period} ${series.wb}`));
      }
    }
    months.push({ period, asOf: `${m[1]}-${m[2]}-01`, values });
  }
  if (months.length === 0) throw new SourceFormatError(`${name}: no monthly rows below the series-code row`);
  months.sort((a, b) => a.period.localeCompare(b.period));
  return { updatedOn, columns, months };
};

const parseGridPayload = (p: Payload): Grid => {
  let json: unknown;
  try {
    json = JSON.parse(payloadText(p));
  } catch (err) {
    throw new SourceFormatError(`${p.name}: not a decoded Pink Sheet grid`, { cause: err });
  }
  const grid = GridSchema.safeParse(json);
  if (!grid.success) throw new SourceFormatError(`${p.name}: not a decoded Pink Sheet grid`);
  return grid.data;
};

const def = findSource('worldbank')!;

/** Pure: the decoded grid payload -> PRICE#<code> items. */
const toItems = (payload: Payload, ctx: NormalizeContext): SeriesItem[] => {
  const sheet = parsePinkSheet(parseGridPayload(payload), payload.name);
  return sheet.months.flatMap(({ period, asOf, values }) => {
    const first = firstRelease(asOf, sheet.updatedOn);
    return sheet.columns.flatMap(({ series, name, publishedCode }) => {
      const raw = values.get(series.code);
      if (raw === null || raw === undefined) return [];
      const instrument = findInstrument(series.code)!;
      const proxy = CASH_PROXY_NOTES[series.code];
      const base = {
        wb_series: name,
        period,
        published_unit: series.publishedUnit.replace(/[()]/g, ''),
        published_on: sheet.updatedOn,
        ...(proxy ? { cash_proxy_note: proxy } : {}),
      };
      const converted = series.conversion
        ? {
            value: convert(raw, series.conversion),
            quality: 'derived' as const,
            attributes: { ...base, published_value: raw, conversion: series.conversion.method },
          }
        : { value: raw, quality: 'official' as const, attributes: base };
      return [
        {
          seriesKey: seriesKey.price(series.code),
          observation: makeObservation(ctx, {
            instrument: series.code,
            value: converted.value,
            unit: instrument.unit,
            as_of: asOf,
            freshness_class: instrument.freshness,
            quality: converted.quality,
            series_id: publishedCode,
            url: LANDING_PAGE,
            retrievedAt: payload.retrievedAt,
            published_at: first.at,
            published_at_estimated: first.estimated,
            attributes: converted.attributes,
          }),
        },
      ];
    });
  });
};

/**
 * When a month was first published: by the calendar rule (the release after it), unless that rule
 * does not put it before the workbook in hand, which then is its first release and says its day.
 * @example firstRelease('2025-11-01', '2025-12-02') // { at: '2025-12-03T04:59:59.000Z', estimated: false }
 */
const firstRelease = (asOf: string, updatedOn: string): { at: string; estimated: boolean } => {
  const rule = releaseOfPeriod(def.schedule, asOf);
  if (!rule || rule.date >= updatedOn) return { at: endOfDay(updatedOn, 'America/New_York'), estimated: false };
  return { at: rule.at, estimated: rule.estimated };
};

/** The workbook link on the landing page (its release hash changes every month). */
const findWorkbookLink = (html: string, base: string): string => {
  const m = /href\s*=\s*["']([^"']*CMO-Historical-Data-Monthly\.xlsx)["']/i.exec(html);
  if (!m) throw new SourceFormatError(`${base}: no link to ${WORKBOOK} on the landing page`);
  return new URL(m[1]!.replace(/&amp;/g, '&'), base).toString();
};

const live = async (ctx: LiveContext): Promise<Payload[]> => {
  const page = await fetchPayload(ctx, LANDING_PAGE, 'worldbank landing page');
  const url = findWorkbookLink(payloadText(page), LANDING_PAGE);
  const xlsx = await fetchPayload(ctx, url, WORKBOOK);
  ctx.onProgress?.(1, 1);
  return [await decodePinkSheet(xlsx)];
};

/** When the sample's figures were current: the Pink Sheet release of 2025-12-02. */
const SAMPLES_RECORDED_AT = '2025-12-02T17:00:00.000Z';

const worldbank: SourceAdapter = {
  def,
  live,
  samples: async () => Promise.all((await readSamples(def.id, [WORKBOOK], SAMPLES_RECORDED_AT)).map(decodePinkSheet)),
  toItems,
};

export { worldbank, decodePinkSheet, findWorkbookLink, PINK_SHEET_SERIES };
export type { PinkSheet, PinkSheetSeries, Grid };
