/** Bodies of the inventory family: the weekly EIA bundle and one series, with the 5-year comparison and surprise. */
import * as z from '../zod';
import { IsoDateSchema, MaybeObservation, MethodTexts, missingOf, ServedObservation } from './common';

const SeriesIdentity = {
  key: z.string(),
  series_id: z.string(),
  meaning: z.string(),
  unit: z.string(),
  source_id: z.nullable(z.string()),
};

const HistoryCoverage = z.strictObject({
  prior_years_required: z.int(),
  prior_years_available: z.int(),
  prior_year_changes_available: z.int(),
  note: z.string(),
});

const SeriesBlock = z.strictObject({
  ...SeriesIdentity,
  status: z.literal('ok'),
  latest: ServedObservation,
  week_over_week_change: MaybeObservation,
  five_year: z.strictObject({
    average: MaybeObservation,
    min: MaybeObservation,
    max: MaybeObservation,
    deviation: MaybeObservation,
    deviation_pct: MaybeObservation,
    average_change: MaybeObservation,
  }),
  surprise: MaybeObservation,
  history: HistoryCoverage,
  same_week_prior_years: z.optional(z.array(ServedObservation)),
  recent: z.optional(z.array(ServedObservation)),
});

const NullFiveYear = z.strictObject({
  average: z.null(),
  min: z.null(),
  max: z.null(),
  deviation: z.null(),
  deviation_pct: z.null(),
  average_change: z.null(),
});

/** A series of the bundle with nothing stored yet: listed, with why, rather than dropped. */
const NoDataBlock = z.strictObject({
  ...SeriesIdentity,
  status: z.literal('no_data'),
  reason: z.string(),
  latest: z.null(),
  week_over_week_change: z.null(),
  five_year: NullFiveYear,
  surprise: z.null(),
  history: HistoryCoverage,
});

const InventoryBundleBody = z
  .strictObject({
    report: z.string(),
    method: MethodTexts,
    count: z.int().check(z.nonnegative()),
    series: z.array(z.discriminatedUnion('status', [SeriesBlock, NoDataBlock])),
    missing: z.array(missingOf('key')),
  })
  .register(z.globalRegistry, {
    id: 'InventoryBundle',
    description: 'Weekly EIA inventories: every series with its week-over-week change, 5-year comparison and surprise.',
  });

const InventorySeriesBody = z.extend(SeriesBlock, { method: MethodTexts });

/** One series in the compact (default) view: the figures of the full view as numbers, with a stale flag. */
const InventoryHeadline = z
  .strictObject({
    ...SeriesIdentity,
    status: z.literal('ok'),
    as_of: IsoDateSchema,
    value: z.nullable(z.number()),
    week_over_week_change: z.nullable(z.number()),
    five_year_average: z.nullable(z.number()),
    five_year_min: z.nullable(z.number()),
    five_year_max: z.nullable(z.number()),
    deviation: z.nullable(z.number()),
    deviation_pct: z.nullable(z.number()),
    five_year_average_change: z.nullable(z.number()),
    surprise: z.nullable(z.number()),
    stale: z.boolean(),
    history: HistoryCoverage,
  })
  .register(z.globalRegistry, {
    id: 'InventoryHeadline',
    description: 'One weekly series: level, change, 5-year comparison and surprise as numbers (view=full has each as an observation).',
  });

/** A dated level of the compact single-series view. */
const WeekPoint = z.strictObject({ as_of: IsoDateSchema, value: z.nullable(z.number()) });

const compactEnvelope = { view: z.literal('compact'), full_view: z.string(), stale_rule: z.string() };

const InventoryBundleCompact = z
  .strictObject({
    report: z.string(),
    method: MethodTexts,
    count: z.int().check(z.nonnegative()),
    series: z.array(
      z.discriminatedUnion('status', [InventoryHeadline, z.omit(NoDataBlock, { five_year: true, latest: true, week_over_week_change: true, surprise: true })]),
    ),
    missing: z.array(missingOf('key')),
    ...compactEnvelope,
  })
  .register(z.globalRegistry, {
    id: 'InventoryBundleCompact',
    description: 'The default, compact inventory bundle (view=full has every figure as an observation).',
  });

const InventorySeriesCompact = z
  .extend(InventoryHeadline, {
    method: MethodTexts,
    same_week_prior_years: z.array(WeekPoint),
    recent: z.array(WeekPoint),
    ...compactEnvelope,
  })
  .register(z.globalRegistry, {
    id: 'InventorySeriesCompact',
    description: 'The default, compact single series with its prior-year weeks and recent weeks as points.',
  });

const InventoryBundleView = z.discriminatedUnion('view', [
  InventoryBundleCompact,
  z.extend(InventoryBundleBody, { view: z.literal('full') }).register(z.globalRegistry, { id: 'InventoryBundleFull' }),
]);
const InventorySeriesView = z.discriminatedUnion('view', [
  InventorySeriesCompact,
  z.extend(InventorySeriesBody, { view: z.literal('full') }).register(z.globalRegistry, { id: 'InventorySeriesFull' }),
]);

export { InventoryBundleBody, InventoryBundleView, InventorySeriesView };
