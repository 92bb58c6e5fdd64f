/**
 * The route table: the single source of truth for every HTTP route (SPEC.md "Endpoints").
 * CDK routes, the local server, payment, the catalog's pricing, and (later) OpenAPI, x402
 * discovery, llms.txt and MCP tools are all generated from it. Nothing else types a path or
 * a price.
 */
import { z } from 'zod';
import { PRICES_USD, type PriceKey } from './pricing';
import { CodeParam, CodesQuery, HistoryQuery, NoParams, SlugParam } from './params';

/** One Lambda function per family (DESIGN.md "functions/"). */
const FAMILIES = [
  'price',
  'curve',
  'inventory',
  'cot',
  'spreads',
  'fundamentals',
  'snapshot',
  'decision',
  'discovery',
  'mcp',
] as const;
type Family = (typeof FAMILIES)[number];

type Method = 'GET' | 'POST';
type RouteId = `${Method} /${string}`;

interface RouteDef {
  /** `"VERB /path"`, the API Gateway HTTP API route key. */
  readonly id: RouteId;
  readonly method: Method;
  readonly path: string;
  readonly family: Family;
  /** Price key of SPEC.md, or null for free routes. */
  readonly priceKey: PriceKey | null;
  /** USD per call as a decimal string, or null for free routes. */
  readonly priceUsd: string | null;
  readonly summary: string;
  readonly params: z.ZodType<Record<string, unknown>>;
  readonly query: z.ZodType<Record<string, unknown>>;
  /** Response media type (text routes serve documents). */
  readonly mimeType: 'application/json' | 'text/plain' | 'text/markdown';
}

interface RouteInput {
  method?: Method;
  family: Family;
  price?: PriceKey;
  summary: string;
  params?: z.ZodType<Record<string, unknown>>;
  query?: z.ZodType<Record<string, unknown>>;
  mimeType?: RouteDef['mimeType'];
}

const route = (path: string, r: RouteInput): RouteDef => {
  const method = r.method ?? 'GET';
  return Object.freeze({
    id: `${method} ${path}` as RouteId,
    method,
    path,
    family: r.family,
    priceKey: r.price ?? null,
    priceUsd: r.price ? PRICES_USD[r.price] : null,
    summary: r.summary,
    params: r.params ?? NoParams,
    query: r.query ?? z.object({}).passthrough(),
    mimeType: r.mimeType ?? 'application/json',
  });
};

const code = z.object({ code: CodeParam });
const root = z.object({ root: CodeParam });
const pair = z.object({ pair: CodeParam });
const series = z.object({ series: SlugParam });
const sector = z.object({ sector: SlugParam });
const commodity = z.object({ commodity: SlugParam.optional() });

const ROUTES: readonly RouteDef[] = Object.freeze([
  // Paid data routes, in SPEC.md order.
  route('/v1/price/{code}', { family: 'price', price: 'PRICE', params: code, summary: 'Latest cash/fundamentals price observation' }),
  route('/v1/prices', { family: 'price', price: 'PRICES_BUNDLE', query: z.object({ codes: CodesQuery }), summary: 'Price bundle for several codes' }),
  route('/v1/history/{code}', { family: 'price', price: 'HISTORY', params: code, query: HistoryQuery, summary: 'Series history, optionally resampled' }),
  route('/v1/curve/{root}', { family: 'curve', price: 'CURVE', params: root, summary: 'Forward curve; stub when indicative futures are off' }),
  route('/v1/inventory/eia', { family: 'inventory', price: 'INVENTORY_BUNDLE', summary: 'Weekly EIA inventories with 5-year comparison and surprise' }),
  route('/v1/inventory/eia/{series}', { family: 'inventory', price: 'INVENTORY_SERIES', params: series, summary: 'One weekly inventory series with recent history' }),
  route('/v1/cot/{code}', { family: 'cot', price: 'COT', params: code, summary: 'Managed-money net positioning (CFTC disaggregated COT)' }),
  route('/v1/spreads/crack', { family: 'spreads', price: 'CRACK', summary: '3-2-1 crack spread, cash proxy' }),
  route('/v1/spreads/crush', { family: 'spreads', price: 'CRUSH', summary: 'Soy crush margin proxy' }),
  route('/v1/spreads/basis', { family: 'spreads', price: 'BASIS', summary: 'WTI-Brent basis spread' }),
  route('/v1/spreads/calendar/{root}', { family: 'curve', price: 'CALENDAR', params: root, summary: 'Calendar spread; stub until licensed curves' }),
  route('/v1/fundamentals/wasde', { family: 'fundamentals', price: 'WASDE', query: commodity, summary: 'US supply-and-demand balance sheets (WASDE-shaped)' }),
  route('/v1/fundamentals/crop-progress', { family: 'fundamentals', price: 'CROP_PROGRESS', query: commodity, summary: 'Crop progress and condition' }),
  route('/v1/fundamentals/export-sales', { family: 'fundamentals', price: 'EXPORT_SALES', query: commodity, summary: 'Weekly export sales' }),
  route('/v1/fundamentals/usgs', { family: 'fundamentals', price: 'USGS', query: commodity, summary: 'Annual mineral commodity summaries' }),
  route('/v1/fx/{pair}', { family: 'price', price: 'FX', params: pair, summary: 'FX pair for commodity context' }),
  route('/v1/snapshot/{sector}', { family: 'snapshot', price: 'SNAPSHOT', params: sector, summary: 'Sector snapshot' }),
  route('/v1/decision/{sector}', { family: 'decision', price: 'DECISION', params: sector, summary: 'Deterministic decision pack for one sector' }),
  route('/v1/snapshot/all', { family: 'snapshot', price: 'SNAPSHOT_ALL', summary: 'All-sector snapshot bundle' }),
  route('/v1/decision/all', { family: 'decision', price: 'DECISION_ALL', summary: 'All-sector decision pack bundle' }),
  // Free discovery routes.
  route('/health', { family: 'discovery', summary: 'Health and per-source staleness' }),
  route('/v1/catalog', { family: 'discovery', summary: 'Instrument catalog with live pricing_usd' }),
  route('/v1/calendar', { family: 'discovery', summary: 'Release calendar of every source' }),
  route('/llms.txt', { family: 'discovery', summary: 'Short agent briefing', mimeType: 'text/plain' }),
  route('/llms-full.txt', { family: 'discovery', summary: 'Full agent reference', mimeType: 'text/plain' }),
  route('/openapi.json', { family: 'discovery', summary: 'OpenAPI 3.1 description' }),
  route('/SKILL.md', { family: 'discovery', summary: 'Agent skill manifest', mimeType: 'text/markdown' }),
  route('/.well-known/agent.json', { family: 'discovery', summary: 'Agent card' }),
  route('/.well-known/x402.json', { family: 'discovery', summary: 'Payment resource catalog' }),
  route('/terms.txt', { family: 'discovery', summary: 'Terms of use', mimeType: 'text/plain' }),
  route('/api/mcp', { family: 'mcp', summary: 'List of MCP tool names (discovery)' }),
  // MCP streamable HTTP; priced per tool, not per route.
  route('/api/mcp', { method: 'POST', family: 'mcp', summary: 'MCP streamable HTTP endpoint' }),
]);

const PAID_ROUTES = ROUTES.filter((r) => r.priceKey !== null);
const FREE_ROUTES = ROUTES.filter((r) => r.priceKey === null && r.family !== 'mcp');

/** Routes served by one family's Lambda. */
const routesOf = (family: Family): RouteDef[] => ROUTES.filter((r) => r.family === family);

const BY_ID: ReadonlyMap<string, RouteDef> = new Map(ROUTES.map((r) => [r.id, r]));
const findRoute = (id: string): RouteDef | undefined => BY_ID.get(id);

export { FAMILIES, ROUTES, PAID_ROUTES, FREE_ROUTES, routesOf, findRoute };
export type { Family, Method, RouteId, RouteDef };
