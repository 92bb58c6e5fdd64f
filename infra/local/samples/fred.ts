/**
 * fredgraph.csv bodies written from the FRED downloads in ../shared/fixtures/fred. Several
 * copies of one series are merged by date (they agree where they overlap; a disagreement is an
 * error, never resolved silently), and written with today's header `observation_date,<ID>`.
 */

/**
 * Reads a fredgraph.csv copy (`observation_date,<ID>` or the older `DATE,<ID>`): date -> value
 * as published, '' where FRED has no observation that day.
 */
const readFredgraph = (text: string, id: string, name: string): Map<string, string> => {
  const [header, ...rows] = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (!header || !new RegExp(`^(observation_date|DATE),${id}$`).test(header.trim())) throw new Error(`${name}: header ${JSON.stringify(header)} is not ${id}`);
  return new Map(
    rows.map((l) => {
      const [date = '', value = ''] = l.split(',');
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`${name}: bad row ${JSON.stringify(l)}`);
      return [date, value.trim() === '.' ? '' : value.trim()];
    }),
  );
};

/**
 * Merges copies of one series; the first copy's text wins (copies differ in trailing zeros:
 * `1.178` and `1.1780`). A date two copies give different numbers for is an error.
 */
const mergeFred = (copies: ReadonlyArray<Map<string, string>>, id: string): Map<string, string> => {
  const out = new Map<string, string>();
  for (const copy of copies) {
    for (const [date, value] of copy) {
      const had = out.get(date);
      if (had === undefined) out.set(date, value);
      else if (had === '' ? value !== '' : value === '' || Number(had) !== Number(value)) {
        throw new Error(`${id} ${date}: copies disagree (${had} vs ${value})`);
      }
    }
  }
  return out;
};

/** The fredgraph.csv text, ascending, LF. */
const fredgraphCsv = (id: string, series: ReadonlyMap<string, string>): string =>
  `observation_date,${id}\n${[...series]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([d, v]) => `${d},${v}`)
    .join('\n')}\n`;

export { readFredgraph, mergeFred, fredgraphCsv };
