/**
 * Route handlers of the fundamentals family: /v1/fundamentals/wasde, /crop-progress,
 * /export-sales and /usgs, each with the optional `commodity` query parameter (a lower-case
 * slug; an unknown one is a 404 listing the valid ones).
 */
import type { FamilyHandlers } from '../../http/types';
import { loadCropProgress, loadExportSales, loadUsgs, loadWasde } from './load';

const fundamentalsHandlers: FamilyHandlers<'fundamentals'> = Object.freeze({
  'GET /v1/fundamentals/wasde': async ({ services, query }) => ({ body: await loadWasde(services, query.commodity) }),
  'GET /v1/fundamentals/crop-progress': async ({ services, query }) => ({ body: await loadCropProgress(services, query.commodity) }),
  'GET /v1/fundamentals/export-sales': async ({ services, query }) => ({ body: await loadExportSales(services, query.commodity) }),
  'GET /v1/fundamentals/usgs': async ({ services, query }) => ({ body: await loadUsgs(services, query.commodity) }),
});

export { fundamentalsHandlers };
