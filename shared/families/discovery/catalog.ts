/**
 * The catalog body: every instrument, whether it is live, and what each of its routes costs,
 * generated from the catalog and the route table.
 */
import { CASH_PROXY_NOTES, INSTRUMENTS, NOT_LIVE, FX_PAIRS, FUTURES_ROOTS } from '../../catalog/instruments';
import { COT_INSTRUMENTS } from '../../catalog/cot-markets';
import { INVENTORY_SERIES } from '../../catalog/inventory';
import type { Config } from '../../config';
import { PAID_ROUTES, isChargeable, usdToAtomic, usdToCredits, type RouteDef } from '../../routes';

/** Paid routes whose path takes an instrument code. */
const CODE_ROUTES = PAID_ROUTES.filter((r) => r.path.includes('{code}'));

const priceOf = (r: RouteDef) => ({
  price_usd: r.priceUsd,
  price_credits: usdToCredits(r.priceUsd!),
  price_usdc_atomic: usdToAtomic(r.priceUsd!),
});

/** The paid routes that serve an instrument: price and history for live codes, COT where the CFTC reports one, FX for pairs. */
const routesServing = (code: string, live: boolean): RouteDef[] =>
  live
    ? [
        ...CODE_ROUTES.filter((r) => r.id !== 'GET /v1/cot/{code}' || COT_INSTRUMENTS.includes(code)),
        ...(FX_PAIRS.includes(code) ? PAID_ROUTES.filter((r) => r.path.includes('{pair}')) : []),
      ]
    : [];

/**
 * Pure: the catalog document (routes say whether they are charged under this configuration).
 * @param latest the latest stored as_of per live code (null: nothing stored yet)
 * @param staleSources ids of the sources /health reports stale
 */
const buildCatalog = (config: Config, latest: ReadonlyMap<string, string | null> = new Map(), staleSources: ReadonlySet<string> = new Set()) => ({
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
  futures_roots: FUTURES_ROOTS,
  routes: PAID_ROUTES.map((r) => ({ id: r.id, price_key: r.priceKey, summary: r.summary, ...priceOf(r), charged: isChargeable(r, config) })),
  payment: {
    lanes: ['x402 (USDC, per call)', 'Pro key (Authorization: Bearer, 1 credit = 0.01 USD)'],
    credit_usd: '0.01',
  },
});

export { buildCatalog };
