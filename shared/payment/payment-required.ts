/**
 * The x402 payment requirements of a call, as every refusal that asks to pay (again) states them:
 * the option of every lane of the registry that offers one now (the spec's `exact` option first,
 * `batch-settlement` when the facilitator supports it).
 */
import { buildPaymentRequired, type PaymentRequiredBody } from './challenge';
import type { PaidCall, PaymentDeps } from './lane';
import { offersFor } from './lanes';

/**
 * @param error PAYMENT_REQUIRED, or the reason a presented payment was refused
 * @example const required = await paymentRequiredFor(call, deps, 'nonce_already_used');
 */
const paymentRequiredFor = async (
  call: Pick<PaidCall, 'route' | 'resource'>,
  deps: Pick<PaymentDeps, 'config' | 'facilitator' | 'now' | 'lanes'>,
  error = 'PAYMENT_REQUIRED',
): Promise<PaymentRequiredBody> =>
  buildPaymentRequired(call.route, call.resource.path, call.resource.url, deps.config, error, await offersFor(call.route, call.resource.path, deps));

export { paymentRequiredFor };
