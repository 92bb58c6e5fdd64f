/**
 * The deferral caps (issue 38) under 50 concurrent deferrals of one payer written through two store
 * clients, as two server processes write them: the caps live in the store's condition, so however the
 * writes interleave the payer never has more than its caps outstanding, and what the payer item counts
 * is exactly what was deferred. The same burst over HTTP with official clients and a chain is in
 * deferred.test.ts (24 calls there: each call past the cap is an on-chain settlement).
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDeferredLedger, type DeferResult } from '../../shared/payment/exact/deferred-store';
import { DynamoReconcileLedger } from '../../shared/payment/ledger';
import { createDocumentClient } from '../../shared/store/client';
import { startTestStore, type TestStore } from '../helpers/store';
import { newClaim, randomNonce } from './helpers';

const CAPS = { maxOutstanding: 250_000n, maxCalls: 25 }; // the defaults: 0.25 USD and 25 calls
const PRICE = '10000'; // 0.01 USD, /v1/price/CL

describe('deferral caps under 50 concurrent deferrals of one payer (two store clients)', () => {
  let store: TestStore;
  let second: ReturnType<typeof createDocumentClient>;

  beforeAll(async () => {
    store = await startTestStore();
    second = createDocumentClient(store.config);
  });
  afterAll(async () => {
    second?.destroy();
    await store?.close();
  });

  it('never more than the caps outstanding; the payer item counts exactly the calls deferred', async () => {
    const payer = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
    const claims = new DynamoReconcileLedger(store.doc, store.config.CREDITS_TABLE);
    const ledgers = [new DynamoDeferredLedger(store.doc, store.config.CREDITS_TABLE), new DynamoDeferredLedger(second, store.config.CREDITS_TABLE)];
    const keys = Array.from({ length: 50 }, () => ({ payer, nonce: randomNonce().toLowerCase() }));
    for (const k of keys) expect(await claims.claim(newClaim(k.payer, k.nonce, new Date(), `req-${k.nonce.slice(2, 10)}`))).toEqual({ ok: true });

    const results = await Promise.all(
      keys.map((k, i) => ledgers[i % 2]!.defer(k, `req-${k.nonce.slice(2, 10)}`, PRICE, CAPS).catch((err: Error): DeferResult | Error => err)),
    );
    const deferred = keys.filter((_, i) => (results[i] as DeferResult).deferred === true);
    // A transaction cancelled by a conflict (DynamoDB's answer to concurrent writes of one item) is an
    // error the call settles first on, never a deferral.
    for (const r of results) if (!(r instanceof Error) && !r.deferred) expect(r.why).toBe('over_cap');
    expect(deferred.length).toBeGreaterThanOrEqual(1);
    expect(deferred.length).toBeLessThanOrEqual(CAPS.maxCalls);

    const account = await ledgers[0]!.payer(payer);
    expect(account.calls).toBe(deferred.length);
    expect(account.outstanding).toBe(BigInt(deferred.length) * BigInt(PRICE));
    expect(account.outstanding).toBeLessThanOrEqual(CAPS.maxOutstanding);
    // Each deferral is its claim's: the claims deferred are exactly the calls that were told so.
    for (const [i, k] of keys.entries()) {
      const rec = await ledgers[1]!.get(k);
      expect(rec?.state).toBe((results[i] as DeferResult).deferred === true ? 'DEFERRED' : 'CLAIMED');
    }
  });
});
