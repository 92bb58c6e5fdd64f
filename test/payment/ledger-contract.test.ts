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
    await settleClaim(ledger, key(nonce), 'a', '0xt', NOW, false);
    expect(await ledger.takeDelivery(key(nonce), 'retry-1')).toBe(true);
    expect(await ledger.takeDelivery(key(nonce), 'retry-2')).toBe(false);
    await ledger.returnDelivery(key(nonce), 'retry-1');
    expect(await ledger.get(key(nonce))).toMatchObject({ state: 'SETTLED', delivered: false });
  });

  it('SETTLING is written with its pending entry; settling records the sale and drops the entry, all at once', async () => {
    const ledger = make();
    const nonce = randomNonce();
    await ledger.claim(newClaim(PAYER, nonce, NOW, 'a'));
    expect(await ledger.markSettling(key(nonce), 'b', '{}')).toBe(false); // only the holder settles
    expect(await ledger.markSettling(key(nonce), 'a', '{"x402Version":2}')).toBe(true);
    expect(await ledger.get(key(nonce))).toMatchObject({ state: 'SETTLING', payload: '{"x402Version":2}' });
    expect(await ledger.listPending()).toContainEqual({ ...key(nonce), since: NOW.toISOString() });
    expect((await ledger.claim(newClaim(PAYER, nonce, NOW, 'c'))).ok).toBe(false);
    const sale = saleOf({ ...key(nonce), claimId: 'a' }, '0xs', NOW);
    await ledger.markSettled(key(nonce), 'a', { sale, delivered: true });
    const rec = await ledger.get(key(nonce));
    expect(rec).toMatchObject({ state: 'SETTLED', transaction: '0xs', delivered: true });
    expect(rec?.payload).toBeUndefined();
    expect((await ledger.listPending()).map((p) => p.nonce)).not.toContain(nonce);
    expect((await ledger.salesOfMonth('2026-04')).filter((s) => s.nonce === nonce)).toEqual([sale]);
  });

  it('a SETTLING proof is released (the call never left) or failed, and leaves the pending index either way', async () => {
    const ledger = make();
    const [released, failed] = [randomNonce(), randomNonce()];
    for (const n of [released, failed]) {
      await ledger.claim(newClaim(PAYER, n, NOW, 'a'));
      await ledger.markSettling(key(n), 'a', '{}');
    }
    await ledger.release(key(released), 'a', 'facilitator_unreachable_at_settle');
    await ledger.markFailed(key(failed), 'a', { transaction: '', reason: 'insufficient_funds' });
    expect(await ledger.get(key(released))).toMatchObject({ state: 'RELEASED' });
    expect(await ledger.get(key(failed))).toMatchObject({ state: 'FAILED' });
    expect((await ledger.listPending()).map((p) => p.nonce)).not.toEqual(expect.arrayContaining([released]));
    expect((await ledger.listPending()).map((p) => p.nonce)).not.toEqual(expect.arrayContaining([failed]));
    expect(await ledger.claim(newClaim(PAYER, released, NOW, 'b'))).toEqual({ ok: true });
  });

  it('a CLAIMED proof outlives its holder: claimable again after the claim lifetime, not before', async () => {
    let now = NOW;
    const ledger = make(() => now);
    const nonce = randomNonce();
    await ledger.claim(newClaim(PAYER, nonce, now, 'dead'));
    now = new Date(NOW.getTime() + CLAIM_LIFETIME_MS - 1_000);
    expect((await ledger.claim(newClaim(PAYER, nonce, now, 'early'))).ok).toBe(false);
    now = new Date(NOW.getTime() + CLAIM_LIFETIME_MS + 1_000);
    expect(await ledger.claim(newClaim(PAYER, nonce, now, 'late'))).toEqual({ ok: true });
    expect(await ledger.get(key(nonce))).toMatchObject({ state: 'CLAIMED', claimId: 'late', attempts: 2 });
    // A SETTLING proof is never taken over: it may have been submitted.
    const settling = randomNonce();
    await ledger.claim(newClaim(PAYER, settling, now, 'a'));
    await ledger.markSettling(key(settling), 'a', '{}');
    now = new Date(now.getTime() + 10 * CLAIM_LIFETIME_MS);
    expect(await ledger.claim(newClaim(PAYER, settling, now, 'b'))).toMatchObject({ ok: false, existing: { state: 'SETTLING' } });
  });

  it('pending claims are listed until resolved; a settled resolution books its sale in the same write', async () => {
    const ledger = make();
    const nonce = randomNonce();
    await ledger.claim(newClaim(PAYER, nonce, NOW, 'a'));
    await pendClaim(ledger, key(nonce), 'a');
    expect((await ledger.listPending()).map((p) => p.nonce)).toContain(nonce);
    const sale = saleOf({ ...key(nonce), claimId: 'a' }, '0xs', NOW);
    expect(await ledger.resolvePending(key(nonce), { state: 'SETTLED', sale })).toBe(true);
    expect((await ledger.listPending()).map((p) => p.nonce)).not.toContain(nonce);
    expect(await ledger.get(key(nonce))).toMatchObject({ state: 'SETTLED', transaction: '0xs', delivered: false });
    expect((await ledger.salesOfMonth('2026-04')).filter((s) => s.nonce === nonce)).toEqual([sale]);
    expect((await ledger.salesOfMonth('2026-05')).filter((s) => s.nonce === nonce)).toEqual([]);
    // Resolving again changes nothing and books nothing twice.
    expect(await ledger.resolvePending(key(nonce), { state: 'SETTLED', sale: { ...sale, settledAt: '2026-04-30T12:00:01.000Z' } })).toBe(false);
    expect((await ledger.salesOfMonth('2026-04')).filter((s) => s.nonce === nonce)).toHaveLength(1);
  });
});
