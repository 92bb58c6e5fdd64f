/**
 * Payment errors that are not "pay me" (those are PaymentError 402s): the facilitator failed,
 * or a settlement's outcome is not known yet. They map to DESIGN.md's error body like every
 * other HttpError; nothing is served with them.
 */
import { BadGatewayError, GatewayTimeoutError, HttpError, ServiceUnavailableError } from '../errors/errors';

/** The facilitator could not be reached, answered nonsense, or timed out: nothing was charged. */
class FacilitatorUnavailableError extends BadGatewayError {
  override readonly code = 'FACILITATOR_UNAVAILABLE';
}

/**
 * A settlement was submitted but its outcome is unknown (facilitator timed out or reported
 * `settlement_pending`). The payment is recorded as pending, never as unpaid; the same payment
 * header can be retried later and is served once the settlement is confirmed.
 */
class SettlementPendingError extends GatewayTimeoutError {
  override readonly code = 'SETTLEMENT_PENDING';
  /** The reconciler runs every minute (infra/stacks/api-stack.ts). */
  override readonly headers = { 'retry-after': '60' };
}

/**
 * 503, retryable: the store did not acknowledge the write that charges the call, so it may have
 * been charged. Never "nothing was charged": the same request (the same voucher) sent again gets
 * the data it paid for, or is charged once if the write never landed.
 */
class PaymentOutcomeUnknownError extends ServiceUnavailableError {
  override readonly headers = { 'retry-after': '2' };
  constructor(message: string) {
    super('STORE_UNAVAILABLE', message, { reason: 'payment_outcome_unknown', charged: 'unknown', retry: 'send the same request again' });
  }
}

/** 409: a payment id (x402 `payment-identifier`) already names another payment or another resource. */
class PaymentIdConflictError extends HttpError {
  readonly statusCode = 409;
  readonly code = 'PAYMENT_ID_CONFLICT';
}

/** 409, retryable: another request holds this payment and is settling it; a retry of the same request gets the outcome. */
class PaymentInProgressError extends HttpError {
  readonly statusCode = 409;
  readonly code = 'PAYMENT_IN_PROGRESS';
  override readonly retryable = true;
  override readonly headers = { 'retry-after': '2' };
}

export { FacilitatorUnavailableError, PaymentOutcomeUnknownError, SettlementPendingError, PaymentIdConflictError, PaymentInProgressError };
