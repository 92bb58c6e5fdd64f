/**
 * Build-time US federal holidays for the Lambda bundles: shared/calendar/federal-holidays.ts is
 * replaced by the table the library gives for TABLE_YEARS (about 3 KB), so a bundle carries neither
 * `@18f/us-federal-holidays` nor its date engine (dayjs: 11 KB together). A year outside the table
 * throws rather than answer without holidays; the range covers the oldest history the service
 * ingests (EIA's daily prices from 1986) and thirty years ahead of the build.
 * test/infra/bundles.test.ts holds the bundled answers to the library's for every year of the table.
 */
import type { Plugin } from 'esbuild';
import { observedHolidays } from '../../shared/calendar/federal-holidays';

/** The years a bundle knows. */
const TABLE_YEARS = { from: 1980, to: new Date().getUTCFullYear() + 30 } as const;

const DAY_MS = 86_400_000;

/**
 * The module that stands in for federal-holidays.ts. Each holiday is three characters: its name's
 * index, then its day of the year in base 36 (0 = 31 December of the year before, when New Year's
 * Day falls on a Saturday), so a year is about 36 characters.
 */
const holidayTableModule = (): string => {
  const names: string[] = [];
  const years: string[] = [];
  for (let y = TABLE_YEARS.from; y <= TABLE_YEARS.to; y++) {
    const jan1 = Date.UTC(y, 0, 1);
    years.push(
      observedHolidays(y)
        .map((h) => {
          if (!names.includes(h.name)) names.push(h.name);
          const day = Math.round((Date.parse(`${h.date}T00:00:00Z`) - jan1) / DAY_MS) + 1;
          if (names.length > 36 || day < 0 || day > 366) throw new Error(`holiday table: cannot encode ${h.date} ${h.name}`);
          return names.indexOf(h.name).toString(36) + day.toString(36).padStart(2, '0');
        })
        .join(''),
    );
  }
  return `// Generated at build time by infra/bundle/federal-holidays.ts from @18f/us-federal-holidays.
const FROM = ${TABLE_YEARS.from};
const NAMES = ${JSON.stringify(names)};
const YEARS = ${JSON.stringify(years)};
export const observedHolidays = (year) => {
  const row = YEARS[year - FROM];
  if (row === undefined) throw new Error('no US federal holidays for ' + year + ' in this bundle (${TABLE_YEARS.from}-${TABLE_YEARS.to})');
  const out = [];
  for (let i = 0; i < row.length; i += 3) {
    const date = new Date(Date.UTC(year, 0, 1) + (parseInt(row.slice(i + 1, i + 3), 36) - 1) * ${DAY_MS});
    out.push({ date: date.toISOString().slice(0, 10), name: NAMES[parseInt(row[i], 36)] });
  }
  return out;
};
`;
};

const FEDERAL_HOLIDAYS = /[\\/]shared[\\/]calendar[\\/]federal-holidays\.ts$/;

/** The esbuild plugin of every bundle: the holiday table in place of the library. */
const federalHolidayTable: Plugin = {
  name: 'federal-holiday-table',
  setup(b) {
    let contents: string | undefined;
    b.onLoad({ filter: FEDERAL_HOLIDAYS }, () => {
      contents ??= holidayTableModule();
      return { contents, loader: 'js' };
    });
  },
};

export { federalHolidayTable, holidayTableModule, TABLE_YEARS };
