/**
 * EIA Open Data API v2 JSON (`/v2/seriesid/<id>` and `/v2/<route>/data/`): the shared pure
 * parser of every EIA adapter, and the paged fetch. Values are strings since v2.1.6 and `null`
 * when withheld. A JSON response holds at most 5,000 rows; EIA says so in `response.warnings`
 * ("incomplete return") and the client pages on with `offset`, so a backfill is never cut short.
 */
import * as z from '../zod';
import { SourceFormatError, type LiveContext, type Payload } from './types';
import { fetchPayload, payloadText } from './common';

const EiaRowSchema = z.object({
  period: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'period must be YYYY-MM-DD')),
  series: z.optional(z.string()),
  'series-description': z.optional(z.string()),
  value: z.union([z.string(), z.number(), z.null()]),
  units: z.optional(z.string()),
});

const EiaResponseSchema = z.object({
  response: z.object({
    data: z.array(z.unknown()),
    /** Rows matching the request, all pages together (a string in v2 responses). */
    total: z.optional(z.union([z.string(), z.number()])),
    warnings: z.optional(z.array(z.object({ warning: z.optional(z.string()), description: z.optional(z.string()) }))),
  }),
});

interface EiaRow {
  period: string;
  /** null when EIA withholds the value. */
  value: number | null;
  series: string | null;
  description: string | null;
  units: string | null;
}

/**
 * Parses an EIA v2 response body into rows, oldest first.
 * @throws SourceFormatError on a body that is not v2 JSON, a row without period, or a non-numeric value
 */
const parseEiaV2 = (text: string, name: string): EiaRow[] => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SourceFormatError(`${name}: not JSON`, { cause: err });
  }
  const doc = EiaResponseSchema.safeParse(json);
  if (!doc.success) throw new SourceFormatError(`${name}: not an EIA v2 response (response.data missing)`);
  return doc.data.response.data
    .map((raw, i) => {
      const row = EiaRowSchema.safeParse(raw);
      if (!row.success) {
        throw new SourceFormatError(`${name}: row ${i}: ${row.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`);
      }
      const v = row.data.value;
      const value = v === null || v === '' ? null : Number(v);
      if (value !== null && !Number.isFinite(value)) throw new SourceFormatError(`${name}: row ${i}: non-numeric value ${JSON.stringify(v)}`);
      return {
        period: row.data.period,
        value,
        series: row.data.series ?? null,
        description: row.data['series-description'] ?? null,
        units: row.data.units ?? null,
      };
    })
    .sort((a, b) => a.period.localeCompare(b.period));
};

const EIA_API = 'https://api.eia.gov/v2';
/** Most rows EIA returns in one JSON response. */
const EIA_PAGE_ROWS = 5000;
/** A loop guard: 100 pages are 500,000 rows, far beyond any daily series since 1986. */
const MAX_PAGES = 100;

/** What one response says about paging. */
interface EiaPage {
  rows: number;
  /** `response.total`, or null when absent. */
  total: number | null;
  /** EIA warned that it capped the response ("incomplete return"). */
  incomplete: boolean;
}

/** Pure: the paging facts of a response body; null when it is not v2 JSON (the parser then says why). */
const eiaPage = (text: string): EiaPage | null => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const doc = EiaResponseSchema.safeParse(json);
  if (!doc.success) return null;
  const { data, total, warnings = [] } = doc.data.response;
  const t = total === undefined ? Number.NaN : Number(total);
  return {
    rows: data.length,
    total: Number.isFinite(t) ? t : null,
    incomplete: warnings.some((w) => /incomplete return|can only return/i.test(`${w.warning ?? ''} ${w.description ?? ''}`)),
  };
};

/**
 * Pure: the offset of the page after the one read at `offset`, or null when the series is complete.
 * `total` decides when EIA sends it; otherwise a capped (warned or full) page means more follow.
 * @throws SourceFormatError when EIA says rows remain but sent none (paging would never end)
 */
const nextEiaOffset = (offset: number, page: EiaPage, name: string): number | null => {
  const reached = offset + page.rows;
  const more = page.total !== null ? reached < page.total : page.incomplete || page.rows >= EIA_PAGE_ROWS;
  if (!more) return null;
  if (page.rows === 0) throw new SourceFormatError(`${name}: EIA sent no rows at offset ${offset} of ${page.total ?? 'an incomplete return'}`);
  return reached;
};

/**
 * Fetches `/v2/seriesid/<id>` for a window, page by page (5,000 rows each), newest first. The
 * key goes in the query string, as EIA requires, and is redacted from any error message.
 * @returns one payload per page: `<id>`, then `<id>.offset-5000` …
 * @throws SourceFetchError on an HTTP failure of any page; SourceFormatError on endless paging
 */
const fetchEiaSeries = async (ctx: LiveContext, seriesId: string, defaultStart: string): Promise<Payload[]> => {
  const key = ctx.config.EIA_API_KEY ?? '';
  const start = ctx.since ?? defaultStart;
  const pages: Payload[] = [];
  for (let offset: number | null = 0; offset !== null; ) {
    if (pages.length === MAX_PAGES) throw new SourceFormatError(`${seriesId}: more than ${MAX_PAGES} pages of ${EIA_PAGE_ROWS} rows`);
    const url = `${EIA_API}/seriesid/${encodeURIComponent(seriesId)}?api_key=${encodeURIComponent(key)}&start=${start}&sort[0][column]=period&sort[0][direction]=desc&offset=${offset}&length=${EIA_PAGE_ROWS}`;
    const name: string = offset === 0 ? seriesId : `${seriesId}.offset-${offset}`;
    const p = await fetchPayload(ctx, url, name, [key, encodeURIComponent(key)]);
    pages.push(p);
    const page = eiaPage(new TextDecoder().decode(p.body));
    offset = page ? nextEiaOffset(offset, page, name) : null;
  }
  return pages;
};

/** Parse a payload's text as EIA v2. */
const parseEiaPayload = (p: Payload): EiaRow[] => parseEiaV2(payloadText(p), p.name);

export { parseEiaV2, parseEiaPayload, fetchEiaSeries, nextEiaOffset, EIA_PAGE_ROWS };
export type { EiaRow, EiaPage };
