import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import type { ChainReader } from '../../shared/payment/reconcile';
import { DynamoReconcileLedger } from '../../shared/payment/ledger';
import { runReconciliation } from '../../shared/payment/reconcile-job';
import { startTestStack } from '../helpers/stack';
import { newClaim, pendClaim, randomNonce } from './helpers';

const PAYER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

describe('scheduled reconciliation job (functions/reconcile-payments.ts)', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startTestStack({}, false);
  });
  afterAll(async () => stack?.close());

  it('resolves a pending payment the chain shows as paid and books the sale for finance', async () => {
    const payment = stack.services.payment;
    const ledger = new DynamoReconcileLedger(stack.services.doc!, stack.config.CREDITS_TABLE, payment.now);
    const nonce = randomNonce();
    const now = payment.now();
    await ledger.claim(newClaim(PAYER, nonce, now, 'req-pending'));
    await pendClaim(ledger, { payer: PAYER, nonce }, 'req-pending');

    const tx = `0x${'ab'.repeat(32)}` as const;
    const chain: ChainReader = {
      authorizationUsed: async (_a, _p, n) => n.toLowerCase() === nonce.toLowerCase(),
      findAuthorizationTransaction: async () => tx,
      transactionStatus: async () => 'success',
    };
    const report = await runReconciliation(payment, ledger, chain);
    expect(report.settled).toEqual([expect.objectContaining({ nonce, transaction: tx })]);
    expect(await ledger.get({ payer: PAYER, nonce })).toMatchObject({ state: 'SETTLED' });
    const sales = await ledger.salesOfMonth(now.toISOString().slice(0, 7));
    expect(sales.find((s) => s.nonce === nonce)).toMatchObject({ amount: '10000', transaction: tx, route: 'GET /v1/price/{code}' });
    expect((await runReconciliation(payment, ledger, chain)).checked).toBe(0); // idempotent: nothing left pending
  });
});
