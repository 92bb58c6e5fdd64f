/**
 * Builders of publisher payloads for the World Bank, WASDE, NASS, FAS and USGS adapter tests:
 * the same wire formats as the live endpoints, with the figures a test needs (including the
 * broken variants). Figures named "real" below are copied from ../shared/fixtures.
 */
import ExcelJS from 'exceljs';
import { PINK_SHEET_SERIES } from '../../shared/sources/worldbank';

// ---- World Bank Pink Sheet ----------------------------------------------------------------

/** Real 2025M11 figures of the Pink Sheet released on 2 December 2025, by series code. */
const PINK_2025M11: Readonly<Record<string, number>> = Object.freeze({
  GOLD: 4087.19,
  SILVER: 50.432,
  PLATINUM: 1564.79,
  ALUMINUM: 2819.06,
  COPPER: 10812.03,
  NICKEL: 14670.77,
  ZINC: 3176.84,
  IRON_ORE: 102.48,
  MAIZE: 202.01642333333,
  WHEAT_US_SRW: 225.194604696,
  SOYBEANS: 445.83333333333,
  SOYBEAN_OIL: 1126.09998352941,
  SOYBEAN_MEAL: 411.66666666667,
  COFFEE_ARABIC: 9.045776322,
  COCOA: 5.61473,
  SUGAR_WLD: 0.315481122,
  COTTON_A_INDX: 1.656992392,
  RICE_05: 368,
});

type PinkCell = number | string | null;

interface PinkSheetSpec {
  /** Text of A4; null leaves it out. */
  updatedOn?: string | null;
  months: Array<{ period: string; values?: Record<string, PinkCell> }>;
  /** Series codes left out of the code row (a missing column). */
  drop?: string[];
  /** Series code -> another code in row 7 (a renamed column). */
  rename?: Record<string, string>;
  /** Series code -> unit text in row 6. */
  units?: Record<string, string>;
  sheetName?: string;
}

/** An xlsx in the Pink Sheet layout (title rows, names/units/codes in rows 5-7, months from row 8). */
const buildPinkSheet = async (spec: PinkSheetSpec): Promise<Uint8Array> => {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet(spec.sheetName ?? 'Monthly Prices');
  ws.getCell('A1').value = 'World Bank Commodity Price Data (The Pink Sheet)';
  ws.getCell('A2').value = 'monthly prices in nominal US dollars, 1960 to present';
  if (spec.updatedOn !== null) ws.getCell('A4').value = `Updated on ${spec.updatedOn ?? 'December 02, 2025'}`;
  // An unrelated column first, as in the real sheet (crude oil comes before the metals).
  const series = [
    { wb: 'CRUDE_PETRO', name: 'Crude oil, average', unit: '($/bbl)' },
    ...PINK_SHEET_SERIES.map((s) => ({ wb: s.wb, name: s.wb.charAt(0) + s.wb.slice(1).toLowerCase(), unit: s.publishedUnit })),
  ].filter((s) => !spec.drop?.includes(s.wb));
  series.forEach((s, i) => {
    ws.getCell(5, i + 2).value = s.name;
    ws.getCell(6, i + 2).value = spec.units?.[s.wb] ?? s.unit;
    ws.getCell(7, i + 2).value = spec.rename?.[s.wb] ?? (s.wb === 'ZINC' ? 'Zinc' : s.wb);
  });
  spec.months.forEach((m, r) => {
    ws.getCell(8 + r, 1).value = m.period;
    series.forEach((s, i) => {
      const v = m.values && s.wb in m.values ? m.values[s.wb]! : (PINK_2025M11[s.wb] ?? 60);
      ws.getCell(8 + r, i + 2).value = v;
    });
  });
  return new Uint8Array(await wb.xlsx.writeBuffer());
};

// ---- WASDE XML ----------------------------------------------------------------------------

interface WasdeTableSpec {
  sr: string;
  matrix: string;
  /** Attribute-name suffix N of this matrix (attribute1, attribute4 …). */
  n: number;
  title: string;
  /** [market-year label, forecast month] per column. */
  columns: Array<[string, string]>;
  /** [line label, one cell text per column]. */
  lines: Array<[string, string[]]>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

const matrixXml = (t: WasdeTableSpec): string => {
  const m = `m${t.matrix.replace('matrix', '')}`;
  const cols = (cell: (i: number) => string) =>
    `<${m}_year_group_Collection>${t.columns
      .map(
        ([year, month], i) =>
          `<${m}_year_group market_year${t.n}="${esc(year)}"><${m}_month_group_Collection><${m}_month_group forecast_month${t.n}="${esc(month)}">${cell(i)}</${m}_month_group></${m}_month_group_Collection></${m}_year_group>`,
      )
      .join('')}</${m}_year_group_Collection>`;
  const filler = `<${m}_filler1>${cols((i) => `<Cell ${m}_unit_descr${t.n}="${i === 0 ? 'Million Bushels' : ''}" />`)}</${m}_filler1>`;
  const lines = t.lines
    .map(
      ([label, cells]) =>
        `<attribute${t.n} attribute${t.n}="${esc(label)}">${cols((i) => `<Cell cell_value${t.n}="${esc(cells[i] ?? 'NA')}" />`)}</attribute${t.n}>`,
    )
    .join('');
  return `<${t.matrix}><${m}_attribute_group_Collection><${m}_attribute_group>${filler}${lines}</${m}_attribute_group></${m}_attribute_group_Collection></${t.matrix}>`;
};

/** A WASDE XML document holding the given tables, with the real prolog (BOM, declaration). */
const buildWasdeXml = (reportMonth: string, wasdeNumber: number, tables: WasdeTableSpec[]): string =>
  `\uFEFF<?xml version="1.0" encoding="utf-8"?><Report Name="wasde">${tables
    .map(
      (t) =>
        `<${t.sr}><Report Name="${t.sr}" Report_Month="${reportMonth}" page_title=" WASDE - ${wasdeNumber} - ${t.sr.slice(2)}" sub_report_title="${esc(t.title)}" sub_report_footer="Note: test">${matrixXml(t)}</Report></${t.sr}>`,
    )
    .join('')}</Report>`;

const MAY_COLUMNS: Array<[string, string]> = [
  ['2023/24', ''],
  ['2024/25 Est.', ''],
  ['2025/26 Proj.', 'Apr'],
  ['2025/26 Proj.', 'May'],
];

/** Real May 2025 U.S. corn (sr12 matrix2), with the publisher's label padding. */
const cornMay2025 = (over: Partial<Record<string, string[]>> = {}): WasdeTableSpec => ({
  sr: 'sr12',
  matrix: 'matrix2',
  n: 2,
  title: 'U.S. Feed Grain and Corn Supply and Use  1/',
  columns: [
    ['2023/24', ''],
    ['2024/25 Est.', ''],
    ['2025/26 Proj.', 'April'],
    ['2025/26 Proj.', 'May'],
  ],
  lines: (
    [
      ['Area Planted', ['94.6', '90.6', 'NA', '95.3 *']],
      ['Beginning Stocks', ['1,360', '1,763', 'NA', '1,415']],
      ['Production', ['15,341', '14,867', 'NA', '15,820']],
      ['Imports', ['28', '25', 'NA', '25']],
      ['    Supply, Total', ['16,729', '16,655', 'NA', '17,260']],
      ['    Domestic, Total', ['12,673', '12,640', 'NA', '12,785']],
      ['Exports', ['2,292', '2,600', 'NA', '2,675']],
      ['    Use, Total', ['14,966', '15,240', 'NA', '15,460']],
      ['Ending Stocks', ['1,763', '1,415', 'NA', '1,800']],
      ['Avg. Farm Price ($/bu)  4/', ['4.55', '4.35', 'NA', '4.20']],
    ] as Array<[string, string[]]>
  ).map(([label, cells]) => [label, over[label] ?? cells]),
});

/** Real May 2025 U.S. soybeans (sr15 matrix1; attribute suffix 4). */
const soybeansMay2025 = (): WasdeTableSpec => ({
  sr: 'sr15',
  matrix: 'matrix1',
  n: 4,
  title: 'U.S. Soybeans and Products Supply and Use (Domestic Measure)  1/',
  columns: MAY_COLUMNS,
  lines: [
    ['Beginning Stocks', ['264', '342', 'NA', '350']],
    ['Production', ['4,162', '4,366', 'NA', '4,340']],
    ['Imports', ['21', '25', 'NA', '20']],
    ['    Supply, Total', ['4,447', '4,734', 'NA', '4,710']],
    ['Crushings', ['2,285', '2,420', 'NA', '2,490']],
    ['Exports', ['1,695', '1,850', 'NA', '1,815']],
    ['Seed', ['75', '72', 'NA', '73']],
    ['Residual', ['49', '42', 'NA', '37']],
    ['    Use, Total', ['4,105', '4,384', 'NA', '4,415']],
    ['Ending Stocks', ['342', '350', 'NA', '295']],
  ],
});

/** Real May 2025 U.S. wheat (sr11 matrix1). */
const wheatMay2025 = (): WasdeTableSpec => ({
  sr: 'sr11',
  matrix: 'matrix1',
  n: 1,
  title: 'U.S. Wheat Supply and Use  1/',
  columns: MAY_COLUMNS,
  lines: [
    ['Beginning Stocks', ['570', '696', 'NA', '841']],
    ['Production', ['1,804', '1,971', 'NA', '1,921']],
    ['Imports', ['138', '150', 'NA', '120']],
    ['  Supply, Total', ['2,512', '2,818', 'NA', '2,882']],
    ['  Domestic, Total', ['1,108', '1,157', 'NA', '1,159']],
    ['Exports', ['707', '820', 'NA', '800']],
    ['  Use, Total', ['1,815', '1,977', 'NA', '1,959']],
    ['Ending Stocks', ['696', '841', 'NA', '923']],
  ],
});

/** The three May 2025 tables, optionally relabelled as another report month (test data only). */
const wasdeMay2025 = (reportMonth = 'May 2025', wasdeNumber = 660, corn: WasdeTableSpec = cornMay2025()): string => {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const i = months.indexOf(reportMonth.slice(0, 3));
  const [previous, month] = i < 0 ? ['', reportMonth] : [months[(i + 11) % 12]!, months[i]!];
  // The projection's two columns: last month's (NA in May) and the report month's.
  const relabel = (t: WasdeTableSpec): WasdeTableSpec => ({
    ...t,
    columns: t.columns.map(([y, m], c) => [y, c === t.columns.length - 1 ? month : c === t.columns.length - 2 ? previous : m]),
  });
  return buildWasdeXml(reportMonth, wasdeNumber, [relabel(wheatMay2025()), relabel(corn), relabel(soybeansMay2025())]);
};

// ---- NASS Quick Stats ---------------------------------------------------------------------

/** One Quick Stats record with every one of the 39 keys (empty strings where unused). */
const nassRecord = (over: Record<string, string | number>): Record<string, string | number> => {
  const keys =
    `source_desc sector_desc group_desc commodity_desc class_desc prodn_practice_desc util_practice_desc statisticcat_desc unit_desc short_desc domain_desc domaincat_desc agg_level_desc state_ansi state_fips_code state_alpha state_name asd_code asd_desc county_ansi county_code county_name region_desc zip_5 watershed_code watershed_desc congr_district_code country_code country_name location_desc freq_desc begin_code end_code reference_period_desc week_ending load_time Value`.split(
      ' ',
    );
  const r: Record<string, string | number> = Object.fromEntries(keys.map((k) => [k, '']));
  Object.assign(r, {
    source_desc: 'SURVEY',
    sector_desc: 'CROPS',
    group_desc: 'FIELD CROPS',
    commodity_desc: 'CORN',
    class_desc: 'ALL CLASSES',
    statisticcat_desc: 'PROGRESS',
    unit_desc: 'PCT PLANTED',
    short_desc: 'CORN - PROGRESS, MEASURED IN PCT PLANTED',
    agg_level_desc: 'NATIONAL',
    state_alpha: 'US',
    state_name: 'US TOTAL',
    freq_desc: 'WEEKLY',
    reference_period_desc: 'WEEK #23',
    week_ending: '2025-06-08',
    load_time: '2025-06-09 15:00:00.000',
    year: 2025,
    Value: '93',
    'CV (%)': '',
    ...over,
  });
  return r;
};

const nassBody = (records: Array<Record<string, string | number>>): string => JSON.stringify({ data: records });

/** Corn condition records of one week: excellent, good, fair, poor, very poor. */
const cornCondition = (week: string, values: [number, number, number, number, number]) =>
  (['EXCELLENT', 'GOOD', 'FAIR', 'POOR', 'VERY POOR'] as const).map((c, i) =>
    nassRecord({
      statisticcat_desc: 'CONDITION',
      unit_desc: `PCT ${c}`,
      short_desc: `CORN - CONDITION, MEASURED IN PCT ${c}`,
      week_ending: week,
      Value: String(values[i]),
    }),
  );

// ---- FAS ESR ------------------------------------------------------------------------------

interface EsrRowInput {
  commodityCode?: number;
  countryCode: number;
  week: string;
  weeklyExports?: number;
  accumulatedExports?: number;
  outstandingSales?: number;
  grossNewSales?: number;
  currentMYNetSales?: number;
  currentMYTotalCommitment?: number;
  nextMYOutstandingSales?: number;
  nextMYNetSales?: number;
  unitId?: number;
}

/** One ESR weekly row in the API's key order. */
const esrRow = (r: EsrRowInput): Record<string, unknown> => ({
  commodityCode: r.commodityCode ?? 801,
  countryCode: r.countryCode,
  weeklyExports: r.weeklyExports ?? 100,
  accumulatedExports: r.accumulatedExports ?? 1000,
  outstandingSales: r.outstandingSales ?? 500,
  grossNewSales: r.grossNewSales ?? 60,
  currentMYNetSales: r.currentMYNetSales ?? 50,
  currentMYTotalCommitment: r.currentMYTotalCommitment ?? 1500,
  nextMYOutstandingSales: r.nextMYOutstandingSales ?? 0,
  nextMYNetSales: r.nextMYNetSales ?? 0,
  unitId: r.unitId ?? 1,
  weekEndingDate: `${r.week}T00:00:00`,
});

export { buildPinkSheet, buildWasdeXml, cornMay2025, wasdeMay2025, nassRecord, nassBody, cornCondition, esrRow };
export type { PinkSheetSpec, WasdeTableSpec, EsrRowInput };
