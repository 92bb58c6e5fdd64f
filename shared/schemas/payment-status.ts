/** The body of GET /v1/payments/{id} (shared/payment/exact/payment-status.ts): where an exact payment stands. */
import * as z from '../zod';

const PaymentStatusBody = z.strictObject({
  id: z.string(),
  status: z.enum(['pending', 'settled', 'failed', 'unpaid']),
  payer: z.string(),
  route: z.string(),
  /** USDC atomic units, decimal string. */
  amount: z.string(),
  network: z.string(),
  transaction: z.nullable(z.string()),
  settled_at: z.nullable(z.string()),
});

export { PaymentStatusBody };
