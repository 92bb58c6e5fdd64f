/**
 * /.well-known/x402.json (the spec's path) and /.well-known/x402 (what x402scan reads): every
 * chargeable route with the payment options its 402 challenge offers, taken from the payment lane
 * registry (shared/payment/lanes.ts `offersFor`, as the 402 is: the two cannot disagree), and its
 * input and output schemas.
 */
import * as z from '../../zod';
import type { Config } from '../../config';
import type { LaneOption } from '../../payment/lane-offers';
import type { ReceiptSigner } from '../../payment/receipts';
import { isChargeable, PAID_ROUTES, type RouteDef } from '../../routes/table';
import { typicalBodyKb } from '../../routes/body-sizes';
import { usdToAtomic } from '../../routes/pricing';
import { deferralTerms } from '../../payment/exact/deferral';

const jsonSchema = (schema: z.core.$ZodType, io: 'input' | 'output') => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
};

/**
 * Who signs this service's offers and receipts (offer-receipt): the current key's kid (a did:jwk, the
 * public key itself) and the kids of keys rotated out, whose receipts stay attributable. Null: unsigned.
 */
const receiptSigningOf = (signer: ReceiptSigner | undefined, previousKids: readonly string[]) =>
  signer ? { format: signer.published.format, kid: signer.published.kid, previous_kids: [...previousKids] } : null;

/** Pure: the payment resource catalog for a configuration, public base URL and the options the lanes offer per route. */
const buildX402Catalog = (
  config: Config,
  baseUrl: string,
  offersOf: (route: RouteDef) => readonly LaneOption[],
  signing: { signer?: ReceiptSigner; previousKids?: readonly string[] } = {},
) => ({
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
    accepts: offersOf(r),
    input: { path: jsonSchema(r.params, 'input'), query: jsonSchema(r.query, 'input') },
    output: jsonSchema(r.output, 'output'),
  })),
  free_while_stubbed: PAID_ROUTES.filter((r) => !isChargeable(r, config)).map((r) => r.id),
  exact_settlement: deferralTerms(
    config,
    PAID_ROUTES.filter((r) => isChargeable(r, config)),
  ),
  receipt_signing: receiptSigningOf(signing.signer, signing.previousKids ?? []),
});

export { buildX402Catalog };
