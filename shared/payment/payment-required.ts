/**
 * The x402 payment requirements of a call, as every refusal that asks to pay (again) states them:
 * the option of every lane of the registry that offers one now (the spec's `exact` option first,
 * `batch-settlement` when the facilitator supports it), each signed by the service when it has a
 * receipt signer (offer-receipt: a buyer can prove what it was offered).
 */
import { buildPaymentRequired, type PaymentRequiredBody } from './challenge';
import type { PaidCall, PaymentDeps } from './lane';
import { offersFor } from './lane-offers';
import { type ReceiptSigner, withSignedOffers } from './receipts';

/**
 * Signed challenges, reused for a minute per signer: an offer stays valid for 300 s, so each one
 * served still has four minutes (a payment's own timeout is 60 s), and most 402s cost no signature.
 */
const SIGNED = new WeakMap<ReceiptSigner, WeakMap<PaymentRequiredBody, { doc: PaymentRequiredBody; until: number }>>();
const RESIGN_AFTER_MS = 60_000;

/** @param now the package stamps offers with the wall clock, so this is the wall clock too */
const signedChallenge = async (signer: ReceiptSigner, required: PaymentRequiredBody, now = Date.now()): Promise<PaymentRequiredBody> => {
  let bySigner = SIGNED.get(signer);
  if (!bySigner) {
    bySigner = new WeakMap();
    SIGNED.set(signer, bySigner);
  }
  const hit = bySigner.get(required);
  if (hit && hit.until > now) return hit.doc;
  const doc = await withSignedOffers(signer, required);
  bySigner.set(required, { doc, until: now + RESIGN_AFTER_MS });
  return doc;
};

/**
 * @param error PAYMENT_REQUIRED, or the reason a presented payment was refused
 * @example const required = await paymentRequiredFor(call, deps, 'nonce_already_used');
 */
const paymentRequiredFor = async (
  call: Pick<PaidCall, 'route' | 'resource'>,
  deps: Pick<PaymentDeps, 'config' | 'facilitator' | 'now' | 'lanes' | 'receipts'>,
  error = 'PAYMENT_REQUIRED',
): Promise<PaymentRequiredBody> => {
  const required = buildPaymentRequired(
    call.route,
    call.resource.path,
    call.resource.url,
    deps.config,
    error,
    await offersFor(call.route, call.resource.path, deps),
  );
  // Every option offered under the service's signature (offer-receipt), on every 402 of either transport.
  return deps.receipts ? signedChallenge(deps.receipts, required) : required;
};

export { paymentRequiredFor };
