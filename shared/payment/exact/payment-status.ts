/**
 * GET /v1/payments/{id} (free): where an exact payment stands, for a buyer whose answer said its
 * settlement is pending (PAYMENT-RESPONSE extra.status). The id is `<payer>-<nonce>` (deferral.ts),
 * so the claim is one consistent read; nothing else of the payer is shown.
 *
 *   pending   answered, the settlement not on chain yet (DEFERRED; PENDING; a call in progress)
 *   settled   on chain: `transaction` names it
 *   failed    not settled and never will be (a deferred settlement refused: booked as a loss)
 *   unpaid    the authorization was not used (refused, released, expired unused): nothing moved
 */
import type * as z from '../../zod';
import { NotFoundError } from '../../errors/errors';
import type { ClaimRecord, PaymentLedger } from '../ledger';
import type { PaymentStatusBody } from '../../schemas/payment-status';

type PaymentStatus = z.infer<typeof PaymentStatusBody>;

const statusOf = (state: ClaimRecord['state']): PaymentStatus['status'] => {
  switch (state) {
    case 'SETTLED':
      return 'settled';
    case 'DEFERRED':
    case 'PENDING':
    case 'CLAIMED':
      return 'pending';
    case 'DEFERRED_LOSS':
      return 'failed';
    default:
      return 'unpaid';
  }
};

/**
 * The status of one payment.
 * @param id a validated PaymentIdParam
 * @throws NotFoundError when no payment has this id
 */
const paymentStatus = async (ledger: Pick<PaymentLedger, 'get'>, id: string): Promise<PaymentStatus> => {
  const [payer, nonce] = id.split('-') as [string, string];
  const rec = await ledger.get({ payer, nonce });
  if (!rec) throw new NotFoundError('NOT_FOUND', 'no payment with this id', { id });
  const status = statusOf(rec.state);
  return {
    id,
    status,
    payer: rec.payer,
    route: rec.route,
    amount: rec.amount,
    network: rec.network,
    transaction: status === 'settled' ? (rec.transaction ?? null) : null,
    settled_at: status === 'settled' ? (rec.settledAt ?? null) : null,
  };
};

export { paymentStatus };
export type { PaymentStatus };
