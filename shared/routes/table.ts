/**
 * The route table: the typed owner of everything about a route (SPEC.md "Endpoints"). CDK
 * routes, the local server, the payment pipeline, the catalog's pricing, OpenAPI, x402
 * discovery, llms.txt and the MCP tools are all generated from it; nothing else types a path,
 * a price or the rule that makes a call free.
 *
 * Adding a paid route: add an entry here (id, family, price key, schemas, MCP text) and its
 * handler to the family's handler map; `tsc` fails until both exist.
 */
import * as z from '../zod';
import { COT_METHOD } from '../analytics/cot';
import { DIGEST_METHOD, RULESET } from '../analytics/decision';
import { CROP_METHOD, ESR_METHOD, USGS_METHOD, WASDE_METHOD } from '../analytics/fundamentals-methods';
import { AGGREGATION } from '../analytics/history';
import { INVENTORY_METHOD } from '../analytics/inventory';
import { SPREADS } from '../analytics/spreads';
import type { Config } from '../config';
import {
  AS_KNOWN_AT,
  AsKnownAtOnly,
  BundleCodesQuery,
  CotCodeParam,
  FuturesRootParam,
  FxPairParam,
  HistoryQuery,
  InstrumentParam,
  InventoryKeyParam,
  NoParams,
  SectorParam,
  ViewQuery,
  SlugParam,
  PaymentIdParam,
} from './params';
import * as S from '../schemas';
import { PRICES_USD, type PriceKey } from './pricing';
import { PaymentStatusBody } from '../schemas/payment-status';
import * as W from '../schemas/watches';

/** One Lambda function per family (DESIGN.md "functions/"). */
const FAMILIES = ['price', 'curve', 'inventory', 'cot', 'spreads', 'fundamentals', 'snapshot', 'decision', 'discovery', 'mcp', 'pro', 'watches'] as const;
type Family = (typeof FAMILIES)[number];

type Method = 'GET' | 'POST' | 'DELETE';
type MimeType = 'application/json' | 'text/plain' | 'text/markdown' | 'text/html' | 'image/svg+xml';

/** What MCP clients see of a paid route's tool (tool name is snake_case, <= 64 characters). */
interface McpSpec {
  readonly tool: string;
  readonly title: string;
  readonly description: string;
}

/** One entry of the table, keyed by its `"VERB /path"` id (the API Gateway route key). */
interface RouteSpec {
  readonly family: Family;
  /** Price key of SPEC.md; absent on free routes. The USD price comes from PRICES_USD. */
  readonly price?: PriceKey;
  readonly summary: string;
  readonly params: z.ZodMiniType;
  readonly query: z.ZodMiniType;
  /** The exact 200 body: validated in tests and in dev stage, and the source of OpenAPI / MCP output schemas. */
  readonly output: z.ZodMiniType;
  readonly mimeType?: MimeType;
  /** The one rule that makes a priced route free under a configuration (the curve stubs). */
  readonly freeWhen?: (config: Pick<Config, 'INDICATIVE_FUTURES'>) => boolean;
  /** How the route's derived figures are computed (llms-full.txt, the methods reference). */
  readonly methods?: Readonly<Record<string, string>>;
  readonly mcp?: McpSpec;
  /** A free route whose function still reads and writes the credit table (MCP tool payments, Pro checkout). */
  readonly usesCredits?: true;
  /** The JSON request body of a POST route other than MCP's JSON-RPC (OpenAPI states it; the handler parses it). */
  readonly body?: z.ZodMiniType;
  /** A free route that needs a Pro key (Authorization: Bearer) all the same: its watches are the key's. */
  readonly proKey?: true;
  /**
   * Answers of this route besides 200 and the errors every route shares, by status, with what they
   * mean (OpenAPI declares them): below 400 the body is the route's output, from 400 the error body.
   */
  readonly answers?: Readonly<Record<number, string>>;
}

const text = z.string();
const none = NoParams;
const anyQuery = z.looseObject({});
const stubWhileFuturesOff = (c: Pick<Config, 'INDICATIVE_FUTURES'>) => !c.INDICATIVE_FUTURES;

const toDef = (id: RouteId, spec: RouteSpec): RouteDef => {
  const [method, path] = id.split(' ') as [Method, string];
  return Object.freeze({
    ...spec,
    id,
    method,
    path,
    priceKey: spec.price ?? null,
    priceUsd: spec.price ? PRICES_USD[spec.price] : null,
    mimeType: spec.mimeType ?? 'application/json',
  });
};

/** A family's entries, keyed by route id. */
type FamilySpecs<F extends Family> = Record<`${Method} /${string}`, RouteSpec & { readonly family: F }>;

/** One family's routes: the entries of the table, and the routes its Lambda serves. */
interface FamilyRoutes<F extends Family = Family, S extends FamilySpecs<F> = FamilySpecs<F>> {
  readonly family: F;
  readonly specs: S;
  readonly routes: readonly RouteDef[];
}

/**
 * Declares one family's entries. Each Lambda entry imports its own family's constant, and the call is
 * marked free of side effects with the entries built inside `specs`, so a bundle leaves out every family
 * it does not read: their schemas, texts and the analytics their method texts quote.
 */
// @__NO_SIDE_EFFECTS__
function defineFamily<F extends Family, S extends FamilySpecs<F>>(family: F, specs: () => S): FamilyRoutes<F, S> {
  const built = specs();
  const routes = Object.entries(built).map(([id, spec]) => toDef(id as RouteId, spec));
  return Object.freeze({ family, specs: built, routes: Object.freeze(routes) });
}

const PRICE_ROUTES = defineFamily(
  'price',
  () =>
    ({
      'GET /v1/price/{code}': {
        family: 'price',
        price: 'PRICE',
        summary: 'Latest cash/fundamentals price observation',
        params: z.object({ code: InstrumentParam }),
        query: AsKnownAtOnly,
        output: S.ServedObservation,
        mcp: {
          tool: 'get_price',
          title: 'Latest price',
          description: 'Latest primary-source cash or fundamentals price observation of one instrument (EIA, FRED, World Bank).',
        },
      },
      'GET /v1/prices': {
        family: 'price',
        price: 'PRICES_BUNDLE',
        summary: 'Price bundle for several codes',
        params: none,
        query: z.object({ codes: BundleCodesQuery, ...AS_KNOWN_AT }),
        output: S.PricesBundleBody,
        mcp: {
          tool: 'get_prices',
          title: 'Price bundle',
          description: 'Latest price observations of up to 30 instruments in one call; codes without data are listed under missing.',
        },
      },
      'GET /v1/history/{code}': {
        family: 'price',
        price: 'HISTORY',
        summary: 'Series history, optionally resampled',
        params: z.object({ code: InstrumentParam }),
        query: HistoryQuery,
        output: S.HistoryBody,
        methods: AGGREGATION,
        mcp: {
          tool: 'get_history',
          title: 'Price history',
          description: 'History of one instrument over a date window, native or resampled weekly/monthly, paged, with a summary of the whole window.',
        },
      },
      'GET /v1/fx/{pair}': {
        family: 'price',
        price: 'FX',
        summary: 'FX pair for commodity context',
        params: z.object({ pair: FxPairParam }),
        query: AsKnownAtOnly,
        output: S.ServedObservation,
        mcp: {
          tool: 'get_fx',
          title: 'FX context',
          description: 'Latest FRED observation of an FX series for commodity context (EURUSD, USDCNY, broad trade-weighted dollar).',
        },
      },
    }) as const satisfies FamilySpecs<'price'>,
);
const CURVE_ROUTES = defineFamily(
  'curve',
  () =>
    ({
      'GET /v1/curve/{root}': {
        family: 'curve',
        price: 'CURVE',
        summary: 'Forward curve; stub when indicative futures are off',
        params: z.object({ root: FuturesRootParam }),
        query: anyQuery,
        output: S.CurveBody,
        freeWhen: stubWhileFuturesOff,
        mcp: {
          tool: 'get_curve',
          title: 'Forward curve',
          description: 'Indicative forward curve of a futures root from a licensed provider; a free explicit stub while indicative futures are off.',
        },
      },
      'GET /v1/spreads/calendar/{root}': {
        family: 'curve',
        price: 'CALENDAR',
        summary: 'Calendar spread; stub until licensed curves',
        params: z.object({ root: FuturesRootParam }),
        query: anyQuery,
        output: S.CalendarSpreadBody,
        freeWhen: stubWhileFuturesOff,
        mcp: {
          tool: 'get_calendar_spread',
          title: 'Calendar spread',
          description: 'Calendar spread of a futures root from a licensed curve; a free explicit stub while indicative futures are off.',
        },
      },
    }) as const satisfies FamilySpecs<'curve'>,
);
const INVENTORY_ROUTES = defineFamily(
  'inventory',
  () =>
    ({
      'GET /v1/inventory/eia': {
        family: 'inventory',
        price: 'INVENTORY_BUNDLE',
        summary: 'Weekly EIA inventories with 5-year comparison and surprise',
        params: none,
        query: ViewQuery,
        output: S.InventoryBundleView,
        methods: INVENTORY_METHOD,
        mcp: {
          tool: 'get_inventories',
          title: 'EIA weekly inventories',
          description:
            'Weekly US petroleum and natural gas inventories (EIA) with week-over-week change, 5-year comparison and surprise (compact numbers by default; view=full: every figure as an observation).',
        },
      },
      'GET /v1/inventory/eia/{series}': {
        family: 'inventory',
        price: 'INVENTORY_SERIES',
        summary: 'One weekly inventory series with recent history',
        params: z.object({ series: InventoryKeyParam }),
        query: ViewQuery,
        output: S.InventorySeriesView,
        methods: INVENTORY_METHOD,
        mcp: {
          tool: 'get_inventory_series',
          title: 'EIA inventory series',
          description:
            'One weekly EIA inventory series (crude, Cushing, gasoline, distillate, refinery utilisation, crude runs, gas storage) with recent weeks.',
        },
      },
    }) as const satisfies FamilySpecs<'inventory'>,
);
const COT_ROUTES = defineFamily(
  'cot',
  () =>
    ({
      'GET /v1/cot/{code}': {
        family: 'cot',
        price: 'COT',
        summary: 'Managed-money net positioning (CFTC disaggregated COT)',
        params: z.object({ code: CotCodeParam }),
        query: AsKnownAtOnly,
        output: S.CotBody,
        methods: COT_METHOD,
        mcp: {
          tool: 'get_cot',
          title: 'Managed-money positioning',
          description:
            'Managed-money net positioning of one instrument from the CFTC disaggregated Commitments of Traders report, with week-over-week change and 3-year range.',
        },
      },
    }) as const satisfies FamilySpecs<'cot'>,
);
const SPREADS_ROUTES = defineFamily('spreads', () => {
  const methods = Object.fromEntries(Object.values(SPREADS).map((s) => [s.id, `${s.formula} (${s.unit}). ${s.description}`]));
  return {
    'GET /v1/spreads/crack': {
      family: 'spreads',
      price: 'CRACK',
      summary: '3-2-1 crack spread, cash proxy',
      params: none,
      query: AsKnownAtOnly,
      output: S.SpreadBody,
      methods,
      mcp: {
        tool: 'get_crack_spread',
        title: '3-2-1 crack spread',
        description: '3-2-1 crack spread cash proxy (USD/bbl) from EIA spot gasoline, ULSD and WTI, with its legs.',
      },
    },
    'GET /v1/spreads/crush': {
      family: 'spreads',
      price: 'CRUSH',
      summary: 'Soy crush margin proxy',
      params: none,
      query: AsKnownAtOnly,
      output: S.SpreadBody,
      methods,
      mcp: {
        tool: 'get_crush_spread',
        title: 'Soy crush margin',
        description: 'Soybean crush margin proxy (USD/bu) from soybean meal, oil and soybean prices, with its legs.',
      },
    },
    'GET /v1/spreads/basis': {
      family: 'spreads',
      price: 'BASIS',
      summary: 'WTI-Brent basis spread',
      params: none,
      query: AsKnownAtOnly,
      output: S.SpreadBody,
      methods,
      mcp: { tool: 'get_basis_spread', title: 'WTI-Brent basis', description: 'WTI minus Brent spot spread (USD/bbl) on the same date, with its legs.' },
    },
  } as const satisfies FamilySpecs<'spreads'>;
});
const FUNDAMENTALS_ROUTES = defineFamily('fundamentals', () => {
  const commodity = z.extend(z.object({ commodity: z.optional(SlugParam) }), ViewQuery.shape);
  return {
    'GET /v1/fundamentals/wasde': {
      family: 'fundamentals',
      price: 'WASDE',
      summary: 'US supply-and-demand balance sheets (WASDE-shaped)',
      params: none,
      query: commodity,
      output: S.WasdeView,
      methods: WASDE_METHOD,
      mcp: {
        tool: 'get_wasde',
        title: 'WASDE balance sheets',
        description: 'US corn, soybean and wheat supply-and-demand balance sheets from the USDA WASDE report.',
      },
    },
    'GET /v1/fundamentals/crop-progress': {
      family: 'fundamentals',
      price: 'CROP_PROGRESS',
      summary: 'Crop progress by stage (condition from live runs only)',
      params: none,
      query: commodity,
      output: S.CropProgressView,
      methods: CROP_METHOD,
      mcp: {
        tool: 'get_crop_progress',
        title: 'Crop progress',
        description: 'Weekly US crop progress by stage from USDA NASS, and crop condition (percent good + excellent) where a live run has stored it.',
      },
    },
    'GET /v1/fundamentals/export-sales': {
      family: 'fundamentals',
      price: 'EXPORT_SALES',
      summary: 'Weekly export sales',
      params: none,
      query: commodity,
      output: S.ExportSalesView,
      methods: ESR_METHOD,
      mcp: { tool: 'get_export_sales', title: 'Export sales', description: 'Weekly US export sales from the USDA FAS Export Sales Reporting system.' },
    },
    'GET /v1/fundamentals/usgs': {
      family: 'fundamentals',
      price: 'USGS',
      summary: 'Annual mineral commodity summaries',
      params: none,
      query: commodity,
      output: S.UsgsView,
      methods: USGS_METHOD,
      mcp: {
        tool: 'get_mineral_summaries',
        title: 'USGS mineral summaries',
        description: 'Annual USGS Mineral Commodity Summaries figures (production, imports, net import reliance, prices).',
      },
    },
  } as const satisfies FamilySpecs<'fundamentals'>;
});
const SNAPSHOT_ROUTES = defineFamily(
  'snapshot',
  () =>
    ({
      'GET /v1/snapshot/{sector}': {
        family: 'snapshot',
        price: 'SNAPSHOT',
        summary: 'Sector snapshot',
        params: z.object({ sector: SectorParam }),
        query: ViewQuery,
        output: S.SnapshotView,
        mcp: {
          tool: 'get_sector_snapshot',
          title: 'Sector snapshot',
          description: 'Headline figures of one sector (energy, metals or ags): latest prices and the sector fundamentals.',
        },
      },
      'GET /v1/snapshot/all': {
        family: 'snapshot',
        price: 'SNAPSHOT_ALL',
        summary: 'All-sector snapshot bundle',
        params: none,
        query: ViewQuery,
        output: S.SnapshotAllView,
        mcp: { tool: 'get_all_snapshots', title: 'All-sector snapshot', description: 'Snapshots of every sector (energy, metals, ags) in one call.' },
      },
    }) as const satisfies FamilySpecs<'snapshot'>,
);
const DECISION_ROUTES = defineFamily('decision', () => {
  const methods = {
    ruleset: `${RULESET.version}: mechanical rules over published data; not investment advice`,
    ...Object.fromEntries(RULESET.rules.map((r) => [r.id, `${r.method}; ${r.fires} (${r.applies_to})`])),
    combination: RULESET.combination,
    digest: DIGEST_METHOD,
  };
  return {
    'GET /v1/decision/{sector}': {
      family: 'decision',
      price: 'DECISION',
      summary: 'Deterministic decision pack for one sector',
      params: z.object({ sector: SectorParam }),
      query: ViewQuery,
      output: S.DecisionView,
      methods,
      mcp: {
        tool: 'get_decision_pack',
        title: 'Sector decision pack',
        description: 'Deterministic, rule-based decision pack of one sector: signals with their inputs, rules version and inputs digest.',
      },
    },
    'GET /v1/decision/all': {
      family: 'decision',
      price: 'DECISION_ALL',
      summary: 'All-sector decision pack bundle',
      params: none,
      query: ViewQuery,
      output: S.DecisionAllView,
      methods,
      mcp: {
        tool: 'get_all_decision_packs',
        title: 'All-sector decision packs',
        description:
          'Deterministic decision packs of every sector in one call (compact: the rule evaluations each signal stands on; view=full: every evaluation).',
      },
    },
  } as const satisfies FamilySpecs<'decision'>;
});
// Free discovery routes.
const DISCOVERY_ROUTES = defineFamily(
  'discovery',
  () =>
    ({
      'GET /': { family: 'discovery', summary: 'Home page for people', params: none, query: anyQuery, output: text, mimeType: 'text/html' },
      'GET /health': {
        family: 'discovery',
        summary: 'Health and per-source staleness',
        params: none,
        query: anyQuery,
        output: S.HealthBody,
        mcp: {
          tool: 'get_health',
          title: 'Service health',
          description: 'Health of the service and the freshness of every source (last success, age, staleness, next release).',
        },
      },
      'GET /v1/catalog': {
        family: 'discovery',
        summary: 'Instrument catalog with live pricing_usd',
        params: none,
        query: anyQuery,
        output: S.CatalogBody,
        mcp: {
          tool: 'get_catalog',
          title: 'Catalog',
          description: 'Every instrument, inventory series and futures root with its unit, source, freshness and the price of each route.',
        },
      },
      'GET /v1/calendar': {
        family: 'discovery',
        summary: 'Release calendar of every source',
        params: none,
        query: anyQuery,
        output: S.CalendarBody,
        mcp: {
          tool: 'get_release_calendar',
          title: 'Release calendar',
          description: 'When each source publishes next (EIA, FRED, World Bank, CFTC, USDA, USGS), with its schedule and time zone.',
        },
      },
      'GET /llms.txt': { family: 'discovery', summary: 'Short agent briefing', params: none, query: anyQuery, output: text, mimeType: 'text/plain' },
      'GET /llms-full.txt': { family: 'discovery', summary: 'Full agent reference', params: none, query: anyQuery, output: text, mimeType: 'text/plain' },
      'GET /openapi.json': { family: 'discovery', summary: 'OpenAPI 3.1 description', params: none, query: anyQuery, output: S.OpenApiBody },
      'GET /SKILL.md': { family: 'discovery', summary: 'Agent skill manifest', params: none, query: anyQuery, output: text, mimeType: 'text/markdown' },
      'GET /.well-known/agent-card.json': {
        family: 'discovery',
        summary: 'A2A agent card (protocol 0.3.0)',
        params: none,
        query: anyQuery,
        output: S.AgentCardBody,
      },
      'GET /.well-known/agent.json': {
        family: 'discovery',
        summary: 'A2A agent card (the path of A2A before 0.3)',
        params: none,
        query: anyQuery,
        output: S.AgentCardBody,
      },
      'GET /.well-known/x402.json': { family: 'discovery', summary: 'Payment resource catalog', params: none, query: anyQuery, output: S.X402CatalogBody },
      'GET /.well-known/x402': {
        family: 'discovery',
        summary: 'Payment resource catalog (x402scan path)',
        params: none,
        query: anyQuery,
        output: S.X402CatalogBody,
      },
      'GET /terms.txt': { family: 'discovery', summary: 'Terms of use', params: none, query: anyQuery, output: text, mimeType: 'text/plain' },
      // Browsers ask for it on every page view; a 404 was a console error each time.
      'GET /favicon.ico': { family: 'discovery', summary: 'Site icon (SVG)', params: none, query: anyQuery, output: text, mimeType: 'image/svg+xml' },
    }) as const satisfies FamilySpecs<'discovery'>,
);
// MCP Streamable HTTP (stateless): each paid tool call is priced as its route.
const MCP_ROUTES = defineFamily('mcp', () => {
  /** MCP answers JSON-RPC 2.0 (the SDK's transport writes it); each tool's result is typed by its route's output. */
  const rpcMessage = z.looseObject({ jsonrpc: z.literal('2.0') });
  /** A 2026-07-28 subscriptions/listen is answered as a text/event-stream (acknowledged, then closed: nothing here changes). */
  const sseStream = z.string().check(z.startsWith('event: message\n'));
  const mcpRpc = z.union([rpcMessage, z.array(rpcMessage), sseStream]);
  return {
    'GET /api/mcp': {
      family: 'mcp',
      summary: 'List of MCP tool names (discovery)',
      params: none,
      query: anyQuery,
      output: S.McpToolListBody,
      answers: { 405: 'An event-stream GET: this MCP endpoint is stateless (Allow: POST).' },
    },
    'POST /api/mcp': {
      family: 'mcp',
      summary: 'MCP Streamable HTTP endpoint (JSON-RPC)',
      params: none,
      query: anyQuery,
      output: mcpRpc,
      usesCredits: true,
    },
    'DELETE /api/mcp': {
      family: 'mcp',
      summary: 'No MCP sessions to end: 405, Allow: POST',
      params: none,
      query: anyQuery,
      output: mcpRpc,
      answers: { 405: 'Always: a stateless MCP endpoint has no session to end (Allow: POST).' },
    },
    'GET /.well-known/mcp/server.json': { family: 'mcp', summary: 'MCP Registry server.json', params: none, query: anyQuery, output: S.McpServerJsonBody },
  } as const satisfies FamilySpecs<'mcp'>;
});
// Pro keys: plans page, card checkout (Stripe), its webhook and the page that shows a bought key once.
const PRO_ROUTES = defineFamily(
  'pro',
  () =>
    ({
      'GET /pro': { family: 'pro', summary: 'Pro plans and how to buy a key', params: none, query: anyQuery, output: text, mimeType: 'text/html' },
      'POST /pro/checkout': {
        family: 'pro',
        summary: 'Start a card checkout for a Pro plan (303 to Stripe Checkout)',
        params: none,
        query: anyQuery,
        output: S.CheckoutBody,
        usesCredits: true,
        answers: { 303: 'The checkout session: Location is its Stripe Checkout page (a browser form follows it); the body has the same URL.' },
      },
      'POST /pro/webhook': {
        family: 'pro',
        summary: 'Stripe webhook (signed): issues, renews and ends Pro keys',
        params: none,
        query: anyQuery,
        output: S.WebhookAckBody,
        usesCredits: true,
      },
      'GET /v1/payments/{id}': {
        family: 'pro',
        summary: 'Where an exact payment stands: pending (answered, settlement deferred), settled (its transaction), failed or unpaid',
        params: z.object({ id: PaymentIdParam }),
        query: anyQuery,
        output: PaymentStatusBody,
        usesCredits: true,
      },
      'GET /pro/success': {
        family: 'pro',
        summary: 'Shows a bought Pro key exactly once (without Stripe or a session id: a page that says so)',
        params: none,
        query: z.object({
          session_id: z.optional(z.string().check(z.regex(/^cs_[A-Za-z0-9_]{1,200}$/, 'a Stripe Checkout session id (cs_…)'))),
        }),
        output: text,
        mimeType: 'text/html',
        usesCredits: true,
        answers: { 202: 'Stripe has not confirmed this session yet: a page that says so; reload it in a few seconds.' },
      },
    }) as const satisfies FamilySpecs<'pro'>,
);

// Issue 37: webhook watches of Pro keys (shared/watches). Free routes; each delivery is charged.
const WATCHES_ROUTES = defineFamily('watches', () => {
  const unauthorized = 'INVALID_API_KEY: watches belong to Pro keys; send an active key in Authorization: Bearer.';
  const watchBase = { family: 'watches', query: anyQuery, usesCredits: true, proKey: true, answers: { 401: unauthorized } } as const;
  const byId = z.object({ id: W.WatchIdParam });
  return {
    'POST /v1/watches': {
      ...watchBase,
      summary: `Create a webhook watch on a paid GET path (Pro key; at most ${W.MAX_WATCHES_PER_KEY} per key)`,
      params: none,
      body: W.CreateWatchBody,
      output: W.WatchCreatedBody,
      answers: {
        401: unauthorized,
        201: 'The watch, with its Standard Webhooks signing secret (shown once). Each delivery is charged once, the route price in credits, when the receiver answers 2xx.',
        409: `WATCH_LIMIT: the key already holds ${W.MAX_WATCHES_PER_KEY} watches.`,
      },
    },
    'GET /v1/watches': { ...watchBase, summary: "The key's watches", params: none, output: W.WatchListBody },
    'GET /v1/watches/{id}': {
      ...watchBase,
      summary: 'One watch: state, reason, counters and its recent deliveries (dead letters included)',
      params: byId,
      output: W.WatchDetailBody,
    },
    'DELETE /v1/watches/{id}': { ...watchBase, summary: 'Delete a watch', params: byId, output: W.WatchDeletedBody },
  } as const satisfies FamilySpecs<'watches'>;
});

/** Every family's routes. A Lambda entry imports its own family's constant instead (see defineFamily). */
const FAMILY_ROUTES: { readonly [F in Family]: FamilyRoutes<F> } = {
  price: PRICE_ROUTES,
  curve: CURVE_ROUTES,
  inventory: INVENTORY_ROUTES,
  cot: COT_ROUTES,
  spreads: SPREADS_ROUTES,
  fundamentals: FUNDAMENTALS_ROUTES,
  snapshot: SNAPSHOT_ROUTES,
  decision: DECISION_ROUTES,
  discovery: DISCOVERY_ROUTES,
  mcp: MCP_ROUTES,
  pro: PRO_ROUTES,
  watches: WATCHES_ROUTES,
};

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
/** The whole table's entries, keyed by route id, with their literal types. */
type RouteSpecs = UnionToIntersection<
  (
    | typeof PRICE_ROUTES
    | typeof CURVE_ROUTES
    | typeof INVENTORY_ROUTES
    | typeof COT_ROUTES
    | typeof SPREADS_ROUTES
    | typeof FUNDAMENTALS_ROUTES
    | typeof SNAPSHOT_ROUTES
    | typeof DECISION_ROUTES
    | typeof DISCOVERY_ROUTES
    | typeof MCP_ROUTES
    | typeof PRO_ROUTES
    | typeof WATCHES_ROUTES
  )['specs']
>;
/** Literal route ids: `'GET /v1/price/{code}' | …`. */
type RouteId = keyof RouteSpecs;
/** Route ids served by one family's Lambda. */
type FamilyRouteId<F extends Family> = { [K in RouteId]: RouteSpecs[K]['family'] extends F ? K : never }[RouteId];
/** Path parameters of a route after its schema (normalised, e.g. upper-cased codes). */
type ParamsOf<Id extends RouteId> = z.output<RouteSpecs[Id]['params']>;
/** Query parameters of a route after its schema (defaults applied). */
type QueryOf<Id extends RouteId> = z.output<RouteSpecs[Id]['query']>;
/** Deeply readonly view: handlers may return frozen catalog data where the schema says "array". */
type DeepReadonly<T> = T extends (infer E)[] ? readonly DeepReadonly<E>[] : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;
/** The 200 body of a route, as its output schema describes it. */
type BodyOf<Id extends RouteId> = DeepReadonly<z.input<RouteSpecs[Id]['output']>>;

/** A route as the runtime sees it: the spec plus what follows from its id and price key. */
interface RouteDef extends Omit<RouteSpec, 'price' | 'mimeType'> {
  readonly id: RouteId;
  readonly method: Method;
  readonly path: string;
  readonly priceKey: PriceKey | null;
  /** USD per call as a decimal string, or null for free routes. */
  readonly priceUsd: string | null;
  readonly mimeType: MimeType;
}

// The derived lists are built in calls marked pure, so a family's bundle, which reads none of them, drops them.
/** Every route: the paid ones in SPEC.md order (the order of PRICES_USD), then the free ones by family. */
const ROUTES: readonly RouteDef[] = /* @__PURE__ */ (() => {
  const all = FAMILIES.flatMap((f) => FAMILY_ROUTES[f].routes);
  const specOrder = Object.keys(PRICES_USD);
  const paid = all.filter((r) => r.priceKey !== null).sort((a, b) => specOrder.indexOf(a.priceKey!) - specOrder.indexOf(b.priceKey!));
  return Object.freeze([...paid, ...all.filter((r) => r.priceKey === null)]);
})();

/** Routes with a list price (the curve stubs included: they are free only under freeWhen). */
const PAID_ROUTES = /* @__PURE__ */ (() => ROUTES.filter((r) => r.priceKey !== null))();
/** The free discovery routes (documents, health, catalog, calendar). */
const FREE_ROUTES = /* @__PURE__ */ (() => ROUTES.filter((r) => r.family === 'discovery'))();

/** Routes served by one family's Lambda. */
const routesOf = (family: Family): readonly RouteDef[] => FAMILY_ROUTES[family].routes;

const BY_ID: ReadonlyMap<string, RouteDef> = /* @__PURE__ */ (() => new Map(ROUTES.map((r) => [r.id, r])))();
const findRoute = (id: string): RouteDef | undefined => BY_ID.get(id);

/**
 * Whether a call of the route costs money under this configuration: the one place that says so
 * (payment, discovery documents, MCP and CDK all ask it).
 * @example isChargeable(findRoute('GET /v1/curve/{root}')!, config) // false unless INDICATIVE_FUTURES
 */
const isChargeable = (route: Pick<RouteDef, 'priceKey' | 'freeWhen'>, config: Pick<Config, 'INDICATIVE_FUTURES'>): boolean =>
  route.priceKey !== null && !route.freeWhen?.(config);

export { FAMILIES, ROUTES, PAID_ROUTES, FREE_ROUTES, FAMILY_ROUTES, routesOf, findRoute, isChargeable };
export {
  PRICE_ROUTES,
  CURVE_ROUTES,
  INVENTORY_ROUTES,
  COT_ROUTES,
  SPREADS_ROUTES,
  FUNDAMENTALS_ROUTES,
  SNAPSHOT_ROUTES,
  DECISION_ROUTES,
  DISCOVERY_ROUTES,
  MCP_ROUTES,
  PRO_ROUTES,
  WATCHES_ROUTES,
};
export type { Family, FamilyRoutes, Method, MimeType, McpSpec, RouteId, RouteDef, RouteSpec, FamilyRouteId, ParamsOf, QueryOf, BodyOf };
