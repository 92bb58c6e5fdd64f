/**
 * Reads the cell values of one sheet of an xlsx workbook (Office Open XML): a zip of XML parts,
 * unzipped with fflate and parsed with fast-xml-parser, both already used by other adapters. It
 * replaces exceljs (about 1 MB of the ingestion bundle with its dependencies) for the one thing
 * the World Bank adapter needs: values as text or numbers, no styles, no writing.
 *
 * Cells as exceljs gives them: numbers (formulas by their cached result), text (shared, inline or
 * rich text joined, without phonetic runs), booleans and errors as text, ISO dates as ISO text.
 * Unlike exceljs it does not turn date-formatted numbers into dates or copy a merged range's value
 * into its other cells: the Pink Sheet holds neither where it is read.
 */
import { strFromU8, unzipSync } from 'fflate';
import { XMLParser } from 'fast-xml-parser';

type Cell = string | number | null;
type Xml = Record<string, unknown>;

/** The sheet is not there (the message lists the sheets the workbook has). */
class SheetNotFoundError extends Error {
  constructor(
    readonly sheet: string,
    readonly sheets: readonly string[],
  ) {
    super(`no "${sheet}" sheet (sheets: ${sheets.join(', ')})`);
    this.name = 'SheetNotFoundError';
  }
}

const REPEATED = new Set(['sheet', 'Relationship', 'si', 'r', 'row', 'c']);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // Values stay text (numbers are converted per cell type) and keep their spaces.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  isArray: (name) => REPEATED.has(name),
});

const list = (v: unknown): Xml[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]) as Xml[];

/** Text of a `<t>` element (a plain string, or `#text` when it has attributes such as xml:space). */
const textOf = (t: unknown): string => (typeof t === 'string' ? t : typeof t === 'object' && t !== null ? String((t as Xml)['#text'] ?? '') : '');

/** A string item (`<si>` or `<is>`): its own `<t>`, or its runs' `<t>` joined; phonetic runs (`<rPh>`) are not text. */
const stringItem = (si: Xml | undefined): string =>
  si === undefined
    ? ''
    : si.t !== undefined
      ? textOf(si.t)
      : list(si.r)
          .map((r) => textOf(r.t))
          .join('');

/** `BC12` -> 54 (1-based column). */
const columnOf = (ref: string): number => {
  let col = 0;
  for (const ch of ref.toUpperCase()) {
    const code = ch.charCodeAt(0);
    if (code < 65 || code > 90) break;
    col = col * 26 + (code - 64);
  }
  return col;
};

const cellValue = (c: Xml, shared: readonly string[]): Cell => {
  const type = c['@_t'];
  if (type === 'inlineStr') return stringItem(c.is as Xml | undefined);
  const v = c.v === undefined ? undefined : textOf(c.v);
  if (v === undefined) return null;
  switch (type) {
    case 's':
      return shared[Number(v)] ?? null;
    case 'b':
      return v === '1' ? 'true' : 'false';
    case 'd':
      return Number.isNaN(Date.parse(v)) ? v : new Date(v).toISOString();
    case 'str':
    case 'e':
      return v;
    default:
      return Number(v);
  }
};

/**
 * The values of one sheet, row 1 = index 0, column A = index 0; cells without a value are null,
 * rows without cells are empty arrays.
 * @throws SheetNotFoundError when the workbook has no sheet of that name
 * @throws Error when the bytes are not an xlsx workbook
 */
const readSheet = (xlsx: Uint8Array, sheetName: string): Cell[][] => {
  const part = (name: string, files: Record<string, Uint8Array>) => (files[name] ? (parser.parse(strFromU8(files[name])) as Xml) : undefined);
  const meta = unzipSync(xlsx, { filter: (f) => ['xl/workbook.xml', 'xl/_rels/workbook.xml.rels', 'xl/sharedStrings.xml'].includes(f.name) });
  const workbook = part('xl/workbook.xml', meta);
  if (!workbook) throw new Error('no xl/workbook.xml');
  const sheets = list(((workbook.workbook as Xml | undefined)?.sheets as Xml | undefined)?.sheet);
  const sheet = sheets.find((s) => s['@_name'] === sheetName);
  if (!sheet)
    throw new SheetNotFoundError(
      sheetName,
      sheets.map((s) => String(s['@_name'])),
    );
  const rels = list((part('xl/_rels/workbook.xml.rels', meta)?.Relationships as Xml | undefined)?.Relationship);
  const target = String(rels.find((r) => r['@_Id'] === sheet['@_r:id'])?.['@_Target'] ?? '');
  const path = target.startsWith('/') ? target.slice(1) : `xl/${target}`;
  const shared = list((part('xl/sharedStrings.xml', meta)?.sst as Xml | undefined)?.si).map(stringItem);

  const data = part(path, unzipSync(xlsx, { filter: (f) => f.name === path }));
  if (!data) throw new Error(`no ${path} for sheet "${sheetName}"`);
  const rows: Cell[][] = [];
  let rowNumber = 0;
  for (const row of list(((data.worksheet as Xml | undefined)?.sheetData as Xml | undefined)?.row)) {
    rowNumber = row['@_r'] ? Number(row['@_r']) : rowNumber + 1;
    const cells: Cell[] = [];
    let col = 0;
    for (const c of list(row.c)) {
      col = c['@_r'] ? columnOf(String(c['@_r'])) : col + 1;
      cells[col - 1] = cellValue(c, shared);
    }
    rows[rowNumber - 1] = Array.from(cells, (v) => v ?? null);
  }
  return Array.from(rows, (r) => r ?? []);
};

export { readSheet, SheetNotFoundError };
export type { Cell };
