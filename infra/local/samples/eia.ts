/**
 * EIA Open Data API v2 bodies (`/v2/seriesid/<id>`) written from EIA's own history downloads in
 * ../shared/fixtures/eia. Only the fields the adapters read are kept (period, series, value,
 * units); rows are newest first, as the live request (`sort[0][direction]=desc`) returns them.
 */

/** One period of a series, its value as published (a string, as API v2 serves it). */
interface EiaPoint {
  period: string;
  value: string;
}

const lines = (text: string) => text.split(/\r?\n/).filter((l) => l.trim() !== '');

/**
 * Reads a `Date,<column>` CSV with ISO dates (the converted `weekly.*` / `daily.*` fixtures and
 * the datasets/* republications, whose header is `Date,Price`).
 * @throws Error when the header or a row is not that shape, or a value is empty
 */
const readIsoCsv = (text: string, name: string): EiaPoint[] => {
  const [header, ...rows] = lines(text);
  if (!header?.startsWith('Date,')) throw new Error(`${name}: expected a Date,<series> header, got ${JSON.stringify(header)}`);
  return rows.map((l) => {
    const [period = '', value = ''] = l.split(',');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(period) || value.trim() === '') throw new Error(`${name}: bad row ${JSON.stringify(l)}`);
    return { period, value: value.trim() };
  });
};

/**
 * Reads EIA's per-series CSV download (`Week of,<name>`, dates `MM/D/YYYY`, newest first, an
 * optional 4-line preamble).
 */
const readSeriesDownload = (text: string, name: string): EiaPoint[] =>
  lines(text).flatMap((l) => {
    const m = /^(\d{2})\/(\d{1,2})\/(\d{4}),([\d.]+)$/.exec(l.trim());
    if (!m) {
      if (/^\d/.test(l)) throw new Error(`${name}: bad row ${JSON.stringify(l)}`);
      return []; // preamble or header
    }
    return [{ period: `${m[3]}-${m[1]}-${m[2]!.padStart(2, '0')}`, value: m[4]! }];
  });

/**
 * The v2 response body: one row per line so that a diff of a regenerated sample reads by week.
 * @example eiaV2Body([{ period: '2026-02-06', value: '428829' }], { series: 'WCESTUS1', units: 'MBBL', frequency: 'weekly' })
 */
const eiaV2Body = (points: readonly EiaPoint[], meta: { series: string; units: string; frequency: 'daily' | 'weekly' }): string => {
  const rows = [...points]
    .sort((a, b) => b.period.localeCompare(a.period))
    .map((p) => JSON.stringify({ period: p.period, series: meta.series, value: p.value, units: meta.units }));
  const head = JSON.stringify({ total: String(rows.length), dateFormat: 'YYYY-MM-DD', frequency: meta.frequency }).slice(0, -1);
  return `{"response":${head},"data":[\n${rows.join(',\n')}\n]}}\n`;
};

export { readIsoCsv, readSeriesDownload, eiaV2Body };
export type { EiaPoint };
