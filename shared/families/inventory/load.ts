/**
 * Reads and bodies of the inventory family: the 7 weekly EIA series with week-over-week change,
 * the 5-year same-week comparison and the surprise. The snapshot and decision families reuse
 * `loadInventoryBundle`, which returns exactly the body of GET /v1/inventory/eia.
 */
import { INVENTORY_YEARS, INVENTORY_METHOD, analyzeInventory, type InventoryAnalysis } from '../../analytics/inventory';
import { INVENTORY_KEYS, INVENTORY_SERIES, findInventorySeries, type InventorySeries } from '../../catalog/inventory';
import { seriesKey } from '../../catalog/series-keys';
import type { Services } from '../../services';
import { NotFoundError, ServiceUnavailableError } from '../../errors/errors';
import type { Observation } from '../../observation/schema';
import { deriveFrom } from '../../observation/derive';

/** Weeks of history the single-series route returns. */
const RECENT_WEEKS = 52;
/** Days read before the 5-year-earlier week: its own week before (7) plus the ±3-day search. */
const WINDOW_SLACK_DAYS = 14;
/** Guard on a window read (5 years of weekly data is about 265 points). */
const MAX_WINDOW_POINTS = 2000;

/**
 * The stored weeks of one series from 5 years (plus slack) before its latest week through the
 * latest, ascending and served; [] when nothing is stored. One cache entry per series, so
 * provenance.cache_hit is the same for every figure built from it.
 */
const loadInventoryWindow = async (services: Services, key: string): Promise<Observation[]> => {
  return services.reader.yearsBeforeLatest(seriesKey.inventory(key), INVENTORY_YEARS, WINDOW_SLACK_DAYS, 'weekly', MAX_WINDOW_POINTS);
};

/** Unit of a change or difference of the series. */
const differenceUnit = (unit: string) => (unit === '%' ? 'percentage points' : unit);

const historyNote = (a: InventoryAnalysis | null, earliest: string | null): string => {
  if (!a) return 'no week of this series is stored';
  const parts: string[] = [];
  if (a.levelYears < INVENTORY_YEARS) {
    parts.push(
      `the 5-year average, min, max and deviation need the same week in each of the ${INVENTORY_YEARS} prior years; ${a.levelYears} of ${INVENTORY_YEARS} are stored (stored weeks in the 5-year window start ${earliest}), so they are null`,
    );
  }
  if (a.changeYears < INVENTORY_YEARS) {
    parts.push(
      `the surprise needs the same-week change in each of the ${INVENTORY_YEARS} prior years; ${a.changeYears} of ${INVENTORY_YEARS} are available, so it is null`,
    );
  }
  if (!a.previous) parts.push(`the week ending 7 days before ${a.latest.as_of} is not stored, so the week-over-week change is null`);
  return parts.length ? parts.join('; ') : `all ${INVENTORY_YEARS} prior years are stored`;
};

interface BlockOptions {
  /** Single-series route: add the prior-year weeks used and the recent history. */
  detail: boolean;
}

/** One series' figures, every number inside an observation. */
const computeSeriesBlock = (spec: InventorySeries, observations: Observation[], opts: BlockOptions) => {
  const a = analyzeInventory(observations.map((o) => ({ as_of: o.as_of, value: o.value })));
  const head = { key: spec.key, series_id: spec.seriesId, meaning: spec.meaning, unit: spec.unit, source_id: spec.sourceId };
  const history = {
    prior_years_required: INVENTORY_YEARS,
    prior_years_available: a?.levelYears ?? 0,
    prior_year_changes_available: a?.changeYears ?? 0,
    note: historyNote(a, observations[0]?.as_of ?? null),
  };
  if (!a) {
    return {
      ...head,
      status: 'no_data' as const,
      reason: `no observation of ${spec.key} is stored yet`,
      latest: null,
      week_over_week_change: null,
      five_year: { average: null, min: null, max: null, deviation: null, deviation_pct: null, average_change: null },
      surprise: null,
      history,
      ...(opts.detail ? { same_week_prior_years: [], recent: [] } : {}),
    };
  }
  const byDate = new Map(observations.map((o) => [o.as_of, o]));
  const latest = byDate.get(a.latest.as_of)!;
  const diff = differenceUnit(spec.unit);
  const sameWeekDates = a.priorYears.map((y) => y.level?.as_of ?? `none near ${y.target}`).join(',');
  const d = (value: number | null, unit: string, metric: string, attributes?: Record<string, number | string | null>) =>
    deriveFrom(latest, { value, unit, metric, attributes });
  return {
    ...head,
    status: 'ok' as const,
    latest,
    week_over_week_change: d(a.change, diff, 'week_over_week_change', { compared_with_as_of: a.previous?.as_of ?? null }),
    five_year: {
      average: d(a.fiveYear?.average ?? null, spec.unit, 'five_year_average', { same_week_as_of: sameWeekDates }),
      min: d(a.fiveYear?.min.value ?? null, spec.unit, 'five_year_min', { min_as_of: a.fiveYear?.min.as_of ?? null }),
      max: d(a.fiveYear?.max.value ?? null, spec.unit, 'five_year_max', { max_as_of: a.fiveYear?.max.as_of ?? null }),
      deviation: d(a.deviation, diff, 'deviation_from_five_year_average'),
      deviation_pct: d(a.deviationPct, '%', 'deviation_from_five_year_average_pct'),
      average_change: d(a.averageChange, diff, 'five_year_average_change', { same_week_as_of: sameWeekDates }),
    },
    surprise: d(a.surprise, diff, 'surprise_vs_five_year_average_change'),
    history,
    ...(opts.detail
      ? {
          // The official prior-year weeks the 5-year figures were computed from, newest first.
          same_week_prior_years: a.priorYears.flatMap((y) => (y.level ? [byDate.get(y.level.as_of)!] : [])),
          recent: observations.slice(-RECENT_WEEKS),
        }
      : {}),
  };
};

/**
 * Blocks of cached windows, by window and detail. A cache hit hands out the same frozen window
 * (ObservationReader), and a block is a pure function of it, so a warm process computes each
 * block once per window instead of once per call (the 5-year analysis of 7 series took about
 * 0.4 ms per call). A fresh read is a new array and is computed afresh.
 */
const BLOCKS = { summary: new WeakMap<object, ReturnType<typeof computeSeriesBlock>>(), detail: new WeakMap<object, ReturnType<typeof computeSeriesBlock>>() };
const seriesBlock = (spec: InventorySeries, observations: Observation[], opts: BlockOptions) => {
  if (!Object.isFrozen(observations)) return computeSeriesBlock(spec, observations, opts);
  const memo = opts.detail ? BLOCKS.detail : BLOCKS.summary;
  let block = memo.get(observations);
  if (!block) {
    block = computeSeriesBlock(spec, observations, opts);
    memo.set(observations, block);
  }
  return block;
};

/** The catalog entry of an inventory key, or a 404 listing the valid keys. */
const requireInventorySeries = (key: string): InventorySeries => {
  const spec = findInventorySeries(key);
  if (!spec) {
    throw new NotFoundError('UNKNOWN_SERIES', `unknown inventory series ${JSON.stringify(key)}`, { valid: INVENTORY_KEYS });
  }
  return spec;
};

/**
 * The body of GET /v1/inventory/eia: all 7 series in catalog order (a series without data has
 * status "no_data", null figures and a reason, and is listed under `missing`).
 * @throws ServiceUnavailableError NO_DATA when no series has any stored week
 */
const loadInventoryBundle = async (services: Services) => {
  const windows = await Promise.all(INVENTORY_SERIES.map((s) => loadInventoryWindow(services, s.key)));
  const series = INVENTORY_SERIES.map((s, i) => seriesBlock(s, windows[i]!, { detail: false }));
  const missing = series.flatMap((b) => (b.status === 'no_data' ? [{ key: b.key, reason: b.reason }] : []));
  if (missing.length === series.length) {
    throw new ServiceUnavailableError('NO_DATA', 'no weekly inventory observation is stored yet', {
      hint: 'GET /health shows when each source last succeeded',
    });
  }
  return {
    report: 'EIA Weekly Petroleum Status Report (Wednesdays 10:30 ET) and Weekly Natural Gas Storage Report (Thursdays 10:30 ET)',
    method: INVENTORY_METHOD,
    count: series.length - missing.length,
    series,
    missing,
  };
};

/**
 * The body of GET /v1/inventory/eia/{series}: one series' figures plus the prior-year weeks used
 * and its last 52 weeks.
 * @throws NotFoundError UNKNOWN_SERIES for a key that is not one of the 7
 * @throws ServiceUnavailableError NO_DATA when the series has no stored week
 */
const loadInventorySeries = async (services: Services, key: string) => {
  const spec = requireInventorySeries(key);
  const block = seriesBlock(spec, await loadInventoryWindow(services, spec.key), { detail: true });
  if (block.status === 'no_data') {
    throw new ServiceUnavailableError('NO_DATA', `no observation of ${spec.key} is stored yet`, {
      series: spec.key,
      hint: 'GET /health shows when each source last succeeded',
    });
  }
  return { method: INVENTORY_METHOD, ...block };
};

export { loadInventoryBundle, loadInventorySeries, loadInventoryWindow };
