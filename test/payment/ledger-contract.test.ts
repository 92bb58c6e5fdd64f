/**
 * One contract for both payment ledgers: the in-memory one (fast unit tests) behaves exactly like
 * the DynamoDB one on the embedded store, transition by transition.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { CLAIM_LIFETIME_MS, DynamoReconcileLedger, type ReconcileLedger } from '../../shared/payment/ledger';
import { MemoryPaymentLedger } from '../../shared/payment/memory-ledger';
import { createDocumentClient } from '../../shared/store/client';
import { startTestStack } from '../helpers/stack';
import { newClaim, pendClaim, randomNonce, saleOf, settleClaim } from './helpers';

const PAYER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const NOW = new Date('2026-04-30T12:00:00.000Z');

let stack: LocalStack;
beforeAll(async () => {
  stack = await startTestStack({}, false);
});
afterAll(() => stack?.close());

const ledgers: Array<[string, (clock?: () => Date) => ReconcileLedger]> = [
  ['MemoryPaymentLedger', (clock = () => NOW) => new MemoryPaymentLedger(clock)],
  [
    'DynamoReconcileLedger (embedded store)',
    (clock = () => NOW) => new DynamoReconcileLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE, clock),
  ],
];

describe.each(ledgers)('%s', (_name, make) => {
  const key = (nonce: string) => ({ payer: PAYER.toLowerCase(), nonce });
  const watched = async (ledger: ReconcileLedger) => (await ledger.listWatched()).map((w) => w.nonce);

  it('claims once; a released proof can be claimed again for its own path only; 20 concurrent claims have one winner', async () => {
    const ledger = make();
    const nonce = randomNonce();
    expect(await ledger.claim(newClaim(PAYER, nonce, NOW, 'a'))).toEqual({ ok: true });
    expect(await ledger.claim(newClaim(PAYER, nonce, NOW, 'b'))).toMatchObject({ ok: false, existing: { state: 'CLAIMED', claimId: 'a' } });
    await ledger.release(key(nonce), 'b', 'not the holder'); // only the holder may release
    expect(await ledger.get(key(nonce))).toMatchObject({ state: 'CLAIMED' });
    await ledger.release(key(nonce), 'a', 'handler_error');
    // Bound to the path it was first presented for.
    expect(await ledger.claim({ ...newClaim(PAYER, nonce, NOW, 'x'), path: '/v1/price/BZ' })).toMatchObject({ ok: false, existing: { state: 'RELEASED' } });
    expect(await ledger.claim(newClaim(PAYER, nonce, NOW, 'c'))).toEqual({ ok: true });
    expect(await ledger.get(key(nonce))).toMatchObject({ state: 'CLAIMED', claimId: 'c', attempts: 2 });
    const other = randomNonce();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => ledger.claim(newClaim(PAYER, other, NOW, `r${i}`))));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it('a claim is watched from its first write with its payload; settling closes it and books the sale in one write', async () => {
    const ledger = make();
    const nonce = randomNonce();
    await ledger.claim(newClaim(PAYER, nonce, NOW, 'a', '{"x402Version":2}'));
    expect(await ledger.get(key(nonce))).toMatchObject({ state: 'CLAIMED', watched: true, payload: '{"x402Version":2}' });
    expect(await watched(ledger)).toContain(nonce);
    const sale = saleOf({ ...key(nonce), claimId: 'a' }, '0xs', NOW);
    expect(await ledger.settle(key(nonce), 'b', { sale })).toBe('lost'); // only the holder settles
    expect(await ledger.settle(key(nonce), 'a', { sale })).toBe('recorded');
    // A retry of an unacknowledged write reads as recorded, and books nothing twice.
    expect(await ledger.settle(key(nonce), 'a', { sale })).toBe('recorded');
    const rec = await ledger.get(key(nonce));
    expect(rec).toMatchObject({ state: 'SETTLED', transaction: '0xs', delivered: true, watched: false });
    expect(rec?.payload).toBeUndefined();
    expect(await watched(ledger)).not.toContain(nonce);
    expect((await ledger.salesOfMonth('2026-04')).filter((s) => s.nonce === nonce)).toEqual([sale]);
    expect((await ledger.claim(newClaim(PAYER, nonce, NOW, 'c'))).ok).toBe(false);
  });

  it('released, refused and pending claims stay watched; a CLAIMED or PENDING proof is never taken over', async () => {
    let now = NOW;
    const ledger = make(() => now);
    const [released, failed, pending, held] = [randomNonce(), randomNonce(), randomNonce(), randomNonce()];
    for (const n of [released, failed, pending, held]) await ledger.claim(newClaim(PAYER, n, now, 'a'));
    await ledger.release(key(released), 'a', 'facilitator_unreachable_at_settle');
    await ledger.markFailed(key(failed), 'a', { transaction: '', reason: 'insufficient_funds' });
    await pendClaim(ledger, key(pending), 'a', '0xp');
    expect(await ledger.get(key(released))).toMatchObject({ state: 'RELEASED', watched: true });
    expect(await ledger.get(key(failed))).toMatchObject({ state: 'FAILED', watched: true });
    expect(await ledger.get(key(pending))).toMatchObject({ state: 'PENDING', transaction: '0xp', watched: true });
    expect(await watched(ledger)).toEqual(expect.arrayContaining([released, failed, pending, held]));
    now = new Date(NOW.getTime() + 10 * CLAIM_LIFETIME_MS);
    expect(await ledger.claim(newClaim(PAYER, held, now, 'b'))).toMatchObject({ ok: false, existing: { state: 'CLAIMED' } });
    expect(await ledger.claim(newClaim(PAYER, pending, now, 'b'))).toMatchObject({ ok: false, existing: { state: 'PENDING' } });
    expect(await ledger.claim(newClaim(PAYER, failed, now, 'b'))).toEqual({ ok: true });
  });

  it('the reconciler settles any watched claim it saw, once; the holder then takes the delivery', async () => {
    const ledger = make();
    const nonce = randomNonce();
    await ledger.claim(newClaim(PAYER, nonce, NOW, 'a'));
    const sale = saleOf({ ...key(nonce), claimId: 'a' }, '0xs', NOW);
    // Observed in another state (it moved meanwhile): nothing happens.
    expect(await ledger.resolve(key(nonce), { state: 'PENDING', claimId: 'a' }, { state: 'SETTLED', sale })).toBe(false);
    expect(await ledger.resolve(key(nonce), { state: 'CLAIMED', claimId: 'a' }, { state: 'SETTLED', sale })).toBe(true);
    expect(await ledger.get(key(nonce))).toMatchObject({ state: 'SETTLED', delivered: false, watched: false });
    expect(
      await ledger.resolve(key(nonce), { state: 'CLAIMED', claimId: 'a' }, { state: 'SETTLED', sale: { ...sale, settledAt: '2026-04-30T12:00:01.000Z' } }),
    ).toBe(false);
    // The holder's own settlement write comes late: it delivers what the reconciler booked.
    expect(await ledger.settle(key(nonce), 'a', { sale })).toBe('recorded');
    expect(await ledger.get(key(nonce))).toMatchObject({ state: 'SETTLED', delivered: true });
    expect((await ledger.salesOfMonth('2026-04')).filter((s) => s.nonce === nonce)).toHaveLength(1);
  });

  it('a settled, undelivered proof is taken for delivery once, and can be given back', async () => {
    const ledger = make();
    const nonce = randomNonce();
    await ledger.claim(newClaim(PAYER, nonce, NOW, 'a'));
    await settleClaim(ledger, key(nonce), 'a', '0xt', NOW, false);
    expect(await ledger.takeDelivery(key(nonce), 'retry-1')).toBe(true);
    expect(await ledger.takeDelivery(key(nonce), 'retry-2')).toBe(false);
    await ledger.returnDelivery(key(nonce), 'retry-1');
    expect(await ledger.get(key(nonce))).toMatchObject({ state: 'SETTLED', delivered: false });
  });

  it('closes unused claims: CLAIMED and PENDING as UNPAID, RELEASED and FAILED as they were', async () => {
    const ledger = make();
    const [claimed, released] = [randomNonce(), randomNonce()];
    for (const n of [claimed, released]) await ledger.claim(newClaim(PAYER, n, NOW, 'a'));
    await ledger.release(key(released), 'a', 'handler_error');
    expect(await ledger.resolve(key(claimed), { state: 'CLAIMED', claimId: 'a' }, { state: 'UNPAID', reason: 'authorization_expired_unused' })).toBe(true);
    expect(await ledger.resolve(key(released), { state: 'RELEASED', claimId: 'a' }, { state: 'CLOSED', reason: 'unused' })).toBe(true);
    expect(await ledger.get(key(claimed))).toMatchObject({ state: 'UNPAID', watched: false });
    expect(await ledger.get(key(released))).toMatchObject({ state: 'RELEASED', watched: false });
    expect(await watched(ledger)).not.toEqual(expect.arrayContaining([claimed]));
    expect((await ledger.claim(newClaim(PAYER, claimed, NOW, 'b'))).ok).toBe(false);
  });

  it('binds a payment id once, and keeps the first answer with the settlement', async () => {
    const ledger = make();
    const nonce = randomNonce();
    const use = { nonce, digest: 'd1', path: '/v1/price/CL' };
    expect(await ledger.bindPaymentId(PAYER, 'id-0123456789abcdef', use)).toBeNull();
    expect(await ledger.bindPaymentId(PAYER, 'id-0123456789abcdef', { ...use, digest: 'd2' })).toEqual(use);
    await ledger.claim(newClaim(PAYER, nonce, NOW, 'a'));
    const answer = { data: new Uint8Array([1, 2, 3]), settledAt: NOW.toISOString() };
    const sale = saleOf({ ...key(nonce), claimId: 'a' }, '0xs', NOW);
    expect(await ledger.settle(key(nonce), 'a', { sale, paymentId: 'id-0123456789abcdef', answer })).toBe('recorded');
    const bound = await ledger.bindPaymentId(PAYER, 'id-0123456789abcdef', use);
    expect(bound).toMatchObject(use);
    expect([...(bound?.answer?.data ?? [])]).toEqual([1, 2, 3]);
    expect(bound?.answer?.settledAt).toBe(NOW.toISOString());
  });
});
