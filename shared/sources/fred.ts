/**
 * FRED daily FX context series (H.10): DTWEXBGS, and EURUSD / USDCNY from DEXUSEU / DEXCHUS.
 * The keyless `fredgraph.csv` download is the live format; an empty value (or `.` in older
 * files) is a holiday with no observation, not an error.
 */
import { parse } from 'csv-parse/sync';
import { findInstrument } from '../catalog/instruments';
import { seriesKey } from '../catalog/series-keys';
import { findSource } from './registry';
import { fetchPayload, makeObservation, parseNumber, payloadText, readSamples } from './common';
import { mapLimit } from '../concurrency/map-limit';
import { SourceFormatError, type SourceAdapter } from './types';
import { addDays, isoDate } from '../dates';

const FRED_SERIES = Object.freeze([
  { code: 'DTWEXBGS', fredId: 'DTWEXBGS' },
  { code: 'EURUSD', fredId: 'DEXUSEU' },
  { code: 'USDCNY', fredId: 'DEXCHUS' },
] as const);

/** After the newest FRED observation in the bundled samples (DTWEXBGS 2026-05-22; Monday 2026-05-25 was a holiday). */
const SAMPLES_RECORDED_AT = '2026-05-26T21:30:00.000Z';

const def = findSource('fred')!;

interface FredRow {
  date: string;
  value: number | null;
}

/**
 * Parses fredgraph.csv (header `observation_date,<ID>` or the older `DATE,<ID>`).
 * @throws SourceFormatError when the header names another series or a value is not a number
 */
const parseFredCsv = (text: string, fredId: string, name: string): FredRow[] => {
  const rows = parse(text, { skip_empty_lines: true, relax_column_count: false }) as string[][];
  const [header, ...data] = rows;
  if (!header || header.length < 2 || !/^(observation_date|DATE)$/i.test(header[0]!.trim()) || header[1]!.trim() !== fredId) {
    throw new SourceFormatError(`${name}: expected header observation_date,${fredId}, got ${JSON.stringify(header)}`);
  }
  if (data.length === 0) throw new SourceFormatError(`${name}: no rows`);
  return data.map(([date = '', raw = ''], i) => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date.trim())) throw new SourceFormatError(`${name}: row ${i + 2}: bad date ${JSON.stringify(date)}`);
    const v = raw.trim();
    return { date: date.trim(), value: v === '' || v === '.' ? null : parseNumber(v, `${name} row ${i + 2}`) };
  });
};

const fred: SourceAdapter = {
  def,
  live: (ctx) =>
    mapLimit(FRED_SERIES, ctx.concurrency, async (s, i) => {
      const start = ctx.since ?? addDays(isoDate(ctx.now), -60);
      const p = await fetchPayload(ctx, `https://fred.stlouisfed.org/graph/fredgraph.csv?id=${s.fredId}&cosd=${start}`, `${s.fredId}.csv`);
      ctx.onProgress?.(i + 1, FRED_SERIES.length);
      return p;
    }),
  samples: () =>
    readSamples(
      def.id,
      FRED_SERIES.map((s) => `${s.fredId}.csv`),
      SAMPLES_RECORDED_AT,
    ),
  toItems: (payload, ctx) => {
    const spec = FRED_SERIES.find((s) => payload.name.endsWith(`${s.fredId}.csv`));
    if (!spec) throw new SourceFormatError(`${payload.name}: not a FRED series this adapter knows`);
    const instrument = findInstrument(spec.code)!;
    return parseFredCsv(payloadText(payload), spec.fredId, payload.name)
      .filter((r) => r.value !== null)
      .map((r) => ({
        seriesKey: seriesKey.price(spec.code),
        observation: makeObservation(ctx, {
          instrument: spec.code,
          value: r.value!,
          unit: instrument.unit,
          as_of: r.date,
          freshness_class: instrument.freshness,
          series_id: spec.fredId,
          url: `https://fred.stlouisfed.org/series/${spec.fredId}`,
          retrievedAt: payload.retrievedAt,
        }),
      }));
  },
};

export { fred, parseFredCsv };
