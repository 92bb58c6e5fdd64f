/**
 * Reads of the fundamentals family: WASDE balance sheets, NASS crop progress, FAS export
 * sales and USGS mineral summaries, each as its latest report plus the change since the
 * previous report, versus a year ago and versus the 5-year average (analytics/fundamentals.ts).
 * The route handlers return these bodies unchanged; the snapshot and decision packs reuse them.
 *
 * Every read goes through the read cache (provenance tells whether it was a hit). A commodity
 * without stored data is listed under `missing` with the reason; when nothing at all is stored
 * the answer is NO_DATA (503 while a release can fill it, 404 when only bundled samples were
 * replayed), never a 500.
 */
import { compareLine, nearestTo, priorMarketYear, wasdeLines, WASDE_LINES, type LineComparison } from '../../analytics/fundamentals';
import type { FreshnessClass } from '../../catalog/instruments';
import { seriesKey } from '../../catalog/series-keys';
import { CROP_METHOD, ESR_METHOD, USGS_METHOD, WASDE_METHOD } from '../../analytics/fundamentals-methods';
import type { Services } from '../../services';
import { NotFoundError, ServiceUnavailableError } from '../../errors/errors';
import type { AttributeValue, Observation } from '../../observation/schema';
import { pointInTimeOf } from '../../observation/vintage';
import type { SeriesNote } from '../../store/observation-store';
import { CROP_COMMODITIES, CROP_STATISTICS, ESR_COMMODITY_SLUGS, USGS_SERIES, WASDE_COMMODITIES } from '../../catalog/fundamentals';
import { addDays } from '../../dates';

/** An attribute shown as a report label (a flag is not a label, so it reads as text). */
const labelOf = (v: AttributeValue | undefined): string | number | null => (v === undefined || v === null ? null : typeof v === 'boolean' ? String(v) : v);

// ---- cached reads -------------------------------------------------------------------------

/** The n newest observations of a series, newest first, as served. */
const recent = (services: Services, key: string, n: number, freshness: FreshnessClass): Promise<Observation[]> => services.reader.recent(key, n, freshness);

/** The observation nearest to `target` within ±`tolerance` days, as served, or null. */
const around = async (services: Services, key: string, target: string, tolerance: number, freshness: FreshnessClass): Promise<Observation | null> => {
  const [start, end] = [addDays(target, -tolerance), addDays(target, tolerance)];
  const { observations } = await services.reader.window(key, start, end, freshness, 2 * tolerance + 1);
  return nearestTo(observations, target, tolerance);
};

// ---- shared shape -------------------------------------------------------------------------

interface Missing {
  commodity: string;
  reason: string;
}

/** The commodities to answer: all of the route's, or the one asked for (404 listing the valid ones). */
const selectCommodities = (route: string, valid: readonly string[], commodity: string | undefined): string[] => {
  if (commodity === undefined) return [...valid];
  const c = commodity.replace(/-/g, '_');
  if (!valid.includes(c)) {
    throw new NotFoundError('UNKNOWN_SERIES', `unknown commodity ${JSON.stringify(commodity)} for ${route}`, { valid, parameter: 'commodity' });
  }
  return [c];
};

/**
 * With no commodity answered: 503 NO_DATA (retryable) while a release can still fill it, or 404
 * NO_DATA (not retryable) when the source's data comes from the bundled samples, which no release
 * changes; the 404 names what the samples do cover. Otherwise the partial answer stands.
 * @param covered the commodities the route answers for (asked only on the 404 path)
 */
const requireSome = async <T>(
  services: Services,
  what: { route: string; source: string; asked: string | undefined },
  found: T[],
  missing: Missing[],
  covered: () => Promise<string[]>,
): Promise<void> => {
  if (found.length > 0) return;
  const names = missing.map((m) => m.commodity).join(', ');
  const status = await services.reader.runStatus(what.source);
  if (status?.last_mode === 'replay' && status.last_success_at) {
    // Only a narrowed request can ask for the coverage without asking itself again.
    const cover = what.asked ? await covered().catch(() => []) : [];
    throw new NotFoundError('NO_DATA', `the bundled samples of ${what.source} hold no ${what.route} for ${names}; a live run of ${what.source} would`, {
      missing,
      covered: cover,
      source: what.source,
      hint: 'GET /v1/catalog states what the demo data covers',
    });
  }
  throw new ServiceUnavailableError('NO_DATA', `no ${what.route} data is stored yet for ${names}`, {
    missing,
    hint: 'GET /health shows when each source last succeeded',
  });
};

/** What a per-commodity loader answers: its body, or why there is none. */
type Loaded<T> = { found: T } | { missing: Missing };

/** Runs per-commodity loaders in parallel, splitting answers from missing commodities. */
const collect = async <T>(commodities: string[], load: (c: string) => Promise<Loaded<T>>): Promise<{ found: T[]; missing: Missing[] }> => {
  const out = await Promise.all(commodities.map(load));
  return {
    found: out.flatMap((x) => ('found' in x ? [x.found] : [])),
    missing: out.flatMap((x) => ('missing' in x ? [x.missing] : [])),
  };
};

const absent = (commodity: string, reason: string): { missing: Missing } => ({ missing: { commodity, reason } });

// ---- WASDE --------------------------------------------------------------------------------

/** WASDE balance sheets of one or all commodities (corn, soybeans, wheat). */
const loadWasde = async (services: Services, commodity?: string) => {
  const commodities = selectCommodities('/v1/fundamentals/wasde', WASDE_COMMODITIES, commodity);
  const { found, missing } = await collect(commodities, async (c) => {
    const [latest, previous] = await recent(services, seriesKey.wasdeReports(c, 'US'), 2, 'monthly');
    if (!latest) return absent(c, 'no WASDE report stored yet');
    const years = String(latest.attributes.market_years ?? '')
      .split(',')
      .filter(Boolean)
      .sort()
      .reverse();
    const projection = String(latest.attributes.projection_year ?? years[0]);
    // The newest stored item of a market year (its latest estimate), for year-ago and 5-year figures.
    const newestOf = async (my: string) => (await recent(services, seriesKey.wasde(c, 'US', my), 1, 'monthly'))[0] ?? null;
    const market_years = await Promise.all(
      years.map(async (my) => {
        const items = await recent(services, seriesKey.wasde(c, 'US', my), 2, 'monthly');
        const now = items.find((o) => o.as_of === latest.as_of);
        if (!now) return null;
        const before = previous ? (items.find((o) => o.as_of === previous.as_of) ?? null) : null;
        const [priorYear, ...five] = await Promise.all([1, 2, 3, 4, 5].map((k) => newestOf(priorMarketYear(my, k))));
        const fiveAll = [priorYear ?? null, ...five];
        const lines = wasdeLines(now, c);
        const beforeLines = before ? wasdeLines(before, c) : null;
        const yearAgoLines = priorYear ? wasdeLines(priorYear, c) : null;
        const fiveLines = fiveAll.map((o) => (o ? wasdeLines(o, c) : null));
        const previousMissing = !previous
          ? 'only one WASDE report is stored'
          : `${my} is not in the ${previous.attributes.report_month ?? previous.as_of} report (first projected in ${latest.attributes.report_month ?? latest.as_of})`;
        return {
          market_year: my,
          status: labelOf(now.attributes.status),
          lines: WASDE_LINES.flatMap(({ statistic, label }) => {
            const line = lines.get(statistic);
            if (!line) return [];
            return [
              compareLine(statistic, label, {
                latest: line,
                previous: beforeLines?.get(statistic) ?? null,
                previousMissing,
                yearAgo: yearAgoLines?.get(statistic) ?? null,
                yearAgoMissing: `market year ${priorMarketYear(my)} is not stored`,
                fiveYears: fiveLines.map((l) => l?.get(statistic) ?? null),
                previousLabel: 'previous WASDE report',
                yearAgoLabel: 'prior market year',
              }),
            ];
          }),
        };
      }),
    );
    const meta = (o: Observation) => ({
      report_month: labelOf(o.attributes.report_month),
      as_of: o.as_of,
      published_at: o.published_at,
      wasde_number: labelOf(o.attributes.wasde_number),
    });
    return {
      found: {
        commodity: c,
        region: 'US',
        unit: latest.unit,
        projection_year: projection,
        report: meta(latest),
        previous_report: previous ? meta(previous) : null,
        market_years: market_years.filter((m): m is NonNullable<typeof m> => m !== null),
        // A market year the report names but whose balance sheet is not stored (a partial write).
        market_years_missing: years.filter((_, i) => market_years[i] === null),
      },
    };
  });
  await requireSome(services, { route: 'WASDE', source: 'usda-wasde', asked: commodity }, found, missing, async () =>
    (await loadWasde(services)).commodities.map((c) => c.commodity),
  );
  return { report: 'wasde', source: 'USDA World Agricultural Outlook Board, WASDE', method: WASDE_METHOD, commodities: found, missing };
};

// ---- crop progress ------------------------------------------------------------------------

const WEEK = 7;
const YEAR_IN_WEEKS = 364;
const WEEK_TOLERANCE_DAYS = 3;

/** Weekly comparisons of a series at `latest`: previous week, same week a year ago, 5 years. */
const weeklyComparisonInputs = async (services: Services, key: string, items: Observation[]) => {
  const [latest, prior] = items as [Observation, Observation | undefined];
  const previous = prior && prior.as_of === addDays(latest.as_of, -WEEK) ? prior : null;
  const years = await Promise.all([1, 2, 3, 4, 5].map((k) => around(services, key, addDays(latest.as_of, -YEAR_IN_WEEKS * k), WEEK_TOLERANCE_DAYS, 'weekly')));
  return {
    latest,
    previous,
    previousMissing: prior ? `the latest report before ${latest.as_of} is ${prior.as_of}, not the week before` : 'no earlier week stored',
    yearAgo: years[0] ?? null,
    yearAgoMissing: `no figure stored for the week of ${addDays(latest.as_of, -YEAR_IN_WEEKS)}`,
    fiveYears: years,
    previousLabel: 'previous weekly report',
    yearAgoLabel: 'same week a year ago',
  };
};

/** NASS crop progress and condition of one or all commodities (corn, soybeans, wheat). */
const loadCropProgress = async (services: Services, commodity?: string) => {
  const commodities = selectCommodities('/v1/fundamentals/crop-progress', CROP_COMMODITIES, commodity);
  const { found, missing } = await collect(commodities, async (c) => {
    const stats = CROP_STATISTICS[c as keyof typeof CROP_STATISTICS];
    const series = await Promise.all(
      stats.map(async (s) => ({ statistic: s, key: seriesKey.cropProgress(c, s), items: await recent(services, seriesKey.cropProgress(c, s), 2, 'weekly') })),
    );
    const withData = series.filter((s) => s.items.length > 0);
    if (withData.length === 0) return absent(c, 'no crop progress stored yet');
    const week = withData
      .map((s) => s.items[0]!.as_of)
      .sort()
      .at(-1)!;
    const current = withData.filter((s) => s.items[0]!.as_of === week);
    const statistics = await Promise.all(
      current.map(async (s) => compareLine(s.statistic, s.statistic.replace(/_/g, ' '), await weeklyComparisonInputs(services, s.key, s.items))),
    );
    return {
      found: {
        commodity: c,
        week_ending: week,
        published_at: current[0]!.items[0]!.published_at,
        statistics,
        not_in_latest_report: series.filter((s) => !current.includes(s)).map((s) => ({ statistic: s.statistic, last_week_ending: s.items[0]?.as_of ?? null })),
      },
    };
  });
  await requireSome(services, { route: 'crop progress', source: 'usda-nass-crop-progress', asked: commodity }, found, missing, async () =>
    (await loadCropProgress(services)).commodities.map((c) => c.commodity),
  );
  return {
    report: 'crop-progress',
    source: 'USDA National Agricultural Statistics Service, Crop Progress',
    unit: 'percent',
    method: CROP_METHOD,
    commodities: found,
    missing,
  };
};

// ---- export sales -------------------------------------------------------------------------

const ESR_LINES = Object.freeze([
  { statistic: 'net_sales', label: 'Net sales, current marketing year' },
  { statistic: 'weekly_exports', label: 'Exports for the week' },
  { statistic: 'accumulated_exports', label: 'Accumulated exports, marketing year to date' },
  { statistic: 'outstanding_sales', label: 'Outstanding sales' },
  { statistic: 'total_commitment', label: 'Total commitment (accumulated exports + outstanding sales)' },
  { statistic: 'gross_new_sales', label: 'Gross new sales' },
  { statistic: 'next_my_net_sales', label: 'Net sales, next marketing year' },
  { statistic: 'next_my_outstanding_sales', label: 'Outstanding sales, next marketing year' },
] as const);

/** One line of a stored weekly ESR item as an observation of its own. */
const esrLine = (item: Observation, commodity: string, statistic: string): Observation | null => {
  const a = item.attributes;
  const v = a[statistic];
  if (typeof v !== 'number') return null;
  return {
    ...item,
    instrument: `ESR:${commodity}:${statistic}`,
    value: v,
    attributes: {
      statistic,
      market_year: labelOf(a.market_year),
      countries: a.countries ?? null,
      scope: labelOf(a.scope),
      method: a.method ?? null,
      published_at_basis: a.published_at_basis ?? null,
      ...pointInTimeOf([item]),
    },
  };
};

/** FAS weekly export sales of one or all commodities (soybeans, corn, wheat). */
const loadExportSales = async (services: Services, commodity?: string) => {
  const commodities = selectCommodities('/v1/fundamentals/export-sales', ESR_COMMODITY_SLUGS, commodity);
  const { found, missing } = await collect(commodities, async (c) => {
    const key = seriesKey.exportSales(c);
    const items = await recent(services, key, 2, 'weekly');
    if (items.length === 0) return absent(c, 'no export sales stored yet');
    const weekly = await weeklyComparisonInputs(services, key, items);
    // Across the marketing-year boundary the running totals restart: no week-on-week change then.
    const crossesYear = weekly.previous && weekly.previous.attributes.market_year !== weekly.latest.attributes.market_year;
    const inputs = crossesYear
      ? {
          ...weekly,
          previous: null,
          previousMissing: `the week before belongs to marketing year ${weekly.previous!.attributes.market_year}, whose running totals do not continue into ${weekly.latest.attributes.market_year}`,
        }
      : weekly;
    const lines = ESR_LINES.flatMap(({ statistic, label }) => {
      const latest = esrLine(inputs.latest, c, statistic);
      if (!latest) return [];
      const line = (o: Observation | null) => (o ? esrLine(o, c, statistic) : null);
      return [
        compareLine(statistic, label, {
          ...inputs,
          latest,
          previous: line(inputs.previous),
          yearAgo: line(inputs.yearAgo),
          fiveYears: inputs.fiveYears.map(line),
        }),
      ];
    });
    const a = inputs.latest.attributes;
    return {
      found: {
        commodity: c,
        week_ending: inputs.latest.as_of,
        market_year: labelOf(a.market_year),
        published_at: inputs.latest.published_at,
        scope: labelOf(a.scope),
        unit: inputs.latest.unit,
        lines,
      },
    };
  });
  await requireSome(services, { route: 'export sales', source: 'usda-fas-esr', asked: commodity }, found, missing, async () =>
    (await loadExportSales(services)).commodities.map((c) => c.commodity),
  );
  return { report: 'export-sales', source: 'USDA Foreign Agricultural Service, Export Sales Reporting', method: ESR_METHOD, commodities: found, missing };
};

// ---- USGS ---------------------------------------------------------------------------------

/** USGS Mineral Commodity Summaries of one or all metals. */
const loadUsgs = async (services: Services, commodity?: string) => {
  const commodities = selectCommodities(
    '/v1/fundamentals/usgs',
    USGS_SERIES.map((s) => s.commodity),
    commodity,
  );
  const { found, missing } = await collect(commodities, async (c) => {
    const spec = USGS_SERIES.find((s) => s.commodity === c)!;
    const series = await Promise.all(
      spec.statistics.map(async (s) => {
        const key = seriesKey.usgs(c, s.statistic);
        const [items, notes] = await Promise.all([recent(services, key, 6, 'monthly'), services.reader.notes(key, 1, 'monthly')]);
        return { ...s, items, note: notes[0] ?? null };
      }),
    );
    const withData = series.filter((s) => s.items.length > 0);
    if (withData.length === 0 && series.every((s) => !s.note)) return absent(c, 'no USGS Mineral Commodity Summaries data stored yet');
    /** What USGS printed instead of a number, and why. */
    const printed = (n: SeriesNote) => `USGS printed "${n.published_value}" for ${n.as_of.slice(0, 4)}: ${n.note}`;
    const statistics: LineComparison[] = withData.map(({ statistic, label, items, note }) => {
      const [latest] = items as [Observation];
      const year = Number(latest.as_of.slice(0, 4));
      const ofYear = (y: number) => items.find((o) => o.as_of === `${y}-12-31`) ?? null;
      const line = compareLine(statistic, label, {
        latest,
        previous: null,
        previousMissing: 'each MCS edition revises earlier years in place; the previous edition is not kept',
        yearAgo: ofYear(year - 1),
        yearAgoMissing: `${year - 1} is not stored`,
        fiveYears: [1, 2, 3, 4, 5].map((k) => ofYear(year - k)),
        previousLabel: 'previous MCS edition',
        yearAgoLabel: 'prior year',
      });
      // A newer year without a number: the latest value is an older year's, and the line says why.
      return note && note.as_of > latest.as_of ? { ...line, notes: [...line.notes, `no value for ${note.as_of.slice(0, 4)}: ${printed(note)}`] } : line;
    });
    const dated = [...withData.map((s) => s.items[0]!)].sort((a, b) => (b.published_at ?? '').localeCompare(a.published_at ?? ''));
    const newest = dated[0];
    return {
      found: {
        commodity: c,
        edition: newest ? labelOf(newest.attributes.edition) : null,
        published_at: newest?.published_at ?? null,
        statistics,
        statistics_without_data: series
          .filter((s) => s.items.length === 0)
          .map((s) => ({
            statistic: s.statistic,
            label: s.label,
            reason: s.note ? printed(s.note) : 'USGS publishes no number for it (W withheld, NA, or E: net exporter)',
            as_of: s.note?.as_of ?? null,
            published_value: s.note?.published_value ?? null,
            unit: s.note?.unit ?? null,
          })),
      },
    };
  });
  await requireSome(services, { route: 'USGS', source: 'usgs-mcs', asked: commodity }, found, missing, async () =>
    (await loadUsgs(services)).commodities.map((c) => c.commodity),
  );
  return { report: 'usgs-mcs', source: 'U.S. Geological Survey, Mineral Commodity Summaries', method: USGS_METHOD, commodities: found, missing };
};

// ---- coverage ----------------------------------------------------------------------------

/** The fundamentals routes, their source and the commodities each serves. */
const FUNDAMENTALS_ROUTES = /* @__PURE__ */ Object.freeze([
  { route: '/v1/fundamentals/wasde', source: 'usda-wasde', commodities: WASDE_COMMODITIES, load: loadWasde },
  { route: '/v1/fundamentals/crop-progress', source: 'usda-nass-crop-progress', commodities: CROP_COMMODITIES, load: loadCropProgress },
  { route: '/v1/fundamentals/export-sales', source: 'usda-fas-esr', commodities: ESR_COMMODITY_SLUGS, load: loadExportSales },
  { route: '/v1/fundamentals/usgs', source: 'usgs-mcs', commodities: /* @__PURE__ */ USGS_SERIES.map((s) => s.commodity), load: loadUsgs },
] as const);

/**
 * Per fundamentals route: the commodities it serves, those the stored data answers for, and
 * whether that data came from a live run or the bundled samples. The same loads the routes run,
 * so the catalog cannot promise what the route would refuse.
 * @throws whatever a store outage throws; a route without data is `covered: []`, not an error
 */
const loadFundamentalsCoverage = (services: Services) =>
  Promise.all(
    FUNDAMENTALS_ROUTES.map(async (f) => {
      const [body, status] = await Promise.all([
        (f.load(services) as Promise<{ commodities: Array<{ commodity: string }> }>).catch((err: unknown) => {
          if ((err instanceof NotFoundError || err instanceof ServiceUnavailableError) && err.code === 'NO_DATA') return null;
          throw err;
        }),
        services.reader.runStatus(f.source),
      ]);
      return {
        route: f.route,
        source: f.source,
        commodities: [...f.commodities],
        covered: body ? body.commodities.map((c) => c.commodity) : [],
        data: status?.last_success_at ? (status.last_mode ?? null) : null,
      };
    }),
  );

type WasdeBody = Awaited<ReturnType<typeof loadWasde>>;
type CropProgressBody = Awaited<ReturnType<typeof loadCropProgress>>;
type ExportSalesBody = Awaited<ReturnType<typeof loadExportSales>>;
type UsgsBody = Awaited<ReturnType<typeof loadUsgs>>;

type FundamentalsCoverage = Awaited<ReturnType<typeof loadFundamentalsCoverage>>;

export { loadWasde, loadCropProgress, loadExportSales, loadUsgs, loadFundamentalsCoverage };
export type { WasdeBody, CropProgressBody, ExportSalesBody, UsgsBody, Missing, FundamentalsCoverage };
