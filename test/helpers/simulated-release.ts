/**
 * A simulated WPSR release (issue 37): the bundled EIA sample of commercial crude stocks
 * (PET.WCESTUS1.W, EIA's own JSON, see shared/sources/samples/eia-petroleum/README.md) with one more
 * week on top. That week is SYNTHETIC: its figure is the last real week's plus `changeMbbl`, made up
 * for the test. Written under its wire name, as `npm run ingest -- eia-petroleum --file` reads it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SAMPLE = 'shared/sources/samples/eia-petroleum/PET.WCESTUS1.W.json';

interface EiaRow {
  period: string;
  series: string;
  value: string;
  units: string;
}

/**
 * Writes the sample plus one synthetic week after its newest.
 * @returns the file's path and the synthetic week's date and level
 */
const simulatedWpsrRelease = (changeMbbl = 1234): { path: string; asOf: string; value: number } => {
  const doc = JSON.parse(readFileSync(SAMPLE, 'utf8')) as { response: { total: string; data: EiaRow[] } };
  const newest = doc.response.data[0]!;
  const asOf = new Date(Date.parse(`${newest.period}T00:00:00Z`) + 7 * 86_400_000).toISOString().slice(0, 10);
  const value = Number(newest.value) + changeMbbl;
  doc.response.data.unshift({ ...newest, period: asOf, value: String(value) });
  doc.response.total = String(doc.response.data.length);
  const path = join(mkdtempSync(join(tmpdir(), 'wpsr-')), 'PET.WCESTUS1.W.json');
  writeFileSync(path, JSON.stringify(doc));
  return { path, asOf, value };
};

export { simulatedWpsrRelease };
