/**
 * Typical size of each paid route's default answer (the compact view where a route has one), so an
 * agent knows what a call puts into its context window before paying. Measured on the replayed
 * samples with the example request; test/e2e/body-sizes.test.ts re-measures every example and
 * holds each figure within ±50 % (and every default body but a history page under 32 KB).
 * The discovery documents state it (OpenAPI `x-typical-body-kb`, /.well-known/x402 `typical_body_kb`).
 */
import type { RouteId } from './table';

interface TypicalBody {
  /** The request the figure was measured with. */
  example: string;
  /** KB (1,024 bytes) of its JSON body, one decimal. */
  kb: number;
}

const TYPICAL_BODY: Readonly<Partial<Record<RouteId, TypicalBody>>> = Object.freeze({
  'GET /v1/price/{code}': { example: '/v1/price/CL', kb: 0.7 },
  'GET /v1/prices': { example: '/v1/prices?codes=CL,BZ,NG,GC', kb: 2.9 },
  // A history page: one observation (about 0.7 KB) per point, a year of daily points by default.
  'GET /v1/history/{code}': { example: '/v1/history/CL', kb: 169.2 },
  'GET /v1/curve/{root}': { example: '/v1/curve/CL', kb: 0.8 },
  'GET /v1/inventory/eia': { example: '/v1/inventory/eia', kb: 5.0 },
  'GET /v1/inventory/eia/{series}': { example: '/v1/inventory/eia/crude_ex_spr', kb: 3.8 },
  'GET /v1/cot/{code}': { example: '/v1/cot/CL', kb: 21.2 },
  'GET /v1/spreads/crack': { example: '/v1/spreads/crack', kb: 4.8 },
  'GET /v1/spreads/crush': { example: '/v1/spreads/crush', kb: 5.4 },
  'GET /v1/spreads/basis': { example: '/v1/spreads/basis', kb: 3.5 },
  'GET /v1/spreads/calendar/{root}': { example: '/v1/spreads/calendar/CL', kb: 0.8 },
  'GET /v1/fundamentals/wasde': { example: '/v1/fundamentals/wasde', kb: 3.8 },
  'GET /v1/fundamentals/crop-progress': { example: '/v1/fundamentals/crop-progress', kb: 0.9 },
  'GET /v1/fundamentals/export-sales': { example: '/v1/fundamentals/export-sales', kb: 2.5 },
  'GET /v1/fundamentals/usgs': { example: '/v1/fundamentals/usgs', kb: 12.2 },
  'GET /v1/fx/{pair}': { example: '/v1/fx/EURUSD', kb: 0.7 },
  'GET /v1/snapshot/{sector}': { example: '/v1/snapshot/metals', kb: 13.8 },
  'GET /v1/decision/{sector}': { example: '/v1/decision/ags', kb: 16.1 },
  'GET /v1/snapshot/all': { example: '/v1/snapshot/all', kb: 24.9 },
  'GET /v1/decision/all': { example: '/v1/decision/all', kb: 25.9 },
});

/** Routes whose default answer may exceed the 32 KB budget: history pages. */
const HISTORY_PAGES: ReadonlySet<RouteId> = new Set<RouteId>(['GET /v1/history/{code}']);

/** Typical KB of a route's default answer, or null for a route without a figure (the free ones). */
const typicalBodyKb = (id: RouteId): number | null => TYPICAL_BODY[id]?.kb ?? null;

export { TYPICAL_BODY, HISTORY_PAGES, typicalBodyKb };
export type { TypicalBody };
