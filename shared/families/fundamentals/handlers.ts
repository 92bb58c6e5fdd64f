/**
 * Route handlers of the fundamentals family: /v1/fundamentals/wasde, /crop-progress,
 * /export-sales and /usgs, each with the optional `commodity` query parameter (a lower-case
 * slug; an unknown one is a 404 listing the valid ones).
 */
import { isoDate } from '../../dates';
import type { FamilyHandlers } from '../../http/types';
import { STALE_RULE } from '../../observation/staleness';
import type { Services } from '../../services';
import { loadFreshness } from '../freshness';
import { sameInstant } from '../point-in-time';
import { fundamentalLines, type FundamentalParts } from '../headline';
import { loadCropProgress, loadExportSales, loadUsgs, loadWasde } from './load';
import { answerAsKnownAt } from '../point-in-time';

type Part = keyof FundamentalParts;

/** Each report's part name in the headline builder, its source and its route. */
const REPORTS = {
  wasde: { source: 'usda-wasde', path: '/v1/fundamentals/wasde' },
  crop_progress: { source: 'usda-nass-crop-progress', path: '/v1/fundamentals/crop-progress' },
  export_sales: { source: 'usda-fas-esr', path: '/v1/fundamentals/export-sales' },
  usgs: { source: 'usgs-mcs', path: '/v1/fundamentals/usgs' },
} as const satisfies Partial<Record<Part, { source: string; path: string }>>;

/**
 * The route's answer in the requested view: the full report, or its headline lines (default).
 * @param full the report body as its loader builds it
 */
const inView = async <P extends keyof typeof REPORTS, B extends NonNullable<FundamentalParts[P]>>(
  services: Services,
  part: P,
  full: B,
  query: { view: 'compact' | 'full'; commodity?: string | undefined },
) => {
  if (query.view === 'full') return { ...full, view: 'full' as const };
  const { source, path } = REPORTS[part];
  const [freshness] = await loadFreshness(services, [source]);
  const lines = fundamentalLines({ [part]: full }, new Set(freshness?.stale ? [source] : []), isoDate(services.now()));
  const params = new URLSearchParams({ ...(query.commodity ? { commodity: query.commodity } : {}), view: 'full' });
  return {
    report: full.report,
    source: full.source,
    view: 'compact' as const,
    full_view: sameInstant(services, `${path}?${params}`),
    lines,
    stale_rule: STALE_RULE,
    missing: full.missing,
  };
};

const fundamentalsHandlers: FamilyHandlers<'fundamentals'> = answerAsKnownAt<'fundamentals'>({
  'GET /v1/fundamentals/wasde': async ({ services, query }) => ({ body: await inView(services, 'wasde', await loadWasde(services, query.commodity), query) }),
  'GET /v1/fundamentals/crop-progress': async ({ services, query }) => ({
    body: await inView(services, 'crop_progress', await loadCropProgress(services, query.commodity), query),
  }),
  'GET /v1/fundamentals/export-sales': async ({ services, query }) => ({
    body: await inView(services, 'export_sales', await loadExportSales(services, query.commodity), query),
  }),
  'GET /v1/fundamentals/usgs': async ({ services, query }) => ({ body: await inView(services, 'usgs', await loadUsgs(services, query.commodity), query) }),
});

export { fundamentalsHandlers };
