/**
 * /.well-known/x402.json: every chargeable route with the payment option its 402 challenge
 * offers, built by the payment module's own `paymentOption`, so the two cannot disagree.
 */
import type { Config } from '../../config';
import { paymentOption } from '../../payment';
import { PAID_ROUTES, isChargeable } from '../../routes';

/** Pure: the payment resource catalog for a configuration and public base URL. */
const buildX402Catalog = (config: Config, baseUrl: string) => ({
  x402Version: 2,
  enforced: config.X402_ENFORCE,
  resources: PAID_ROUTES.filter((r) => isChargeable(r, config)).map((r) => ({
    method: r.method,
    url: `${baseUrl}${r.path}`,
    price_usd: r.priceUsd,
    accepts: [paymentOption(r, r.path, config)],
  })),
  free_while_stubbed: PAID_ROUTES.filter((r) => !isChargeable(r, config)).map((r) => r.id),
});

export { buildX402Catalog };
