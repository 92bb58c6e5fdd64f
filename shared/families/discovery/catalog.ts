/**
 * The catalog body: every instrument, whether it is live, and what each of its routes costs,
 * generated from the catalog and the route table.
 */
import { CASH_PROXY_NOTES, INSTRUMENTS, NOT_LIVE, FX_PAIRS, FUTURES_ROOTS } from '../../catalog/instruments';
import { COT_INSTRUMENTS } from '../../catalog/cot-markets';
import { INVENTORY_SERIES } from '../../catalog/inventory';
import type { Config } from '../../config';
import type { FundamentalsCoverage } from '../fundamentals/load';
import { PAID_ROUTES, isChargeable, usdToAtomic, usdToCredits, type RouteDef } from '../../routes';

/** Paid routes whose path takes an instrument code. */
const CODE_ROUTES = PAID_ROUTES.filter((r) => r.path.includes('{code}'));

const priceOf = (r: RouteDef) => ({
  price_usd: r.priceUsd,
  price_credits: usdToCredits(r.priceUsd!),
  price_usdc_atomic: usdToAtomic(r.priceUsd!),
});

const COT_ROUTE = 'GET /v1/cot/{code}';

/**
 * The paid routes that serve an instrument: price and history for live codes, FX for pairs, and
 * COT wherever the CFTC reports a market, live price or not (palladium's positioning is served).
 */
const routesServing = (code: string, live: boolean): RouteDef[] => [
  ...(live ? CODE_ROUTES.filter((r) => r.id !== COT_ROUTE) : []),
  ...(COT_INSTRUMENTS.includes(code) ? CODE_ROUTES.filter((r) => r.id === COT_ROUTE) : []),
  ...(live && FX_PAIRS.includes(code) ? PAID_ROUTES.filter((r) => r.path.includes('{pair}')) : []),
];

/** What a fundamentals route covers, said in words (the 404 NO_DATA hint points here). */
const coverageNote = (c: FundamentalsCoverage[number]): string => {
  const uncovered = c.commodities.filter((x) => !c.covered.includes(x));
  if (uncovered.length === 0) return `every commodity is stored (${c.data ?? 'no run yet'})`;
  if (c.data === 'replay') {
    return `the bundled samples hold real figures for ${c.covered.join(', ') || 'none'} only; ${uncovered.join(', ')} answer 404 NO_DATA until a live run of ${c.source}`;
  }
  return `nothing stored yet for ${uncovered.join(', ')} (503 NO_DATA until a release of ${c.source} is ingested)`;
};

/**
 * Pure: the catalog document (routes say whether they are charged under this configuration).
 * @param latest the latest stored as_of per live code (null: nothing stored yet)
 * @param staleSources ids of the sources /health reports stale
 * @param fundamentals per fundamentals route, the commodities served and those the stored data covers
 */
const buildCatalog = (
  config: Config,
  latest: ReadonlyMap<string, string | null> = new Map(),
  staleSources: ReadonlySet<string> = new Set(),
  fundamentals: FundamentalsCoverage = [],
) => ({
  instruments: INSTRUMENTS.map((i) => ({
    code: i.code,
    meaning: i.meaning,
    sector: i.sector,
    unit: i.unit,
    freshness_class: i.freshness,
    live: i.sourceId !== null,
    not_live_reason: NOT_LIVE[i.code] ?? null,
    cash_proxy_note: CASH_PROXY_NOTES[i.code] ?? null,
    source: i.sourceId,
    futures_root: i.futuresRoot,
    latest_as_of: latest.get(i.code) ?? null,
    stale: i.sourceId ? staleSources.has(i.sourceId) : null,
    pricing_usd: Object.fromEntries(routesServing(i.code, i.sourceId !== null).map((r) => [r.id, r.priceUsd])),
  })),
  inventory_series: INVENTORY_SERIES.map((s) => ({ key: s.key, series_id: s.seriesId, unit: s.unit, meaning: s.meaning })),
  fundamentals: fundamentals.map((c) => ({ ...c, note: coverageNote(c) })),
  futures_roots: FUTURES_ROOTS,
  routes: PAID_ROUTES.map((r) => ({ id: r.id, price_key: r.priceKey, summary: r.summary, ...priceOf(r), charged: isChargeable(r, config) })),
  payment: {
    lanes: ['x402 (USDC, per call)', 'Pro key (Authorization: Bearer, 1 credit = 0.01 USD)'],
    credit_usd: '0.01',
  },
});

export { buildCatalog };
