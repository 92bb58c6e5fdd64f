/**
 * The x402 payment requirements of a call, as every refusal that asks to pay (again) states them:
 * the option of every lane of the registry that offers one now (the spec's `exact` option first,
 * `batch-settlement` when the facilitator supports it), each signed by the service when it has a
 * receipt signer (offer-receipt: a buyer can prove what it was offered).
 */
import { buildPaymentRequired, type PaymentRequiredBody } from './challenge';
import type { PaidCall, PaymentDeps } from './lane';
import { offersFor } from './lanes';
import { withSignedOffers } from './receipts';

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
  return deps.receipts ? withSignedOffers(deps.receipts, required) : required;
};

export { paymentRequiredFor };
