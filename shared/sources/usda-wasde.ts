/**
 * USDA WASDE monthly XML (`wasdeMMYY.xml`): the U.S. balance sheets of corn (sr12 matrix2),
 * soybeans (sr15 matrix1) and wheat (sr11 matrix1). fixtures/wasde/SOURCE.md describes the
 * structure; the attribute suffix N (`attribute1`, `attribute4`, `market_year2` …) differs by
 * matrix and sub-report, so the parser matches attribute names by pattern, never by N.
 *
 * Stored per report (series-keys.ts documents the keys):
 * - WASDE#<commodity>#US               one report-index item per report (sk = report month):
 *   the route reads the newest two with one query, so it needs no clock to find "latest" and
 *   "previous"; value = the projection year's ending stocks; attributes name the market years.
 * - WASDE#<commodity>#US#<market year> one item per market year per report: value = ending
 *   stocks, attributes = every balance-sheet line as published (beginning stocks, production,
 *   imports, supply total, domestic total, exports, use total, …), so a market year's history
 *   of estimates is one query.
 * Derived figures (stocks-to-use, soybean domestic use, changes) are computed by the route and
 * served as `derived`; nothing derived is stored.
 *
 * as_of = the first day of the report month (May 2025 report -> 2025-05-01): the XML names the
 * month but not the day. published_at = the release day at 12:00 ET from USDA's published
 * calendar (shared/calendar), estimated for a month not verified there.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { seriesKey } from '../catalog/series-keys';
import type { SeriesItem } from '../store/observation-store';
import { SourceFetchError, makeObservation, parseNumber, payloadText, readSamples } from './common';
import { findSource } from './registry';
import { SourceFormatError, type LiveContext, type NormalizeContext, type Payload, type SourceAdapter } from './types';
import type { WasdeCommodity } from '../catalog/fundamentals';

interface SubReportSpec {
  commodity: WasdeCommodity;
  /** Sub-report element, e.g. sr12. */
  sr: string;
  matrix: string;
  /** The sub-report title must match (guards against a renumbered page). */
  title: RegExp;
  /** Lines a balance sheet of this table must have. */
  required: readonly string[];
}

const BALANCE = ['beginning_stocks', 'production', 'imports', 'supply_total', 'exports', 'use_total', 'ending_stocks'] as const;

const SUB_REPORTS: readonly SubReportSpec[] = Object.freeze([
  { commodity: 'corn', sr: 'sr12', matrix: 'matrix2', title: /Feed Grain and Corn Supply and Use/i, required: [...BALANCE, 'domestic_total'] },
  {
    commodity: 'soybeans',
    sr: 'sr15',
    matrix: 'matrix1',
    title: /Soybeans and Products Supply and Use/i,
    required: [...BALANCE, 'crushings', 'seed', 'residual'],
  },
  { commodity: 'wheat', sr: 'sr11', matrix: 'matrix1', title: /Wheat Supply and Use/i, required: [...BALANCE, 'domestic_total'] },
]);

/** Publisher line label (trimmed, footnote marks dropped, lower case) -> attribute name. */
const LINE_NAMES: Readonly<Record<string, string>> = Object.freeze({
  'area planted': 'area_planted',
  'area harvested': 'area_harvested',
  'yield per harvested acre': 'yield',
  'beginning stocks': 'beginning_stocks',
  production: 'production',
  imports: 'imports',
  'supply, total': 'supply_total',
  'feed and residual': 'feed_and_residual',
  'food, seed & industrial': 'food_seed_industrial',
  'ethanol & by-products': 'ethanol',
  food: 'food',
  seed: 'seed',
  residual: 'residual',
  crushings: 'crushings',
  'domestic, total': 'domestic_total',
  exports: 'exports',
  'use, total': 'use_total',
  'ending stocks': 'ending_stocks',
  'avg. farm price ($/bu)': 'avg_farm_price',
});

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** One market year of one balance sheet as published in one report. */
interface BalanceSheet {
  marketYear: string;
  status: 'projection' | 'estimate' | 'final';
  lines: Record<string, number | null>;
  /** Lines whose cell carried the ` *` footnote (Prospective Plantings acreage, trend yield). */
  flagged: string[];
}

interface WasdeTable {
  commodity: WasdeCommodity;
  sr: string;
  matrix: string;
  /** "May 2025". */
  reportMonth: string;
  /** 2025-05-01. */
  asOf: string;
  wasdeNumber: number | null;
  title: string;
  /** Oldest first; the last one is the projection. */
  years: BalanceSheet[];
}

// ---- generic walk over fast-xml-parser's preserveOrder tree -------------------------------

type XNode = Record<string, unknown> & { ':@'?: Record<string, string> };

const tagOf = (n: XNode): string => Object.keys(n).find((k) => k !== ':@')!;
const childrenOf = (n: XNode): XNode[] => {
  const c = n[tagOf(n)];
  return Array.isArray(c) ? (c as XNode[]) : [];
};
const attrsOf = (n: XNode): Record<string, string> => n[':@'] ?? {};
/** The value of the first attribute whose name matches `pattern` (e.g. /^market_year\d+$/). */
const attrLike = (n: XNode, pattern: RegExp): string | undefined => {
  const a = attrsOf(n);
  const k = Object.keys(a).find((key) => pattern.test(key));
  return k === undefined ? undefined : String(a[k]);
};
function* descendants(n: XNode): Generator<XNode> {
  for (const c of childrenOf(n)) {
    yield c;
    yield* descendants(c);
  }
}
const findChild = (nodes: XNode[], tag: string): XNode | undefined => nodes.find((n) => tagOf(n) === tag);

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
});

const cleanLabel = (label: string): string =>
  label
    .replace(/\s+\d+\/\s*$/, '') // footnote marks "  4/"
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();

const parseReportMonth = (text: string, where: string): { asOf: string; monthIndex: number } => {
  const m = /^([A-Za-z]+)\s+(\d{4})$/.exec(text.trim());
  const monthIndex = m ? MONTHS.indexOf(m[1]!.slice(0, 3).toLowerCase()) : -1;
  if (!m || monthIndex < 0) throw new SourceFormatError(`${where}: Report_Month ${JSON.stringify(text)} is not "<Month> <YYYY>"`);
  return { asOf: `${m[2]}-${String(monthIndex + 1).padStart(2, '0')}-01`, monthIndex };
};

/** "1,415" -> 1415, "95.3 *" -> 95.3 (flagged), "NA" / "" -> null. */
const parseCell = (raw: string, where: string): { value: number | null; flagged: boolean } => {
  const v = raw.trim();
  if (v === 'NA' || v === '') return { value: null, flagged: false };
  const flagged = /\s*\*$/.test(v);
  return { value: parseNumber(v.replace(/\s*\*$/, ''), where), flagged };
};

/**
 * Reads one balance-sheet matrix.
 * @throws SourceFormatError when the report month, the unit, a market year or a required line is
 *   missing, or a required cell of the report's own month is NA / not a number
 */
const parseMatrix = (spec: SubReportSpec, inner: XNode, name: string): WasdeTable => {
  const where = `${name} ${spec.sr} ${spec.matrix}`;
  const attrs = attrsOf(inner);
  const title = (attrs.sub_report_title ?? '').trim();
  if (!spec.title.test(title)) throw new SourceFormatError(`${where}: sub-report title ${JSON.stringify(title)} is not ${spec.title.source}`);
  const { asOf, monthIndex } = parseReportMonth(attrs.Report_Month ?? '', where);
  const wasdeNumber = /WASDE\s*-\s*(\d+)/i.exec(attrs.page_title ?? '')?.[1];
  const matrix = findChild(childrenOf(inner), spec.matrix);
  if (!matrix) throw new SourceFormatError(`${where}: no ${spec.matrix} in ${spec.sr}`);

  const units = new Set<string>();
  for (const d of descendants(matrix)) {
    const u = attrLike(d, /unit_descr\d*$/);
    if (u?.trim()) units.add(u.trim());
  }
  if (!units.has('Million Bushels')) throw new SourceFormatError(`${where}: the table is not in Million Bushels (units: ${[...units].join(', ')})`);

  const years = new Map<string, BalanceSheet>();
  for (const node of descendants(matrix)) {
    const label = attrLike(node, /^attribute\d+$/);
    if (label === undefined || !/^attribute\d+$/.test(tagOf(node))) continue;
    const line = LINE_NAMES[cleanLabel(label)];
    if (!line) continue; // lines this service does not serve
    // cell per market year: the report month's column when the year has month columns
    const cells = new Map<string, Array<{ month: string; raw: string }>>();
    for (const yg of descendants(node)) {
      const my = attrLike(yg, /^market_year\d+$/);
      if (my === undefined) continue;
      for (const mg of descendants(yg)) {
        const month = attrLike(mg, /^forecast_month\d+$/);
        if (month === undefined) continue;
        for (const cell of descendants(mg)) {
          const raw = attrLike(cell, /^cell_value\d+$/);
          if (raw !== undefined) cells.set(my.trim(), [...(cells.get(my.trim()) ?? []), { month: month.trim(), raw }]);
        }
      }
    }
    for (const [label, list] of cells) {
      const m = /^(\d{4}\/\d{2})\s*(?:\(?\s*(Proj|Est)\.?\s*\)?)?$/i.exec(label);
      if (!m) throw new SourceFormatError(`${where}: market year ${JSON.stringify(label)} is not "YYYY/YY [Est.|Proj.]"`);
      const own = list.length === 1 ? list[0]! : list.find((c) => c.month.slice(0, 3).toLowerCase() === MONTHS[monthIndex]);
      if (!own) throw new SourceFormatError(`${where}: ${label} has no column for the report month ${MONTHS[monthIndex]}`);
      const status = /proj/i.test(m[2] ?? '') ? 'projection' : /est/i.test(m[2] ?? '') ? 'estimate' : 'final';
      const sheet = years.get(m[1]!) ?? { marketYear: m[1]!, status, lines: {}, flagged: [] };
      const cell = parseCell(own.raw, `${where} ${line} ${label}`);
      sheet.lines[line] = cell.value;
      if (cell.flagged) sheet.flagged.push(line);
      years.set(m[1]!, sheet);
    }
  }
  if (years.size === 0) throw new SourceFormatError(`${where}: no market-year columns`);
  const sorted = [...years.values()].sort((a, b) => a.marketYear.localeCompare(b.marketYear));
  for (const sheet of sorted) {
    for (const line of spec.required) {
      if (sheet.lines[line] === undefined) throw new SourceFormatError(`${where}: line ${line} is missing (renamed?)`);
      if (sheet.lines[line] === null) throw new SourceFormatError(`${where}: ${line} ${sheet.marketYear} is NA`);
    }
  }
  if (sorted.at(-1)!.status !== 'projection') throw new SourceFormatError(`${where}: the newest market year is not a projection`);
  return {
    commodity: spec.commodity,
    sr: spec.sr,
    matrix: spec.matrix,
    reportMonth: attrs.Report_Month!.trim(),
    asOf,
    wasdeNumber: wasdeNumber ? Number(wasdeNumber) : null,
    title,
    years: sorted,
  };
};

/**
 * Parses a WASDE XML document into the balance sheets of the sub-reports it contains (a live
 * report has all three; live() checks that).
 * @throws SourceFormatError on text that is not WASDE XML or holds none of sr11, sr12, sr15
 */
const parseWasdeXml = (xml: string, name: string): WasdeTable[] => {
  // The parser is lenient (a truncated download would parse); validate first.
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new SourceFormatError(`${name}: not well-formed XML (${valid.err.msg} at line ${valid.err.line})`);
  let doc: XNode[];
  try {
    doc = parser.parse(xml) as XNode[];
  } catch (err) {
    throw new SourceFormatError(`${name}: not well-formed XML (${(err as Error).message})`, { cause: err });
  }
  const root = doc.find((n) => tagOf(n) === 'Report' && attrsOf(n).Name === 'wasde');
  if (!root) throw new SourceFormatError(`${name}: no <Report Name="wasde"> root`);
  const tables = SUB_REPORTS.flatMap((spec) => {
    const sr = findChild(childrenOf(root), spec.sr);
    if (!sr) return [];
    const inner = findChild(childrenOf(sr), 'Report');
    if (!inner) throw new SourceFormatError(`${name}: ${spec.sr} has no inner <Report>`);
    return [parseMatrix(spec, inner, name)];
  });
  if (tables.length === 0) throw new SourceFormatError(`${name}: none of the sub-reports ${SUB_REPORTS.map((s) => s.sr).join(', ')} is present`);
  const months = new Set(tables.map((t) => t.asOf));
  if (months.size > 1) throw new SourceFormatError(`${name}: sub-reports disagree on the report month (${[...months].join(', ')})`);
  return tables;
};

const UNIT = 'million bushels';
const def = findSource('usda-wasde')!;

/** Pure: WASDE XML payload -> report-index and market-year items. */
const toItems = (payload: Payload, ctx: NormalizeContext): SeriesItem[] =>
  parseWasdeXml(payloadText(payload), payload.name).flatMap((t) => {
    const projection = t.years.at(-1)!;
    const common = {
      unit: UNIT,
      as_of: t.asOf,
      freshness_class: 'monthly' as const,
      url: `https://www.usda.gov/oce/commodity/wasde`,
      retrievedAt: payload.retrievedAt,
    };
    const report = { report_month: t.reportMonth, wasde_number: t.wasdeNumber, sub_report: `${t.sr} ${t.matrix}`, title: t.title, region: 'US' };
    const index: SeriesItem = {
      seriesKey: seriesKey.wasdeReports(t.commodity, 'US'),
      observation: makeObservation(ctx, {
        ...common,
        instrument: `WASDE:${t.commodity}:US`,
        value: projection.lines.ending_stocks!,
        series_id: `WASDE ${t.sr} ${t.matrix} ending stocks ${projection.marketYear}`,
        attributes: { ...report, statistic: 'ending_stocks', projection_year: projection.marketYear, market_years: t.years.map((y) => y.marketYear).join(',') },
      }),
    };
    const years = t.years.map((y) => ({
      seriesKey: seriesKey.wasde(t.commodity, 'US', y.marketYear),
      observation: makeObservation(ctx, {
        ...common,
        instrument: `WASDE:${t.commodity}:US:${y.marketYear}`,
        value: y.lines.ending_stocks!,
        series_id: `WASDE ${t.sr} ${t.matrix} ${y.marketYear}`,
        attributes: { ...report, market_year: y.marketYear, status: y.status, footnoted_lines: y.flagged.join(',') || null, ...y.lines },
      }),
    }));
    return [index, ...years];
  });

// ---- live ---------------------------------------------------------------------------------

const WASDE_BASE = 'https://www.usda.gov/oce/commodity/wasde';
const FETCH_TIMEOUT_MS = 30_000;

/** GET that answers null on 404 (a report not released yet, or no corrected v2). */
const fetchOptional = async (ctx: LiveContext, url: string, name: string): Promise<Payload | null> => {
  let res: Response;
  try {
    res = await ctx.fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (err) {
    throw new SourceFetchError(`${name}: request to ${url} failed: ${String((err as Error).message ?? err)}`, { cause: err });
  }
  if (res.status === 404) return null;
  if (!res.ok) throw new SourceFetchError(`${name}: HTTP ${res.status} from ${url}`);
  const body = new Uint8Array(await res.arrayBuffer());
  if (body.length === 0) throw new SourceFormatError(`${name}: empty body from ${url}`);
  return { name, body, retrievedAt: ctx.now.toISOString() };
};

/** wasdeMMYY for the month `back` months before `now`. */
const fileStem = (now: Date, back: number): string => {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
  return `wasde${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCFullYear()).slice(2)}`;
};

/**
 * The current month's report (when released) and the previous month's, so a run always stores
 * "latest" and "previous". A corrected reissue (`v2`) wins over the original.
 */
const live = async (ctx: LiveContext): Promise<Payload[]> => {
  const out: Payload[] = [];
  for (const back of [1, 0]) {
    const stem = fileStem(ctx.now, back);
    const p =
      (await fetchOptional(ctx, `${WASDE_BASE}/${stem}v2.xml`, `${stem}v2.xml`)) ?? (await fetchOptional(ctx, `${WASDE_BASE}/${stem}.xml`, `${stem}.xml`));
    if (!p) {
      // The current month's report may not be out yet; the previous month's must exist.
      if (back === 1) throw new SourceFetchError(`${stem}.xml: HTTP 404 from ${WASDE_BASE}/${stem}.xml (previous month's report)`);
      continue;
    }
    const text = payloadText(p);
    const absent = SUB_REPORTS.filter((s) => !text.includes(`<${s.sr}>`)).map((s) => s.sr);
    if (absent.length) throw new SourceFormatError(`${p.name}: sub-report(s) ${absent.join(', ')} missing from the WASDE XML`);
    // Two files of one report month would write the same items twice in one batch.
    const month = /Report_Month="([^"]+)"/.exec(text)?.[1];
    if (month && out.some((o) => payloadText(o).includes(`Report_Month="${month}"`))) {
      throw new SourceFormatError(`${p.name}: holds the ${month} report, like ${out[0]!.name}`);
    }
    out.push(p);
    ctx.onProgress?.(out.length, 2);
  }
  return out;
};

/** The newest sample report is May 2025 (released 2025-05-12 12:00 ET). */
const SAMPLES_RECORDED_AT = '2025-05-12T16:05:00.000Z';

const usdaWasde: SourceAdapter = {
  def,
  live,
  samples: () => readSamples(def.id, ['wasde0425.xml', 'wasde0525.xml'], SAMPLES_RECORDED_AT),
  toItems,
};

export { usdaWasde, parseWasdeXml, fileStem };
export type { WasdeTable, BalanceSheet };
