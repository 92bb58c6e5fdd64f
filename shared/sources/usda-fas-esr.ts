/**
 * USDA FAS Export Sales Reporting (ESR) open-data API: weekly export sales of soybeans (801),
 * corn (401) and all wheat (107), from `/api/esr/exports/commodityCode/{cc}/allCountries/
 * marketYear/{my}` (fixtures/fas/SOURCE.md). `marketYear` is the year the marketing year ENDS:
 * corn and soybeans run September-August, wheat June-May.
 *
 * The API answers one row per destination country per week; the adapter sums the rows of a
 * week into ESR#<commodity> (sk = week ending, Thursday): value = current-marketing-year net
 * sales, attributes = weekly exports, accumulated exports, outstanding sales, gross new sales,
 * total commitment and next-marketing-year figures, all in metric tons. A sum is computed by
 * this service, so every item is `derived`, and `attributes.scope` says which destinations it
 * covers: "all destination countries" for an allCountries response, or the listed countries
 * only (the bundled sample: China and Mexico, which is NOT total U.S. export sales).
 *
 * The week that straddles the marketing-year boundary is in both years' responses; it belongs
 * to the year that contains its week-ending date, and is dropped from the other, so one run
 * never writes the same (series, week) twice.
 *
 * published_at = the Thursday after the week ending, 08:30 ET, or the Friday in a holiday week
 * (FAS's rule, shared/calendar; estimated: no dated FAS schedule was checked).
 */
import * as z from '../zod';
import { seriesKey } from '../catalog/series-keys';
import type { SeriesItem } from '../store/observation-store';
import { SourceFetchError, makeObservation, payloadText, readSamples } from './common';
import { findSource } from './registry';
import { mapLimit } from '../concurrency/map-limit';
import { SourceFormatError, type LiveContext, type NormalizeContext, type Payload, type SourceAdapter } from './types';
import { ESR_COMMODITIES, ESR_COMMODITY_SLUGS, type EsrCommodity } from '../catalog/fundamentals';

/** Countries the bundled sample covers (names from /api/esr/countries). */
const COUNTRY_NAMES: Readonly<Record<number, string>> = Object.freeze({ 5700: 'China', 2010: 'Mexico' });

const int = z.int();
const RowSchema = z.object({
  commodityCode: int,
  countryCode: int,
  weeklyExports: int,
  accumulatedExports: int,
  outstandingSales: int,
  grossNewSales: int,
  currentMYNetSales: int,
  currentMYTotalCommitment: int,
  nextMYOutstandingSales: int,
  nextMYNetSales: int,
  unitId: int,
  weekEndingDate: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T00:00:00$/, 'weekEndingDate must be YYYY-MM-DDT00:00:00')),
});
type EsrRow = z.infer<typeof RowSchema>;

/** What a payload is, from its name (live path or sample file name). */
interface EsrRequest {
  commodityCode: number;
  marketYear: number;
  /** null = allCountries. */
  countries: number[] | null;
}

const parseRequestName = (name: string): EsrRequest => {
  const m = /commodityCode[/-](\d+)[./](?:(allCountries)|countryCode[/-]([\d,]+))[./]marketYear[/-](\d{4})/.exec(name);
  if (!m) throw new SourceFormatError(`${name}: not an ESR exports payload name (commodityCode/…/marketYear/…)`);
  return { commodityCode: Number(m[1]), marketYear: Number(m[4]), countries: m[2] ? null : m[3]!.split(',').map(Number) };
};

/** The marketing year `marketYear` (the year it ends) as [first day, last day]. */
const marketYearWindow = (commodity: EsrCommodity, marketYear: number): [string, string] => {
  const start = ESR_COMMODITIES[commodity].myStartMonth;
  const first = `${marketYear - 1}-${String(start).padStart(2, '0')}-01`;
  const lastDay = new Date(Date.UTC(marketYear, start - 1, 0)).toISOString().slice(0, 10);
  return [first, lastDay];
};

/** The marketing year (by its end year) that contains `date`. */
const marketYearOf = (commodity: EsrCommodity, date: Date): number =>
  date.getUTCMonth() + 1 >= ESR_COMMODITIES[commodity].myStartMonth ? date.getUTCFullYear() + 1 : date.getUTCFullYear();

/**
 * Parses an ESR exports body.
 * @throws SourceFormatError when it is not a JSON array of weekly rows, a row has a missing,
 *   renamed or non-integer field (".", "NA", null), or the unit is not metric tons
 */
const parseEsrRows = (text: string, name: string): EsrRow[] => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SourceFormatError(`${name}: not JSON`, { cause: err });
  }
  if (!Array.isArray(json)) throw new SourceFormatError(`${name}: expected a JSON array of weekly rows`);
  if (json.length === 0) throw new SourceFormatError(`${name}: no rows`);
  return json.map((raw, i) => {
    const r = RowSchema.safeParse(raw);
    if (!r.success) throw new SourceFormatError(`${name}: row ${i}: ${r.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`);
    if (r.data.unitId !== 1) throw new SourceFormatError(`${name}: row ${i}: unitId ${r.data.unitId} is not 1 (metric tons)`);
    return r.data;
  });
};

const FIELDS = [
  ['weeklyExports', 'weekly_exports'],
  ['accumulatedExports', 'accumulated_exports'],
  ['outstandingSales', 'outstanding_sales'],
  ['grossNewSales', 'gross_new_sales'],
  ['currentMYNetSales', 'net_sales'],
  ['currentMYTotalCommitment', 'total_commitment'],
  ['nextMYOutstandingSales', 'next_my_outstanding_sales'],
  ['nextMYNetSales', 'next_my_net_sales'],
] as const;

const def = findSource('usda-fas-esr')!;
const ESR_PAGE = 'https://apps.fas.usda.gov/export-sales/esrd1.html';

/** Pure: one ESR exports payload -> ESR#<commodity> weekly items. */
const toItems = (payload: Payload, ctx: NormalizeContext): SeriesItem[] => {
  const req = parseRequestName(payload.name);
  const commodity = ESR_COMMODITY_SLUGS.find((c) => ESR_COMMODITIES[c].code === req.commodityCode);
  if (!commodity) throw new SourceFormatError(`${payload.name}: commodity code ${req.commodityCode} is not served (${ESR_COMMODITY_SLUGS.join(', ')})`);
  const rows = parseEsrRows(payloadText(payload), payload.name);
  const countries = new Set<number>();
  for (const r of rows) {
    if (r.commodityCode !== req.commodityCode)
      throw new SourceFormatError(`${payload.name}: row for commodity ${r.commodityCode}, expected ${req.commodityCode}`);
    if (req.countries && !req.countries.includes(r.countryCode))
      throw new SourceFormatError(`${payload.name}: row for country ${r.countryCode}, not requested`);
    countries.add(r.countryCode);
  }
  const scope = req.countries
    ? `only destinations ${req.countries.map((c) => `${c}${COUNTRY_NAMES[c] ? ` (${COUNTRY_NAMES[c]})` : ''}`).join(', ')}: NOT total U.S. export sales`
    : 'all destination countries in the allCountries response';
  const [first, last] = marketYearWindow(commodity, req.marketYear);
  const weeks = new Map<string, EsrRow[]>();
  for (const r of rows) {
    const week = r.weekEndingDate.slice(0, 10);
    if (week < first || week > last) continue; // boundary week: belongs to the other marketing year
    weeks.set(week, [...(weeks.get(week) ?? []), r]);
  }
  const label = `${req.marketYear - 1}/${String(req.marketYear).slice(2)}`;
  return [...weeks.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([week, list]) => {
      const sums = Object.fromEntries(FIELDS.map(([api, attr]) => [attr, list.reduce((acc, r) => acc + r[api], 0)])) as Record<
        (typeof FIELDS)[number][1],
        number
      >;
      return {
        seriesKey: seriesKey.exportSales(commodity),
        observation: makeObservation(ctx, {
          instrument: `ESR:${commodity}`,
          value: sums.net_sales,
          unit: 'metric tons',
          as_of: week,
          freshness_class: 'weekly',
          quality: 'derived',
          series_id: `esr/exports/commodityCode/${req.commodityCode}/${req.countries ? `countryCode/${req.countries.join(',')}` : 'allCountries'}/marketYear/${req.marketYear}`,
          url: ESR_PAGE,
          retrievedAt: payload.retrievedAt,
          attributes: {
            statistic: 'net_sales',
            commodity_code: req.commodityCode,
            commodity_name: ESR_COMMODITIES[commodity].name,
            market_year: label,
            market_year_end: req.marketYear,
            countries: list.length,
            scope,
            method: `sum over ${list.length} destination row(s) of the week`,
            published_at_basis: 'FAS rule: Thursday after the week ending, 08:30 ET; Friday in a week with a federal holiday',
            ...sums,
          },
        }),
      };
    });
};

const ESR_API = 'https://api.fas.usda.gov/api/esr';
const FETCH_TIMEOUT_MS = 30_000;

/** GET with the api.data.gov key in a header (never in the URL, so no error can leak it). */
const fetchEsr = async (ctx: LiveContext, path: string): Promise<Payload> => {
  const url = `${ESR_API}${path}`;
  let res: Response;
  try {
    res = await ctx.fetch(url, {
      headers: { 'X-Api-Key': ctx.config.FAS_API_KEY ?? '', accept: 'application/json' },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (err) {
    throw new SourceFetchError(`${path}: request to ${url} failed: ${String((err as Error).message ?? err)}`, { cause: err });
  }
  if (!res.ok) throw new SourceFetchError(`${path}: HTTP ${res.status} from ${url}`);
  const body = new Uint8Array(await res.arrayBuffer());
  if (body.length === 0) throw new SourceFormatError(`${path}: empty body from ${url}`);
  return { name: path, body, retrievedAt: ctx.now.toISOString() };
};

/**
 * The current and the previous marketing year of each commodity (more with `since`). In the
 * first three weeks of a marketing year the current year may have no rows yet: that empty
 * answer is skipped, not a failure.
 */
const live = async (ctx: LiveContext): Promise<Payload[]> => {
  const jobs = ESR_COMMODITY_SLUGS.flatMap((commodity) => {
    const current = marketYearOf(commodity, ctx.now);
    const first = ctx.since ? marketYearOf(commodity, new Date(`${ctx.since}T00:00:00Z`)) : current - 1;
    return Array.from({ length: current - first + 1 }, (_, i) => ({ commodity, marketYear: first + i, current }));
  });
  let done = 0;
  const payloads = await mapLimit(jobs, ctx.concurrency, async ({ commodity, marketYear, current }) => {
    const p = await fetchEsr(ctx, `/exports/commodityCode/${ESR_COMMODITIES[commodity].code}/allCountries/marketYear/${marketYear}`);
    ctx.onProgress?.(++done, jobs.length);
    const started = marketYearWindow(commodity, marketYear)[0];
    const young = marketYear === current && ctx.now.getTime() - Date.parse(`${started}T00:00:00Z`) < 21 * 86400_000;
    return young && payloadText(p).trim() === '[]' ? null : p;
  });
  return payloads.filter((p): p is Payload => p !== null);
};

/** The sample's newest week ends 2022-03-31; FAS released it on 2022-04-07. */
const SAMPLES_RECORDED_AT = '2022-04-07T12:35:00.000Z';

const usdaFasEsr: SourceAdapter = {
  def,
  live,
  samples: () => readSamples(def.id, ['exports.commodityCode-801.countryCode-5700,2010.marketYear-2022.json'], SAMPLES_RECORDED_AT),
  toItems,
};

export { usdaFasEsr, marketYearWindow, marketYearOf };
export type { EsrRow };
