/**
 * Pure: the compact (default) view of the inventory routes. Every figure of the full view is a
 * derived observation (about 0.7 KB each, nine per series); the compact view keeps their values
 * as numbers beside the series' identity, its history coverage and a stale flag, so the 7-series
 * bundle stays well under the 32 KB body budget. `view=full` keeps every observation. Staleness
 * is judged by the data's lag alone: /health's source registry would add about 25 KB to the
 * inventory function's bundle, and a failing source shows in the age of its data anyway.
 */
import { DATA_LAG_RULE, isStale } from '../../observation/staleness';
import type { Observation } from '../../observation/schema';
import type { loadInventoryBundle, loadInventorySeries } from './load';

type Bundle = Awaited<ReturnType<typeof loadInventoryBundle>>;
type Series = Awaited<ReturnType<typeof loadInventorySeries>>;
type Block = Bundle['series'][number];

const figure = (o: Observation | null): number | null => o?.value ?? null;
const pointOf = (o: Observation) => ({ as_of: o.as_of, value: o.value });

/** One series' headline; a series without data keeps its identity, reason and history. */
const inventoryHeadline = (b: Block, today: string) => {
  const head = { key: b.key, series_id: b.series_id, meaning: b.meaning, unit: b.unit, source_id: b.source_id };
  if (b.status === 'no_data') return { ...head, status: b.status, reason: b.reason, history: b.history };
  return {
    ...head,
    status: b.status,
    as_of: b.latest.as_of,
    value: b.latest.value,
    week_over_week_change: figure(b.week_over_week_change),
    five_year_average: figure(b.five_year.average),
    five_year_min: figure(b.five_year.min),
    five_year_max: figure(b.five_year.max),
    deviation: figure(b.five_year.deviation),
    deviation_pct: figure(b.five_year.deviation_pct),
    five_year_average_change: figure(b.five_year.average_change),
    surprise: figure(b.surprise),
    stale: isStale(b.latest.as_of, b.latest.freshness_class, today, false),
    history: b.history,
  };
};

const envelope = (fullView: string) => ({ view: 'compact' as const, full_view: fullView, stale_rule: DATA_LAG_RULE });

/** The compact GET /v1/inventory/eia. */
const compactInventoryBundle = (full: Bundle, today: string) => ({
  report: full.report,
  method: full.method,
  count: full.count,
  series: full.series.map((b) => inventoryHeadline(b, today)),
  missing: full.missing,
  ...envelope('/v1/inventory/eia?view=full'),
});

/** The compact GET /v1/inventory/eia/{series}: the headline plus its weeks as points. */
const compactInventorySeries = (full: Series, today: string) => ({
  ...(inventoryHeadline(full, today) as ReturnType<typeof inventoryHeadline> & { status: 'ok' }),
  method: full.method,
  same_week_prior_years: (full.same_week_prior_years ?? []).map(pointOf),
  recent: (full.recent ?? []).map(pointOf),
  ...envelope(`/v1/inventory/eia/${full.key}?view=full`),
});

export { compactInventoryBundle, compactInventorySeries };
