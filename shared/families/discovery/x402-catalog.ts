/**
 * /.well-known/x402.json (the spec's path) and /.well-known/x402 (what x402scan reads): every
 * chargeable route with the payment options its 402 challenge offers, built by the payment
 * module's own `paymentOption` and `batchOption` (so the two cannot disagree), and its input and
 * output schemas. The batch-settlement option is listed when the facilitator offers the scheme.
 */
import * as z from 'zod';
import type { Config } from '../../config';
import { batchOption, paymentOption, type BatchTerms } from '../../payment/challenge';
import { isChargeable, PAID_ROUTES } from '../../routes/table';
import { typicalBodyKb } from '../../routes/body-sizes';
import { usdToAtomic } from '../../routes/pricing';
import { deferralTerms } from '../../payment/exact/deferral';

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
};

/** Pure: the payment resource catalog for a configuration, public base URL and batch terms (if offered). */
const buildX402Catalog = (config: Config, baseUrl: string, batch?: BatchTerms) => ({
  x402Version: 2,
  enforced: config.X402_ENFORCE,
  resources: PAID_ROUTES.filter((r) => isChargeable(r, config)).map((r) => ({
    method: r.method,
    url: `${baseUrl}${r.path}`,
    route: r.id,
    description: r.mcp?.description ?? r.summary,
    mimeType: r.mimeType,
    price_usd: r.priceUsd!,
    price_atomic: usdToAtomic(r.priceUsd!),
    typical_body_kb: typicalBodyKb(r.id),
    accepts: [paymentOption(r, r.path, config), ...(batch ? [batchOption(r, r.path, config, batch)] : [])],
    input: { path: jsonSchema(r.params, 'input'), query: jsonSchema(r.query, 'input') },
    output: jsonSchema(r.output, 'output'),
  })),
  free_while_stubbed: PAID_ROUTES.filter((r) => !isChargeable(r, config)).map((r) => r.id),
  exact_settlement: deferralTerms(
    config,
    PAID_ROUTES.filter((r) => isChargeable(r, config)),
  ),
});

export { buildX402Catalog };
