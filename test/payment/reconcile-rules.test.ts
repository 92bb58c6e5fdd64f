/**
 * The reconciler's rules at their edges, on the embedded store with a fake chain and the real
 * facilitator client against a fake facilitator on loopback:
 *   - a transaction the chain reverted is not a settlement;
 *   - a stale CLAIMED claim (its call died, maybe before /settle) is never sent to /settle again;
 *   - a stale CLAIMED claim that expires unused is UNPAID, like a PENDING one, not closed;
 *   - "unused" is final only 30 s after validBefore (the chain's head may lag the wall clock);
 *   - an authorization used with no transfer (EIP-3009's cancelAuthorization) is no sale: UNPAID at the
 *     window's end, never SETTLED (which would owe a payer who cancelled after a 504 the data for nothing).
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFacilitatorClient } from '../../shared/payment/facilitator';
import { DynamoReconcileLedger, type ClaimKey } from '../../shared/payment/ledger';
import { reconcilePendingPayments, type ChainReader, type ReconcileReport } from '../../shared/payment/reconcile';
import { startTestStore, type TestStore } from '../helpers/store';
import { acceptedFor, newClaim, pendClaim, signAuthorization, startFakeFacilitator, txHash, type FakeFacilitator } from './helpers';

const payTo = privateKeyToAccount(generatePrivateKey()).address;
/** Claims are written at T0 and valid until T0 + 60 s (newClaim). */
const T0 = new Date('2026-05-04T10:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

/** A chain where nothing is used; `reverted` transactions have receipts that failed. */
const chainOf = (o: { used?: Set<string>; reverted?: Set<string> } = {}): ChainReader => ({
  authorizationUsed: async (_asset, _payer, nonce) => o.used?.has(nonce.toLowerCase()) ?? false,
  findAuthorizationTransaction: async () => null,
  transactionStatus: async (hash) => (o.reverted?.has(hash) ? 'reverted' : 'missing'),
});

describe('reconcilePendingPayments: the rules at their edges', () => {
  let store: TestStore;
  let fake: FakeFacilitator;
  let ledger: DynamoReconcileLedger;
  let clock = T0;

  beforeAll(async () => {
    [store, fake] = await Promise.all([startTestStore(), startFakeFacilitator()]);
    ledger = new DynamoReconcileLedger(store.doc, store.config.CREDITS_TABLE, () => clock);
  });
  afterAll(async () => {
    await store?.close();
    await fake?.close();
  });
  beforeEach(() => {
    fake.reset();
    clock = T0;
  });

  /** A signed payment's claim, CLAIMED at T0 with the payload the reconciler would re-submit. */
  const claim = async (): Promise<ClaimKey> => {
    const signed = await signAuthorization(privateKeyToAccount(generatePrivateKey()), { payTo, validBefore: BigInt(Math.floor(T0.getTime() / 1000) + 60) });
    const payload = JSON.stringify({ x402Version: 2, accepted: acceptedFor(payTo), payload: signed });
    const c = { ...newClaim(signed.authorization.from, signed.authorization.nonce.toLowerCase(), T0, 'req-1', payload), payTo };
    expect(await ledger.claim(c)).toEqual({ ok: true });
    return { payer: c.payer, nonce: c.nonce };
  };
  const run = (now: Date, chain = chainOf()): Promise<ReconcileReport> =>
    reconcilePendingPayments({
      ledger,
      chain,
      facilitator: createFacilitatorClient({ X402_FACILITATOR_URL: fake.url, X402_FACILITATOR_TIMEOUT_MS: 2500 }),
      now: () => now,
    });
  const has = (keys: ClaimKey[], k: ClaimKey) => keys.some((x) => x.nonce === k.nonce);

  it('a transaction the chain reverted is not a settlement: the claim stays pending, no sale', async () => {
    fake.settle = async () => ({ status: 500, body: { error: 'down' } }); // the re-submission does not settle it either
    const k = await claim();
    const reverted = txHash();
    await pendClaim(ledger, k, 'req-1', reverted);
    const report = await run(at(40), chainOf({ reverted: new Set([reverted]) }));
    expect(has(report.settled, k)).toBe(false);
    expect(has(report.stillPending, k)).toBe(true);
    expect(await ledger.get(k)).toMatchObject({ state: 'PENDING', watched: true });
    expect((await ledger.salesOfMonth('2026-05')).some((s) => s.nonce === k.nonce)).toBe(false);
  });

  it('a stale CLAIMED claim still valid is not sent to /settle (its call may never have); a PENDING one is', async () => {
    const stale = await claim();
    const pending = await claim();
    await pendClaim(ledger, pending, 'req-1');
    const report = await run(at(40)); // past the claims' 30 s lifetime, before validBefore
    // Claims left by earlier tests are watched too: only this test's two count here.
    const sent = fake.calls.settle.map((b: any) => String(b.paymentPayload.payload.authorization.nonce).toLowerCase());
    expect(sent.filter((n) => n === stale.nonce || n === pending.nonce)).toEqual([pending.nonce]);
    expect(has(report.settled, pending)).toBe(true);
    expect(has(report.stillPending, stale)).toBe(true);
    expect(await ledger.get(stale)).toMatchObject({ state: 'CLAIMED', watched: true });
  });

  it('a stale CLAIMED claim that expires unused is UNPAID, not closed', async () => {
    const k = await claim();
    const report = await run(at(60 + 30));
    expect(has(report.unpaid, k)).toBe(true);
    expect(has(report.closed, k)).toBe(false);
    expect(await ledger.get(k)).toMatchObject({ state: 'UNPAID', reason: 'authorization_expired_unused' });
    expect(fake.calls.settle).toHaveLength(0);
  });

  it('inside the 30 s after validBefore an unused authorization is still pending; at 30 s it is unpaid', async () => {
    fake.settle = async () => ({ status: 500, body: { error: 'down' } });
    const k = await claim();
    await pendClaim(ledger, k, 'req-1');
    for (const s of [1, 29]) {
      const inside = await run(at(60 + s));
      expect(has(inside.stillPending, k), `validBefore + ${s} s`).toBe(true);
      expect(has(inside.unpaid, k)).toBe(false);
      expect(await ledger.get(k)).toMatchObject({ state: 'PENDING' });
    }
    const final = await run(at(60 + 30));
    expect(has(final.unpaid, k)).toBe(true);
    expect(await ledger.get(k)).toMatchObject({ state: 'UNPAID' });
  });

  it('an authorization used with no transfer (cancelled by the payer) is never a sale: pending in its window, then UNPAID', async () => {
    fake.settle = async () => ({ status: 500, body: { error: 'down' } });
    const k = await claim();
    await pendClaim(ledger, k, 'req-1'); // the facilitator took it; the buyer got a 504, then cancelled the authorization
    const cancelled = chainOf({ used: new Set([k.nonce]) }); // used on the token, no AuthorizationUsed transfer to find
    const early = await run(at(40), cancelled);
    expect(has(early.settled, k)).toBe(false);
    expect(has(early.stillPending, k)).toBe(true);
    const final = await run(at(60 + 30), cancelled);
    expect(has(final.settled, k)).toBe(false);
    expect(has(final.unpaid, k)).toBe(true);
    expect(await ledger.get(k)).toMatchObject({ state: 'UNPAID', reason: 'authorization_canceled' });
    expect((await ledger.salesOfMonth('2026-05')).some((s) => s.nonce === k.nonce)).toBe(false);
  });

  it('a released claim whose authorization was cancelled is closed as it was at the window end: no sale, no longer watched', async () => {
    const k = await claim();
    await ledger.release(k, 'req-1', 'handler_threw');
    const cancelled = chainOf({ used: new Set([k.nonce]) });
    const final = await run(at(60 + 30), cancelled);
    expect(has(final.settled, k)).toBe(false);
    expect(has(final.closed, k)).toBe(true);
    expect(await ledger.get(k)).toMatchObject({ state: 'RELEASED', watched: false }); // closed as it was
    expect((await ledger.salesOfMonth('2026-05')).some((s) => s.nonce === k.nonce)).toBe(false);
  });
});
