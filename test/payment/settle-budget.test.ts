/**
 * The request budget around /settle (issue #10, charged-without-data case 3), at the core with a
 * scripted facilitator: a settlement is never started, nor retried, when it could not finish before
 * the answer is due. x402ResourceServer.settlePayment retries a pending settlement with no deadline
 * (docs/x402-library-spike.md), which is one reason settle does not go through it.
 */
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { charge, settle } from '../../shared/payment/charge';
import type { FacilitatorClient } from '../../shared/payment/facilitator';
import type { PaidCall, PaymentDeps } from '../../shared/payment/lane';
import { MemoryPaymentLedger } from '../../shared/payment/memory-ledger';
import type { CreditLedger } from '../../shared/pro/credit-port';
import { ROUTES } from '../../shared/routes';
import { acceptedFor, signAuthorization, v2Payload } from './helpers';

const PRICE_ROUTE = ROUTES.find((r) => r.id === 'GET /v1/price/{code}')!;
const payer = privateKeyToAccount(generatePrivateKey());
const payTo = privateKeyToAccount(generatePrivateKey()).address;
const TX = `0x${'ab'.repeat(32)}`;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** Facilitator whose /settle answers `settlement_pending` (with a transaction) and takes `settleMs` of the budget. */
const pendingFacilitator = (clock: { spentMs: number }, settleMs: number) => {
  const calls = { verify: 0, settle: 0 };
  const client: FacilitatorClient = {
    verify: async () => {
      calls.verify++;
      return { isValid: true, payer: payer.address };
    },
    settle: async (_p: PaymentPayload, r: PaymentRequirements): Promise<SettleResponse> => {
      calls.settle++;
      clock.spentMs += settleMs;
      return { success: false, errorReason: 'settlement_pending', transaction: TX, network: r.network, payer: payer.address };
    },
    getSupported: async () => ({ kinds: [], extensions: [], signers: {} }),
  };
  return { client, calls };
};

const setup = (settleMs: number) => {
  const config = loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', X402_ENFORCE: '1', X402_PAY_TO: payTo, X402_FACILITATOR_TIMEOUT_MS: '4000' });
  const clock = { spentMs: 0 };
  const facilitator = pendingFacilitator(clock, settleMs);
  const ledger = new MemoryPaymentLedger();
  const deps: PaymentDeps = {
    config,
    ledger,
    credits: {} as CreditLedger,
    facilitator: facilitator.client,
    stores: { 'x402-exact': { deferred: null }, 'x402-batch': null },
    now: () => new Date(),
    log: quiet,
  };
  const request = async () => {
    const signed = await signAuthorization(payer, { payTo });
    const id = `budget-${signed.authorization.nonce.slice(2, 10)}`;
    const call: PaidCall = {
      route: PRICE_ROUTE,
      resource: { path: '/v1/price/CL', url: 'http://127.0.0.1/v1/price/CL' },
      callId: id,
      requestId: id,
      // 20 s left on arrival, minus what the facilitator took.
      timeLeftMs: () => 20_000 - clock.spentMs,
    };
    return {
      call,
      payload: v2Payload(signed, acceptedFor(payTo)),
      key: { payer: payer.address.toLowerCase(), nonce: signed.authorization.nonce.toLowerCase() },
    };
  };
  return { deps, ledger, calls: facilitator.calls, request };
};

describe('settle within the request budget', () => {
  it('a pending settlement that used up the budget is not retried: 504, recorded PENDING, one /settle', async () => {
    // The first /settle takes 17 s: 3 s are left, less than a settle call (4 s) plus its margin.
    const { deps, ledger, calls, request } = setup(17_000);
    const req = await request();
    const outcome = await charge({ kind: 'x402', payload: req.payload }, req.call, deps);
    expect(outcome.type).toBe('granted');
    if (outcome.type !== 'granted') return;
    const settled = await settle(outcome.grant, deps);
    expect(calls.settle).toBe(1);
    expect(settled.type).toBe('refused');
    if (settled.type !== 'refused') return;
    expect(settled.refusal.error).toMatchObject({ statusCode: 504, code: 'SETTLEMENT_PENDING', details: { reason: 'settlement_pending', transaction: TX } });
    expect(await ledger.get(req.key)).toMatchObject({ state: 'PENDING', transaction: TX });
  });

  it('a pending settlement with time left is retried once (the facilitator may reconcile its broadcast), then 504', async () => {
    const { deps, ledger, calls, request } = setup(1_000);
    const req = await request();
    const outcome = await charge({ kind: 'x402', payload: req.payload }, req.call, deps);
    if (outcome.type !== 'granted') throw new Error(`expected granted, got ${outcome.type}`);
    const settled = await settle(outcome.grant, deps);
    expect(calls.settle).toBe(2);
    expect(settled.type === 'refused' && settled.refusal.error.statusCode).toBe(504);
    expect(await ledger.get(req.key)).toMatchObject({ state: 'PENDING' });
  });
});
