/**
 * The x402 payment requirements of a call, as every refusal that asks to pay (again) states them:
 * the spec's `exact` option, and the `batch-settlement` option when the facilitator offers it.
 */
import { termsOf } from './batch/config';
import { batchLaneConfigForChallenge } from './batch-terms';
import { buildPaymentRequired, type PaymentRequiredBody } from './challenge';
import type { PaidCall, PaymentDeps } from './lane';

/**
 * @param error PAYMENT_REQUIRED, or the reason a presented payment was refused
 * @example const required = await paymentRequiredFor(call, deps, 'nonce_already_used');
 */
const paymentRequiredFor = async (
  call: Pick<PaidCall, 'route' | 'resource'>,
  deps: Pick<PaymentDeps, 'config' | 'facilitator' | 'now'>,
  error = 'PAYMENT_REQUIRED',
): Promise<PaymentRequiredBody> => {
  const batch = await batchLaneConfigForChallenge(deps.facilitator, deps.config, deps.now);
  return buildPaymentRequired(call.route, call.resource.path, call.resource.url, deps.config, error, batch ? termsOf(batch) : undefined);
};

export { paymentRequiredFor };
