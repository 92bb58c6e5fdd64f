/**
 * CFTC annual disaggregated futures-only files (`fut_disagg_txt_<YYYY>.zip`, one `f_year.txt`:
 * the 191-column header row, then one row per market and report date, CRLF) written from the
 * 24-column managed-money fixture in ../shared/fixtures/cftc. Every kept field is the fixture's
 * token unchanged (quotes and space padding included); the 167 columns the fixture does not
 * carry are left empty, which the adapter never reads.
 */
import { zipSync } from 'fflate';

/** The comma-separated tokens of a CFTC line, raw (quotes kept); commas inside quotes do not split. */
const rawTokens = (line: string): string[] => {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
};

const unquote = (t: string) => t.trim().replace(/^"|"$/g, '');

/**
 * Widens the fixture's rows to the 191-column layout and splits them by report year.
 * @param header191 the real header line of the annual file (fixtures/cftc/f_year_sample.txt)
 * @param fixture the 24-column CSV (header of quoted CFTC names, then rows)
 * @returns year -> the annual file's text (header + rows in the fixture's order), CRLF
 * @throws Error when a fixture column is not in the 191-column header, or a row is short
 */
const annualFiles = (header191: string, fixture: string): Map<number, string> => {
  const names = rawTokens(header191).map(unquote);
  const [head, ...rows] = fixture.split(/\r?\n/).filter((l) => l.trim() !== '');
  const have = rawTokens(head ?? '').map(unquote);
  const at = have.map((n) => {
    const i = names.indexOf(n);
    if (i < 0) throw new Error(`cftc fixture column ${n} is not in the 191-column header`);
    return i;
  });
  const dateCol = have.indexOf('Report_Date_as_YYYY-MM-DD');
  const byYear = new Map<number, string[]>();
  for (const row of rows) {
    const tokens = rawTokens(row);
    if (tokens.length !== have.length) throw new Error(`cftc fixture row has ${tokens.length} fields, expected ${have.length}: ${row.slice(0, 80)}`);
    const wide = new Array<string>(names.length).fill('');
    tokens.forEach((t, j) => {
      wide[at[j]!] = t;
    });
    const year = Number(tokens[dateCol]!.trim().slice(0, 4));
    byYear.set(year, [...(byYear.get(year) ?? []), wide.join(',')]);
  }
  return new Map([...byYear].map(([y, lines]) => [y, `${header191.trimEnd()}\r\n${lines.join('\r\n')}\r\n`]));
};

/**
 * The CFTC's zip of one year: a single deflated `f_year.txt`.
 * @param mtime the member's timestamp (fixed, so a regeneration changes only what the data changed)
 */
const annualZip = (text: string, mtime: Date): Uint8Array => zipSync({ 'f_year.txt': [new TextEncoder().encode(text), { level: 9, mtime }] });

export { annualFiles, annualZip };
