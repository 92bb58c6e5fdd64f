/**
 * USDA NASS Quick Stats `api_GET` JSON: national weekly crop progress and condition for corn,
 * soybeans and wheat (winter and spring classes). Format: fixtures/MISSING-ags.md (no real
 * crop-progress response was found; the bundled sample holds real national soybean progress
 * written in that format, and a payload named `.synthetic.` is labelled so on every observation).
 *
 * Stored as CROP#<commodity>#<statistic>, as_of = week ending (Sunday):
 * - progress: one series per phase (`planted`, `silking`, `winter_headed` …), value = percent
 *   of the crop at or past the phase, `official`.
 * - condition: one series per crop class (`condition`, `winter_condition` …), value = percent
 *   good + excellent (a sum, so `derived`), with every class (excellent … very poor) as
 *   published in the attributes.
 * published_at = the Monday after the week ending, 16:00 ET, the Tuesday after a Monday holiday
 * (NASS's rule, shared/calendar; `attributes.published_at_basis` says so). `load_time` (when
 * NASS loaded the figure into Quick Stats) is kept in the attributes.
 */
import * as z from '../zod';
import { seriesKey } from '../catalog/series-keys';
import type { Quality, StoredObservation } from '../observation/schema';
import type { SeriesItem } from '../store/observation-store';
import { fetchPayload, makeObservation, payloadText, readSamples } from './common';
import { findSource } from './registry';
import { mapLimit } from '../concurrency/map-limit';
import { SourceFormatError, type LiveContext, type NormalizeContext, type Payload, type SourceAdapter } from './types';
import { CROP_COMMODITIES, type CropCommodity } from '../catalog/fundamentals';

const CONDITION_CLASSES: Readonly<Record<string, string>> = Object.freeze({
  'PCT EXCELLENT': 'excellent',
  'PCT GOOD': 'good',
  'PCT FAIR': 'fair',
  'PCT POOR': 'poor',
  'PCT VERY POOR': 'very_poor',
});

/** NASS's special values: no figure, not an error. */
const SPECIAL_VALUES = new Set(['(D)', '(NA)', '(Z)', '(X)', '(S)', '(H)', '(L)']);

// Every field is a string except `year`; key order is not stable, so only names matter.
const RecordSchema = z.object({
  source_desc: z.string(),
  commodity_desc: z.string(),
  class_desc: z.string(),
  statisticcat_desc: z.string(),
  unit_desc: z.string(),
  short_desc: z.string(),
  agg_level_desc: z.string(),
  freq_desc: z.string(),
  reference_period_desc: z.string(),
  week_ending: z.string(),
  year: z.int(),
  load_time: z.string(),
  Value: z.string(),
});
type QuickStatsRecord = z.infer<typeof RecordSchema>;
const ResponseSchema = z.object({ data: z.array(z.unknown()) });

/**
 * Parses a Quick Stats JSON body into records.
 * @throws SourceFormatError when the body is not `{"data": [...]}` or a record lacks a field
 *   (a renamed field such as `value` for `Value`)
 */
const parseQuickStats = (text: string, name: string): QuickStatsRecord[] => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SourceFormatError(`${name}: not JSON`, { cause: err });
  }
  const doc = ResponseSchema.safeParse(json);
  if (!doc.success) {
    const error = (json as { error?: unknown })?.error;
    throw new SourceFormatError(`${name}: not a Quick Stats response${error ? ` (error: ${JSON.stringify(error)})` : ' (no data array)'}`);
  }
  return doc.data.data.map((raw, i) => {
    const r = RecordSchema.safeParse(raw);
    if (!r.success) throw new SourceFormatError(`${name}: record ${i}: ${r.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`);
    return r.data;
  });
};

/** Series-key statistic prefix of a wheat class (winter_, spring_); '' for ALL CLASSES. */
const classPrefix = (classDesc: string): string => {
  const c = classDesc.trim().toUpperCase();
  if (c === 'ALL CLASSES' || c === '') return '';
  if (c === 'WINTER') return 'winter_';
  if (c.startsWith('SPRING') && c.includes('DURUM') && !c.includes('EXCL')) return 'durum_';
  if (c.startsWith('SPRING')) return 'spring_';
  return `${c
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')}_`;
};

/** "45" -> 45, "(D)" -> null. @throws SourceFormatError on anything else ("NA", ".", "n/a"). */
const parseValue = (raw: string, where: string): number | null => {
  const v = raw.trim();
  if (SPECIAL_VALUES.has(v)) return null;
  const n = Number(v.replace(/,/g, ''));
  if (v === '' || !/^-?[\d,]*\.?\d+$/.test(v) || !Number.isFinite(n))
    throw new SourceFormatError(`${where}: Value ${JSON.stringify(raw)} is not a number or a NASS code`);
  return n;
};

const def = findSource('usda-nass-crop-progress')!;
const SYNTHETIC_NAME = `${def.name} (synthetic sample: not NASS data)`;
/** Not a US government work: figures made up for the demo, free to use, worth nothing. */
const SYNTHETIC_LICENSE = 'synthetic sample (made-up figures, not USDA data; no license needed)';
const PAGE = 'https://www.nass.usda.gov/Publications/National_Crop_Progress/';

interface CropPoint {
  commodity: CropCommodity;
  statistic: string;
  weekEnding: string;
  record: QuickStatsRecord;
  value: number;
}

/**
 * Pure: Quick Stats payload -> CROP#… items. Records that are not national weekly progress or
 * condition of corn, soybeans or wheat are skipped (the API may return state rows or 5-year
 * averages next to them).
 * @throws SourceFormatError on a malformed week ending, unit or value, or a repeated week
 */
const toItems = (payload: Payload, ctx: NormalizeContext): SeriesItem[] => {
  const synthetic = /\.synthetic\./.test(payload.name);
  const records = parseQuickStats(payloadText(payload), payload.name);
  const progress: CropPoint[] = [];
  const condition = new Map<
    string,
    { commodity: CropCommodity; statistic: string; weekEnding: string; record: QuickStatsRecord; classes: Record<string, number | null> }
  >();
  for (const [i, r] of records.entries()) {
    const commodity = r.commodity_desc.trim().toLowerCase() as CropCommodity;
    const category = r.statisticcat_desc.trim().toUpperCase();
    if (!CROP_COMMODITIES.includes(commodity) || r.agg_level_desc.trim().toUpperCase() !== 'NATIONAL') continue;
    if (category !== 'PROGRESS' && category !== 'CONDITION') continue; // e.g. "PROGRESS, 5 YEAR AVG"
    const where = `${payload.name}: record ${i} (${r.short_desc})`;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(r.week_ending)) throw new SourceFormatError(`${where}: week_ending ${JSON.stringify(r.week_ending)} is not YYYY-MM-DD`);
    const unit = r.unit_desc.trim().toUpperCase();
    if (!unit.startsWith('PCT ')) throw new SourceFormatError(`${where}: unit ${JSON.stringify(r.unit_desc)} is not a percentage`);
    const value = parseValue(r.Value, where);
    const prefix = classPrefix(r.class_desc);
    if (category === 'PROGRESS') {
      if (value === null) continue;
      const phase = unit
        .slice(4)
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_');
      progress.push({ commodity, statistic: `${prefix}${phase}`, weekEnding: r.week_ending, record: r, value });
    } else {
      const cls = CONDITION_CLASSES[unit];
      if (!cls) throw new SourceFormatError(`${where}: unknown condition class ${JSON.stringify(r.unit_desc)}`);
      const statistic = `${prefix}condition`;
      const key = `${commodity}|${statistic}|${r.week_ending}`;
      const entry = condition.get(key) ?? { commodity, statistic, weekEnding: r.week_ending, record: r, classes: {} };
      if (cls in entry.classes) throw new SourceFormatError(`${where}: ${cls} appears twice for ${r.week_ending}`);
      entry.classes[cls] = value;
      condition.set(key, entry);
    }
  }

  const common = (c: { commodity: CropCommodity; statistic: string; weekEnding: string; record: QuickStatsRecord }) => ({
    instrument: `CROP:${c.commodity}:${c.statistic}`,
    unit: 'percent',
    as_of: c.weekEnding,
    freshness_class: 'weekly' as const,
    series_id: c.record.short_desc,
    url: PAGE,
    retrievedAt: payload.retrievedAt,
  });
  const base = (c: { record: QuickStatsRecord; statistic: string }) => ({
    statistic: c.statistic,
    week: c.record.reference_period_desc,
    year: c.record.year,
    load_time: c.record.load_time || null,
    published_at_basis: 'NASS regular release: Monday after the week ending, 16:00 ET (Tuesday after a Monday holiday)',
    ...(synthetic ? { synthetic: true, synthetic_note: 'made-up figures in the Quick Stats format, not NASS data' } : {}),
  });
  // Synthetic figures must never look official: indicative, and the source name says so. The
  // bundled samples are NASS's figures copied from a third-party table: said so, and not official.
  const transcribed = ctx.mode === 'replay' && !synthetic;
  const label = (o: StoredObservation): StoredObservation =>
    synthetic
      ? { ...o, source: { ...o.source!, name: SYNTHETIC_NAME }, license_tag: SYNTHETIC_LICENSE }
      : transcribed
        ? { ...o, source: { ...o.source!, ...TRANSCRIPTION.source }, attributes: { ...o.attributes, ...TRANSCRIPTION.attributes } }
        : o;
  const quality = (q: Quality): Quality => (synthetic || transcribed ? 'indicative' : q);

  const items: SeriesItem[] = progress.map((p) => ({
    seriesKey: seriesKey.cropProgress(p.commodity, p.statistic),
    observation: label(makeObservation(ctx, { ...common(p), value: p.value, quality: quality('official'), attributes: base(p) })),
  }));
  for (const c of condition.values()) {
    const { excellent, good } = c.classes;
    if (excellent === undefined || excellent === null || good === undefined || good === null) continue; // G/E not computable
    items.push({
      seriesKey: seriesKey.cropProgress(c.commodity, c.statistic),
      observation: label(
        makeObservation(ctx, {
          ...common(c),
          series_id: c.record.short_desc.replace(/PCT [A-Z ]+$/, 'PCT GOOD + PCT EXCELLENT'),
          value: excellent + good,
          quality: quality('derived'),
          attributes: {
            ...base(c),
            method: 'good + excellent, percent of the crop (NASS condition classes as published)',
            excellent,
            good,
            fair: c.classes.fair ?? null,
            poor: c.classes.poor ?? null,
            very_poor: c.classes.very_poor ?? null,
          },
        }),
      ),
    });
  }
  const seen = new Set<string>();
  for (const { seriesKey: k, observation } of items) {
    const id = `${k}@${observation.as_of}`;
    if (seen.has(id)) throw new SourceFormatError(`${payload.name}: ${k} has two figures for ${observation.as_of}`);
    seen.add(id);
  }
  return items;
};

const QUICKSTATS = 'https://quickstats.nass.usda.gov/api/api_GET/';

/** One request per commodity: national weekly progress and condition since `year__GE`. */
const live = async (ctx: LiveContext): Promise<Payload[]> => {
  const key = ctx.config.NASS_API_KEY ?? '';
  // Six seasons: the current one and the five the 5-year average needs.
  const fromYear = ctx.since ? Number(ctx.since.slice(0, 4)) : ctx.now.getUTCFullYear() - 5;
  return mapLimit(CROP_COMMODITIES, ctx.concurrency, async (commodity, i) => {
    const q = new URLSearchParams({
      key,
      source_desc: 'SURVEY',
      sector_desc: 'CROPS',
      commodity_desc: commodity.toUpperCase(),
      agg_level_desc: 'NATIONAL',
      freq_desc: 'WEEKLY',
      year__GE: String(fromYear),
      format: 'JSON',
    });
    q.append('statisticcat_desc', 'PROGRESS');
    q.append('statisticcat_desc', 'CONDITION');
    const p = await fetchPayload(ctx, `${QUICKSTATS}?${q}`, `quickstats-${commodity}-${fromYear}.json`, [key, encodeURIComponent(key)]);
    ctx.onProgress?.(i + 1, CROP_COMMODITIES.length);
    return p;
  });
};

/**
 * The bundled sample: real national soybean progress, 2024-2026 seasons, in the form of the live
 * soybean request from 2024 (see samples/usda-nass-crop-progress/README.md). Its newest week ends
 * 2026-10-04 (a Sunday), released Monday 2026-10-05 16:00 EDT. Corn and wheat have no real figures
 * to replay, so a replay holds none.
 */
const SAMPLES_RECORDED_AT = '2026-10-05T20:00:00.000Z';

/**
 * Where the bundled figures come from (fixtures/nass/SOURCE.md): no NASS file or Quick Stats
 * response was found, so the sample is a transcription of a third-party dashboard's table.
 */
const TRANSCRIPTION = Object.freeze({
  source: {
    name: "USDA NASS Crop Progress figures as transcribed from a third-party dashboard (datuoniao/usda-soy-dashboard, data/crop_progress.csv), not NASS's own file",
    url: 'https://github.com/datuoniao/usda-soy-dashboard',
  },
  attributes: {
    transcribed_from: 'datuoniao/usda-soy-dashboard data/crop_progress.csv at commit 5d040e478c2ca3096a88dffb3d1757fb732e3a00',
    checked_against: 'news reports of the NASS releases for the weeks ending 2025-07-06, 2025-07-13 and 2025-07-27 (ICIS): every figure checked matches',
  },
});

const usdaNassCropProgress: SourceAdapter = {
  def,
  live,
  samples: () => readSamples(def.id, ['quickstats-soybeans-2024.json'], SAMPLES_RECORDED_AT),
  toItems,
};

export { usdaNassCropProgress, parseQuickStats, classPrefix, SYNTHETIC_LICENSE };
export type { QuickStatsRecord };
