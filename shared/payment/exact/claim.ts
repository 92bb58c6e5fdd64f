/**
 * A proof that is already claimed: data still owed (paid on chain, never answered), a settlement
 * still pending or in progress, or a replay. A CLAIMED proof is never taken over: its holder may
 * have reached /settle.
 */
import { PaymentIdConflictError, PaymentInProgressError } from '../errors';
import type { ChargeOutcome, PaidCall, PaymentDeps } from '../lane';
import { CLAIM_LIFETIME_MS, type ClaimRecord } from '../ledger';
import type { PaymentRefusal } from '../payload';
import { settlementOf, type ExactGrant } from './grant';
import { invalidPayment, ledgerUnavailable, message, pending, refused } from './refusals';

/** A proof that is already claimed: data still owed, a settlement still pending, or a replay. */
const onClaimConflict = async (
  existing: ClaimRecord | null,
  grant: ExactGrant,
  call: PaidCall,
  deps: PaymentDeps,
  idempotentRetry: boolean,
  signature: () => PaymentRefusal | null,
): Promise<ChargeOutcome> => {
  if (existing && existing.path !== grant.path) {
    // Bound to what it was first presented for, whatever the payload names (v1 payloads name nothing).
    return invalidPayment(call, deps, {
      reason: 'proof_bound_to_other_resource',
      message: 'this payment authorization was presented for another resource first; sign a new one for this one',
    });
  }
  if (existing?.state === 'SETTLED' && existing.delivered === false) {
    // These data leave without a /verify: a payload that merely names the payer and nonce takes nothing.
    const forged = signature();
    if (forged) return invalidPayment(call, deps, forged);
    let taken: boolean;
    try {
      taken = await deps.ledger.takeDelivery(grant.key, call.callId);
    } catch (err) {
      deps.log.error('payment ledger: take delivery failed', { requestId: call.requestId, error: message(err) });
      return refused(ledgerUnavailable());
    }
    // Paid on chain (found by reconciliation) but never answered: this retry gets the data.
    if (taken) {
      const redeliver: ExactGrant = { ...grant, mode: 'redeliver', transaction: existing.transaction ?? '' };
      return { type: 'granted', grant: redeliver };
    }
  }
  const fresh = existing !== null && Date.parse(existing.updatedAt) > deps.now().getTime() - CLAIM_LIFETIME_MS;
  // Held by a call that may still be running: its outcome decides. Never "sign anew": the money may be moving.
  if (existing?.state === 'CLAIMED' && fresh) {
    return refused(
      new PaymentInProgressError(
        idempotentRetry
          ? 'this payment is being settled by an earlier request with the same payment id; retry shortly for its answer'
          : 'this payment is being settled by another request; retry the same request shortly',
        { reason: 'payment_in_progress' },
      ),
    );
  }
  // Maybe submitted, no outcome recorded: reconciliation settles it from the chain, and the same
  // header then gets the data if it is owed.
  if (existing?.state === 'PENDING' || existing?.state === 'CLAIMED') {
    return refused(pending(existing.transaction ?? ''), { settlement: { ...settlementOf(grant, existing.transaction ?? '', false) } });
  }
  if (existing?.state === 'SETTLED' && existing.delivered === true && idempotentRetry) {
    // Delivered, but its answer was not kept (larger than an item, or its write failed): not replayable.
    return refused(
      new PaymentIdConflictError('this payment was delivered and its answer cannot be replayed; pay again with a new payment id', {
        reason: 'answer_not_kept',
      }),
    );
  }
  if (existing?.state === 'UNPAID') {
    return invalidPayment(call, deps, { reason: 'authorization_expired', message: 'this authorization expired unused; nothing was charged, sign a new one' });
  }
  return invalidPayment(call, deps, {
    reason: 'nonce_already_used',
    message: 'this payment authorization was already used; sign a new one',
    details: { state: existing?.state ?? 'unknown' },
  });
};

export { onClaimConflict };
