/**
 * NASS Quick Stats `api_GET` JSON (`{"data": [record, ...]}`) written from the national soybean
 * progress table in ../shared/fixtures/nass (NASS's published percentages, transcribed by a
 * dashboard). Only progress is written: the table's condition columns are sums (good + excellent,
 * poor + very poor) and Quick Stats serves each condition class on its own record, which those
 * sums cannot be split into. Records carry the fields the adapter reads, nothing invented:
 * `load_time` (when NASS loaded the figure) is unknown and left empty.
 */

/** Dashboard column -> Quick Stats unit_desc of the national progress statistic. */
const PROGRESS_UNITS: Readonly<Record<string, string>> = Object.freeze({
  planted_pct: 'PCT PLANTED',
  emerged_pct: 'PCT EMERGED',
  blooming_pct: 'PCT BLOOMING',
  setting_pods_pct: 'PCT SETTING PODS',
  dropping_leaves_pct: 'PCT DROPPING LEAVES',
  harvested_pct: 'PCT HARVESTED',
});

const DAY_MS = 86_400_000;

/**
 * NASS's week number of a week-ending date: ceil(day of year / 7).
 * @example nassWeek('2024-08-11') // 'WEEK #32'
 */
const nassWeek = (weekEnding: string): string => {
  const dayOfYear = (Date.parse(`${weekEnding}T00:00:00Z`) - Date.parse(`${weekEnding.slice(0, 4)}-01-01T00:00:00Z`)) / DAY_MS + 1;
  return `WEEK #${String(Math.ceil(dayOfYear / 7)).padStart(2, '0')}`;
};

/**
 * One Quick Stats record per published progress figure of the table, oldest week first.
 * @throws Error when the header lacks a progress column or a figure is not a whole percentage
 */
const soybeanProgressRecords = (csv: string): Array<Record<string, string | number>> => {
  const [header, ...rows] = csv.split(/\r?\n/).filter((l) => l.trim() !== '');
  const cols = (header ?? '').split(',');
  for (const c of ['week_ending', ...Object.keys(PROGRESS_UNITS)]) if (!cols.includes(c)) throw new Error(`nass fixture: no ${c} column`);
  return rows.flatMap((line) => {
    const cells = Object.fromEntries(line.split(',').map((v, i) => [cols[i]!, v.trim()]));
    const week = cells.week_ending!;
    return Object.entries(PROGRESS_UNITS).flatMap(([col, unit]) => {
      const v = cells[col] ?? '';
      if (v === '') return []; // not reported that week
      if (!/^\d{1,3}$/.test(v)) throw new Error(`nass fixture ${week} ${col}: ${JSON.stringify(v)} is not a percentage`);
      return [
        {
          source_desc: 'SURVEY',
          commodity_desc: 'SOYBEANS',
          class_desc: 'ALL CLASSES',
          statisticcat_desc: 'PROGRESS',
          unit_desc: unit,
          short_desc: `SOYBEANS - PROGRESS, MEASURED IN ${unit}`,
          agg_level_desc: 'NATIONAL',
          location_desc: 'US TOTAL',
          freq_desc: 'WEEKLY',
          reference_period_desc: nassWeek(week),
          week_ending: week,
          year: Number(week.slice(0, 4)),
          load_time: '',
          Value: v,
        },
      ];
    });
  });
};

/** The response body, one record per line. */
const quickStatsBody = (records: ReadonlyArray<Record<string, string | number>>): string =>
  `{"data":[\n${records.map((r) => JSON.stringify(r)).join(',\n')}\n]}\n`;

export { soybeanProgressRecords, quickStatsBody };
