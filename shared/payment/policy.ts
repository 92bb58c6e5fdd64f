/**
 * Which routes are charged. One rule, one place: the payment core, the discovery documents and
 * the tests all ask this function.
 */
import type { Config } from '../config';
import type { PriceKey } from '../routes/pricing';
import type { RouteDef } from '../routes/table';

/**
 * Routes that are free explicit stubs while indicative futures are off (SPEC.md: the forward
 * curve and the calendar spread): no challenge, nothing charged.
 */
const INDICATIVE_FUTURES_PRICE_KEYS: ReadonlySet<PriceKey> = new Set<PriceKey>(['CURVE', 'CALENDAR']);

/**
 * Whether a call of the route costs money under this configuration.
 * @param route the matched route
 * @param config needs INDICATIVE_FUTURES
 * @returns false for free discovery routes and for the curve/calendar stubs while INDICATIVE_FUTURES is off
 * @example isChargeable(findRoute('GET /v1/curve/{root}')!, config) // false unless INDICATIVE_FUTURES
 */
const isChargeable = (route: Pick<RouteDef, 'priceKey' | 'priceUsd'>, config: Pick<Config, 'INDICATIVE_FUTURES'>): boolean => {
  if (route.priceKey === null || route.priceUsd === null) return false;
  if (INDICATIVE_FUTURES_PRICE_KEYS.has(route.priceKey) && !config.INDICATIVE_FUTURES) return false;
  return true;
};

export { isChargeable, INDICATIVE_FUTURES_PRICE_KEYS };
