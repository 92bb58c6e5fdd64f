/**
 * EIA Open Data API v2 JSON (`/v2/seriesid/<id>` and `/v2/<route>/data/`): the shared pure
 * parser of every EIA adapter. Values are strings since v2.1.6 and `null` when withheld.
 */
import * as z from 'zod';
import { SourceFormatError, type LiveContext, type Payload } from './types';
import { fetchPayload, payloadText } from './common';

const EiaRowSchema = z.object({
  period: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'period must be YYYY-MM-DD'),
  series: z.string().optional(),
  'series-description': z.string().optional(),
  value: z.union([z.string(), z.number(), z.null()]),
  units: z.string().optional(),
});

const EiaResponseSchema = z.object({
  response: z.object({
    data: z.array(z.unknown()),
    warnings: z.array(z.object({ warning: z.string().optional(), description: z.string().optional() })).optional(),
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

/**
 * Fetches `/v2/seriesid/<id>` for a window. The key goes in the query string, as EIA requires,
 * and is redacted from any error message.
 */
const fetchEiaSeries = async (ctx: LiveContext, seriesId: string, defaultStart: string): Promise<Payload> => {
  const key = ctx.config.EIA_API_KEY ?? '';
  const start = ctx.since ?? defaultStart;
  const url = `${EIA_API}/seriesid/${encodeURIComponent(seriesId)}?api_key=${encodeURIComponent(key)}&start=${start}&sort[0][column]=period&sort[0][direction]=desc&length=5000`;
  return fetchPayload(ctx, url, seriesId, [key, encodeURIComponent(key)]);
};

/** Parse a payload's text as EIA v2. */
const parseEiaPayload = (p: Payload): EiaRow[] => parseEiaV2(payloadText(p), p.name);

export { parseEiaV2, parseEiaPayload, fetchEiaSeries };
export type { EiaRow };
