/**
 * One contract for both payment ledgers: the in-memory one (fast unit tests) behaves exactly like
 * the DynamoDB one on the embedded store, transition by transition.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { DynamoPaymentLedger, type PaymentLedger } from '../../shared/payment/ledger';
import { MemoryPaymentLedger } from '../../shared/payment/memory-ledger';
import { createDocumentClient } from '../../shared/store/client';
import { startTestStack } from '../helpers/stack';
import { newClaim, randomNonce } from './helpers';

const PAYER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const NOW = new Date('2026-04-30T12:00:00.000Z');

let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({}, false);
});
afterAll(() => stack?.close());

const ledgers: Array<[string, () => PaymentLedger]> = [
  ['MemoryPaymentLedger', () => new MemoryPaymentLedger(() => NOW)],
  ['DynamoPaymentLedger (embedded store)', () => new DynamoPaymentLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE, () => NOW)],
];

describe.each(ledgers)('%s', (_name, make) => {
  const key = (nonce: string) => ({ payer: PAYER.toLowerCase(), nonce });

  it('claims once; a released proof can be claimed again; 20 concurrent claims have one winner', async () => {
    const ledger = make();
    const nonce = randomNonce();
    expect(await ledger.claim(newClaim(PAYER, nonce, NOW, 'a'))).toEqual({ ok: true });
    expect(await ledger.claim(newClaim(PAYER, nonce, NOW, 'b'))).toMatchObject({ ok: false, existing: { state: 'CLAIMED', claimId: 'a' } });
    await ledger.release(key(nonce), 'b', 'not the holder'); // only the holder may release
    expect(await ledger.get(key(nonce))).toMatchObject({ state: 'CLAIMED' });
    await ledger.release(key(nonce), 'a', 'handler_error');
    expect(await ledger.claim(newClaim(PAYER, nonce, NOW, 'c'))).toEqual({ ok: true });
    expect(await ledger.get(key(nonce))).toMatchObject({ state: 'CLAIMED', claimId: 'c', attempts: 2 });
    const other = randomNonce();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => ledger.claim(newClaim(PAYER, other, NOW, `r${i}`))));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it('a settled, undelivered proof is taken for delivery once, and can be given back', async () => {
    const ledger = make();
    const nonce = randomNonce();
    await ledger.claim(newClaim(PAYER, nonce, NOW, 'a'));
    await ledger.markSettled(key(nonce), 'a', { transaction: '0xt', settledAt: NOW.toISOString(), delivered: false });
    expect(await ledger.takeDelivery(key(nonce), 'retry-1')).toBe(true);
    expect(await ledger.takeDelivery(key(nonce), 'retry-2')).toBe(false);
    await ledger.returnDelivery(key(nonce), 'retry-1');
    expect(await ledger.get(key(nonce))).toMatchObject({ state: 'SETTLED', delivered: false });
  });

  it('pending claims are listed until resolved; sales are kept by month', async () => {
    const ledger = make();
    const nonce = randomNonce();
    await ledger.claim(newClaim(PAYER, nonce, NOW, 'a'));
    await ledger.markPending(key(nonce), 'a', { transaction: '', reason: 'facilitator_timeout', payload: '{}' });
    expect(await ledger.listPending()).toContainEqual(key(nonce));
    await ledger.resolvePending(key(nonce), { state: 'SETTLED', transaction: '0xs', settledAt: NOW.toISOString() });
    expect(await ledger.listPending()).not.toContainEqual(key(nonce));
    expect(await ledger.get(key(nonce))).toMatchObject({ state: 'SETTLED', transaction: '0xs', delivered: false });
    const sale = {
      ...key(nonce),
      amount: '10000',
      asset: '0xa',
      network: 'eip155:84532',
      payTo: '0xb',
      route: 'GET /v1/price/{code}',
      path: '/v1/price/CL',
      transaction: '0xs',
      settledAt: NOW.toISOString(),
      requestId: 'a',
    };
    await ledger.recordSale(sale);
    expect((await ledger.salesOfMonth('2026-04')).filter((s) => s.nonce === nonce)).toEqual([sale]);
    expect((await ledger.salesOfMonth('2026-05')).filter((s) => s.nonce === nonce)).toEqual([]);
  });
});
