/**
 * Route handlers of the fundamentals family: /v1/fundamentals/wasde, /crop-progress,
 * /export-sales and /usgs, each with the optional `commodity` query parameter (a lower-case
 * slug; an unknown one is a 404 listing the valid ones).
 */
import type { FamilyHandlers, HandlerRequest } from '../../http/types';
import { loadCropProgress, loadExportSales, loadUsgs, loadWasde } from './load';

type Req = HandlerRequest<Record<string, never>, { commodity?: string }>;

const fundamentalsHandlers: FamilyHandlers = Object.freeze({
  'GET /v1/fundamentals/wasde': async ({ deps, query }: Req) => ({ body: await loadWasde(deps, query.commodity) }),
  'GET /v1/fundamentals/crop-progress': async ({ deps, query }: Req) => ({ body: await loadCropProgress(deps, query.commodity) }),
  'GET /v1/fundamentals/export-sales': async ({ deps, query }: Req) => ({ body: await loadExportSales(deps, query.commodity) }),
  'GET /v1/fundamentals/usgs': async ({ deps, query }: Req) => ({ body: await loadUsgs(deps, query.commodity) }),
});

export { fundamentalsHandlers };
