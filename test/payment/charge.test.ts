/**
 * The payment core's money rules, at the `charge` step with the in-memory ledger, a scripted
 * facilitator and a fake chain (real EIP-712 signatures). Each case is a way a buyer could be
 * charged without data, served twice, or served for free; the local-chain versions of the same
 * faults are in faults.test.ts.
 */
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import { appendPaymentIdentifierToExtensions, generatePaymentId, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { charge, release, settle } from '../../shared/payment/charge';
import type { FacilitatorClient } from '../../shared/payment/facilitator';
import type { ChargeOutcome, PaidCall, PaymentDeps } from '../../shared/payment/lane';
import { CLAIM_LIFETIME_MS, REPLAY_WINDOW_MS } from '../../shared/payment/ledger';
import { MemoryPaymentLedger } from '../../shared/payment/memory-ledger';
import { paymentIdentifierDeclaration } from '../../shared/payment/payment-id';
import { reconcilePendingPayments, type ChainReader } from '../../shared/payment/reconcile';
import type { CreditLedger } from '../../shared/pro/credit-port';
import { findRoute } from '../../shared/routes';
import { acceptedFor, signAuthorization, txHash, v1Payload, v2Payload } from './helpers';

const payTo = privateKeyToAccount(generatePrivateKey()).address;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const PRICE = findRoute('GET /v1/price/{code}')!;

/** A facilitator whose answers a test scripts, and a chain that remembers what it settled. */
const scripted = () => {
  const used = new Map<string, string>(); // nonce -> transaction
  const calls = { verify: 0, settle: 0 };
  const nonceOf = (p: PaymentPayload) => String((p.payload as { authorization: { nonce: string } }).authorization.nonce).toLowerCase();
  const payerOf = (p: PaymentPayload) => String((p.payload as { authorization: { from: string } }).authorization.from);
  const f = {
    used,
    calls,
    verify: async (p: PaymentPayload): Promise<VerifyResponse> => ({ isValid: true, payer: payerOf(p) }),
    /** What the chain does with a settle: mined (money moves) or not. */
    settle: async (p: PaymentPayload, r: PaymentRequirements): Promise<SettleResponse> => {
      const tx = txHash();
      used.set(nonceOf(p), tx);
      return { success: true, transaction: tx, network: r.network, payer: payerOf(p) };
    },
  };
  const client: FacilitatorClient = {
    verify: (p) => {
      calls.verify++;
      return f.verify(p);
    },
    settle: (p, r) => {
      calls.settle++;
      return f.settle(p, r);
    },
    getSupported: async () => ({ kinds: [], extensions: [], signers: {} }),
  };
  const chain: ChainReader = {
    authorizationUsed: async (_a, _p, nonce) => used.has(nonce.toLowerCase()),
    findAuthorizationTransaction: async (_a, _p, nonce) => (used.get(nonce.toLowerCase()) as `0x${string}` | undefined) ?? null,
    transactionStatus: async (h) => ([...used.values()].includes(h) ? 'success' : 'missing'),
  };
  return { f, used, calls, client, chain, nonceOf, payerOf };
};

const setup = () => {
  let nowMs = Date.parse('2026-11-26T12:00:00.000Z');
  const clock = { advance: (ms: number) => (nowMs += ms), now: () => new Date(nowMs) };
  const fac = scripted();
  const ledger = new MemoryPaymentLedger(clock.now);
  const config = loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', X402_ENFORCE: '1', X402_PAY_TO: payTo });
  const deps: PaymentDeps = {
    config,
    ledger,
    credits: {} as CreditLedger,
    facilitator: fac.client,
    stores: { 'x402-exact': { deferred: null }, 'x402-batch': null },
    now: clock.now,
    log: quiet,
  };
  let n = 0;
  const call = (path = '/v1/price/CL'): PaidCall => ({
    route: PRICE,
    resource: { path, url: `https://api.example.com${path}` },
    callId: `call-${++n}`,
    requestId: `req-${n}`,
    timeLeftMs: () => 25_000,
  });
  const buyer = privateKeyToAccount(generatePrivateKey());
  const sign = () => signAuthorization(buyer, { payTo, validBefore: BigInt(Math.floor(nowMs / 1000) + 60) });
  const reconcile = () => reconcilePendingPayments({ ledger, chain: fac.chain, facilitator: fac.client, now: clock.now });
  /** One whole paid call: charge, then (for a grant) settle as a charged answer. */
  const pay = async (payload: unknown, c = call()) => {
    const outcome = await charge({ kind: 'x402', payload }, c, deps);
    if (outcome.type !== 'granted') return { outcome, served: false, settled: undefined };
    const settled = await settle(outcome.grant, deps, () => Buffer.from(JSON.stringify({ body: 'the data' })));
    return { outcome, served: settled.type === 'settled', settled };
  };
  return { clock, fac, ledger, deps, call, sign, reconcile, pay, buyer };
};

const refusalOf = (o: ChargeOutcome) => (o.type === 'refused' ? o.refusal.error : null);

describe('charged without data: a lost chain answer is pending, never a failure', () => {
  it.each([
    ['the node lost its answer to sendRawTransaction (200 success:false, transaction_failed)', 'invalid_exact_evm_transaction_failed'],
    ['an earlier, unanswered attempt used the nonce', 'invalid_exact_evm_nonce_already_used'],
    ['the mined transfer had no Transfer log the facilitator expected', 'invalid_exact_evm_transfer_event_mismatch'],
  ])('%s: 504, then the reconciler books it from the chain and the same payment gets the data once', async (_name, errorReason) => {
    const t = setup();
    // The transfer reaches the chain; the answer the facilitator gives does not say so.
    t.fac.f.settle = async (p, r) => {
      t.fac.used.set(t.fac.nonceOf(p), txHash());
      return { success: false, errorReason, transaction: '', network: r.network, payer: t.fac.payerOf(p) };
    };
    const payload = v1Payload(await t.sign());
    const first = await t.pay(payload);
    const settleCalls = t.fac.calls.settle;
    expect(first.served).toBe(false);
    expect(first.settled?.type === 'refused' && first.settled.refusal.error).toMatchObject({ statusCode: 504, code: 'SETTLEMENT_PENDING' });
    const key = { payer: t.buyer.address.toLowerCase(), nonce: (payload.payload.authorization.nonce as string).toLowerCase() };
    expect(await t.ledger.get(key)).toMatchObject({ state: 'PENDING', watched: true });

    // Until the reconciler has run, the same payment is told to wait, never to sign anew.
    expect(refusalOf((await t.pay(payload)).outcome)).toMatchObject({ statusCode: 504 });
    const report = await t.reconcile();
    expect(report.settled.map((s) => s.nonce)).toEqual([key.nonce]);
    expect(await t.ledger.salesOfMonth('2026-11')).toHaveLength(1);

    const retry = await t.pay(payload);
    expect(retry.served).toBe(true);
    expect(retry.settled?.type === 'settled' && retry.settled.receipt.settlement?.transaction).toBe(t.fac.used.get(key.nonce));
    // Delivered once: a further retry is a spent payment.
    expect(refusalOf((await t.pay(payload)).outcome)).toMatchObject({ statusCode: 402, details: { reason: 'nonce_already_used' } });
    expect(t.fac.calls.settle).toBe(settleCalls); // the reconciler read the chain; nothing was submitted again
  });

  it("a refusal of the facilitator's own checks before sending is a failure (nothing charged); if the chain later shows it used, it is owed", async () => {
    const t = setup();
    t.fac.f.settle = async (p, r) => ({
      success: false,
      errorReason: 'invalid_exact_evm_insufficient_balance',
      transaction: '',
      network: r.network,
      payer: t.fac.payerOf(p),
    });
    const payload = v1Payload(await t.sign());
    const first = await t.pay(payload);
    expect(first.settled?.type === 'refused' && first.settled.refusal.error).toMatchObject({ statusCode: 402, details: { reason: 'insufficient_funds' } });
    // The chain disagrees (the transfer went through after all): the sweep books it, the buyer is owed.
    t.fac.used.set((payload.payload.authorization.nonce as string).toLowerCase(), txHash());
    expect((await t.reconcile()).settled).toHaveLength(1);
    expect((await t.pay(payload)).served).toBe(true);
  });

  it('a settle call that never left (connection refused) is released, and a released claim the chain shows used is owed too', async () => {
    const t = setup();
    t.fac.f.settle = async () => {
      throw Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    };
    const payload = v1Payload(await t.sign());
    const first = await t.pay(payload);
    expect(first.settled?.type === 'refused' && first.settled.refusal.error).toMatchObject({ statusCode: 502, code: 'FACILITATOR_UNAVAILABLE' });
    t.fac.used.set((payload.payload.authorization.nonce as string).toLowerCase(), txHash());
    expect((await t.reconcile()).settled).toHaveLength(1);
    expect((await t.pay(payload)).served).toBe(true);
  });
});

describe('one payment, one delivery', () => {
  it('settled on chain but the settlement write is lost: no data now (504); the reconciler books it; the retry gets the data once', async () => {
    const t = setup();
    const real = t.ledger.settle.bind(t.ledger);
    let left = 25_000;
    t.ledger.settle = async () => {
      left = 500; // each attempt times out; the request's time runs out
      throw new Error('store timeout');
    };
    const payload = v1Payload(await t.sign());
    const first = await t.pay({ ...payload }, { ...t.call(), timeLeftMs: () => left });
    expect(first.served).toBe(false);
    expect(first.settled?.type === 'refused' && first.settled.refusal.error).toMatchObject({ statusCode: 504 });
    t.ledger.settle = real;
    // The call that held the claim is gone; its claim is still watched.
    expect((await t.reconcile()).settled).toHaveLength(0);
    t.clock.advance(CLAIM_LIFETIME_MS + 1_000);
    expect((await t.reconcile()).settled).toHaveLength(1);
    expect((await t.pay(payload)).served).toBe(true);
    expect((await t.pay(payload)).served).toBe(false);
    expect(await t.ledger.salesOfMonth('2026-11')).toHaveLength(1);
  });

  it('a settlement write that landed although its answer was lost is retried, read as recorded, served once; the reconciler does not reopen it', async () => {
    const t = setup();
    const real = t.ledger.settle.bind(t.ledger);
    let attempts = 0;
    t.ledger.settle = async (...args) => {
      const done = await real(...args);
      if (++attempts === 1) throw new Error('socket timeout after the write landed');
      return done;
    };
    const payload = v1Payload(await t.sign());
    expect((await t.pay(payload)).served).toBe(true);
    expect(attempts).toBe(2);
    t.clock.advance(CLAIM_LIFETIME_MS + 1_000);
    expect((await t.reconcile()).settled).toHaveLength(0);
    expect((await t.pay(payload)).served).toBe(false);
    expect(await t.ledger.salesOfMonth('2026-11')).toHaveLength(1);
  });

  it('a proof is bound to the path it was first presented for, whatever it names (v1 names none; v2 without resource)', async () => {
    const t = setup();
    const signed = await t.sign();
    for (const payload of [v1Payload(signed), (({ resource: _r, ...rest }) => rest)(v2Payload(signed, acceptedFor(payTo)))]) {
      const first = await charge({ kind: 'x402', payload }, t.call('/v1/price/CL'), t.deps);
      // The handler failed: nothing charged, the proof stays usable, for CL.
      if (first.type === 'granted') await release(first.grant, { kind: 'handler_threw' }, t.deps);
      const elsewhere = await charge({ kind: 'x402', payload }, t.call('/v1/price/BZ'), t.deps);
      expect(refusalOf(elsewhere)).toMatchObject({ statusCode: 402, details: { reason: 'proof_bound_to_other_resource' } });
    }
    expect(t.fac.calls.settle).toBe(0);
  });

  it('the facilitator must have verified the signer as the payer', async () => {
    const t = setup();
    t.fac.f.verify = async () => ({ isValid: true, payer: privateKeyToAccount(generatePrivateKey()).address });
    const payload = v1Payload(await t.sign());
    const { outcome } = await t.pay(payload);
    expect(refusalOf(outcome)).toMatchObject({ statusCode: 402, details: { reason: 'payer_mismatch' } });
    expect(t.fac.calls.settle).toBe(0);
    const key = { payer: t.buyer.address.toLowerCase(), nonce: (payload.payload.authorization.nonce as string).toLowerCase() };
    expect(await t.ledger.get(key)).toMatchObject({ state: 'RELEASED', reason: 'payer_mismatch' });
  });
});

describe('idempotent replays (payment-identifier)', () => {
  const named = async (t: ReturnType<typeof setup>) => {
    const extensions = appendPaymentIdentifierToExtensions({ [PAYMENT_IDENTIFIER]: paymentIdentifierDeclaration() }, generatePaymentId());
    return { ...v2Payload(await t.sign(), acceptedFor(payTo), 'https://api.example.com/v1/price/CL'), extensions };
  };

  it('30 concurrent re-sends after the first answer get its stored bytes back; the handler never runs again', async () => {
    const t = setup();
    const payload = await named(t);
    const first = await t.pay(payload);
    expect(first.served).toBe(true);
    const again = await Promise.all(Array.from({ length: 30 }, () => charge({ kind: 'x402', payload }, t.call(), t.deps)));
    for (const o of again) {
      expect(o.type).toBe('replay');
      if (o.type === 'replay') expect(Buffer.from(o.answer).toString()).toBe(JSON.stringify({ body: 'the data' }));
    }
    expect(t.fac.calls.settle).toBe(1);
  });

  it('for an hour, not forever', async () => {
    const t = setup();
    const payload = await named(t);
    expect((await t.pay(payload)).served).toBe(true);
    t.clock.advance(REPLAY_WINDOW_MS - 1_000);
    expect((await charge({ kind: 'x402', payload }, t.call(), t.deps)).type).toBe('replay');
    t.clock.advance(2_000);
    const late = await charge({ kind: 'x402', payload }, t.call(), t.deps);
    expect(late.type).toBe('refused');
  });

  it('a re-send while the first is still being settled is told to retry shortly, not charged', async () => {
    const t = setup();
    const payload = await named(t);
    const first = await charge({ kind: 'x402', payload }, t.call(), t.deps);
    expect(first.type).toBe('granted');
    expect(refusalOf(await charge({ kind: 'x402', payload }, t.call(), t.deps))).toMatchObject({
      statusCode: 409,
      code: 'PAYMENT_IN_PROGRESS',
      retryable: true,
    });
  });
});
