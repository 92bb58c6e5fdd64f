/**
 * The catalog body: every instrument, whether it is live, and what each of its routes costs,
 * generated from the catalog and the route table.
 */
import { INSTRUMENTS, NOT_LIVE, FX_PAIRS, FUTURES_ROOTS } from '../../catalog/instruments';
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

/** Pure: the catalog document (routes say whether they are charged under this configuration). */
const buildCatalog = (config: Config) => ({
  instruments: INSTRUMENTS.map((i) => ({
    code: i.code,
    meaning: i.meaning,
    sector: i.sector,
    unit: i.unit,
    freshness_class: i.freshness,
    live: i.sourceId !== null,
    not_live_reason: NOT_LIVE[i.code] ?? null,
    source: i.sourceId,
    futures_root: i.futuresRoot,
    pricing_usd: Object.fromEntries(
      [...CODE_ROUTES, ...(FX_PAIRS.includes(i.code) ? PAID_ROUTES.filter((r) => r.path.includes('{pair}')) : [])].map((r) => [r.id, r.priceUsd]),
    ),
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
