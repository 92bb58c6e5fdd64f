/**
 * The exact lane's refusals: each says what is known about the money (nothing charged, or pending)
 * and, where the buyer may pay again, carries a fresh challenge.
 */
import { PaymentError, ServiceUnavailableError, type HttpError } from '../../errors/errors';
import { FacilitatorUnavailableError, SettlementPendingError } from '../errors';
import type { ChargeOutcome, PaidCall, PaymentDeps, Refusal, SettleOutcome } from '../lane';
import type { PaymentRefusal } from '../payload';
import { paymentRequiredFor } from '../payment-required';
import { settlementOf, type ExactGrant } from './grant';

/** When a retry of a pending settlement may succeed: the reconciler runs every minute (api-stack). */
const PENDING_RETRY_AFTER_S = 60;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Runs a ledger write whose failure must not change what the payer gets (the claim stays watched). */
const bestEffort = async (deps: PaymentDeps, what: string, fn: () => Promise<unknown>, extra: Record<string, unknown>): Promise<void> => {
  try {
    await fn();
  } catch (err) {
    deps.log.error(`payment ledger: ${what} failed`, { ...extra, error: message(err) });
  }
};

/** A refusal that carries a fresh challenge (error = the reason), so a client can pay again correctly. */
const invalidPayment = async (call: PaidCall, deps: PaymentDeps, refusal: Omit<PaymentRefusal, 'ok'>): Promise<ChargeOutcome> => ({
  type: 'refused',
  refusal: {
    error: new PaymentError('INVALID_PAYMENT', refusal.message, { reason: refusal.reason, ...refusal.details }),
    required: await paymentRequiredFor(call, deps, refusal.reason),
  },
});

const refused = (error: HttpError, extra: Omit<Refusal, 'error'> = {}): ChargeOutcome => ({ type: 'refused', refusal: { error, ...extra } });

/** A store failure is a retryable 503, not a payment verdict. */
const ledgerUnavailable = (): HttpError =>
  new ServiceUnavailableError('PAYMENT_LEDGER_UNAVAILABLE', 'the payment ledger is unavailable; nothing was charged, retry shortly');

/** 504: maybe submitted, outcome unknown; the same header is retried once reconciliation has run. */
const pending = (transaction: string): HttpError =>
  new SettlementPendingError('the settlement of this payment is not confirmed yet; retry the same request with the same payment header later', {
    reason: 'settlement_pending',
    transaction: transaction || null,
    retry_after_seconds: PENDING_RETRY_AFTER_S,
  });

const facilitatorDown = (timeout: boolean): HttpError =>
  new FacilitatorUnavailableError(
    timeout
      ? 'the payment facilitator did not answer in time; nothing was charged, retry shortly'
      : 'the payment facilitator is unavailable; nothing was charged, retry shortly',
    { reason: timeout ? 'facilitator_timeout' : 'facilitator_unavailable' },
  );

/** The settlement write failed or lost its claim: the money may have moved, so no data now; retry later. */
const pendingOutcome = (g: ExactGrant, transaction: string): SettleOutcome => ({
  type: 'refused',
  refusal: { error: pending(transaction), settlement: settlementOf(g, transaction, false) },
});

export { bestEffort, facilitatorDown, invalidPayment, ledgerUnavailable, message, pending, pendingOutcome, refused };
