/**
 * The deferral write's failures (shared/payment/exact/deferral.ts tryDefer), with a store that fails
 * as told: the buyer is never charged without the data. A write whose answer is lost may have landed
 * (the worker then settles the claim); so when the request runs out of time without knowing, the data
 * leave with the pending receipt instead of a 504 (which left a buyer charged with no data: a retry of
 * the same header meets a used nonce).
 */
import { describe, expect, it } from 'vitest';
import type { Config } from '../../shared/config';
import type { PaymentDeps } from '../../shared/payment/lane';
import { tryDefer } from '../../shared/payment/exact/deferral';
import type { DeferredLedger, DeferResult } from '../../shared/payment/exact/deferred-store';
import type { ExactGrant } from '../../shared/payment/exact/grant';

const NOW = new Date('2026-11-27T12:00:00Z');
/** Synthetic payer and nonce. */
const key = { payer: '0x00000000000000000000000000000000000000b1', nonce: `0x${'ab'.repeat(32)}` };

const grant = (timeLeftMs: number): ExactGrant =>
  ({
    lane: 'x402-exact',
    mode: 'settle',
    callId: 'call-1',
    key,
    route: 'GET /v1/price/{code}',
    path: '/v1/price/CL',
    requestId: 'req-1',
    payer: '0x00000000000000000000000000000000000000B1',
    amount: '10000',
    network: 'eip155:84532',
    paymentId: null,
    validBefore: Math.floor(NOW.getTime() / 1000) + 60,
    timeLeftMs: () => timeLeftMs,
  }) as unknown as ExactGrant;

/** Deps around a store whose `defer` answers with each of `answers` in turn (an Error is thrown). */
const depsWith = (answers: Array<DeferResult | Error>) => {
  const errors: string[] = [];
  let calls = 0;
  const deferred = {
    defer: async () => {
      const a = answers[Math.min(calls++, answers.length - 1)]!;
      if (a instanceof Error) throw a;
      return a;
    },
  } as unknown as DeferredLedger;
  const deps = {
    config: { X402_DEFER_MAX_USD: '0.05', X402_DEFER_OUTSTANDING_USD: '0.25', X402_DEFER_MAX_CALLS: 25, X402_FACILITATOR_TIMEOUT_MS: 4_000 } as Config,
    stores: { 'x402-exact': { deferred } },
    now: () => NOW,
    log: { info: () => undefined, warn: () => undefined, error: (m: string) => void errors.push(m) },
  } as unknown as PaymentDeps;
  return { deps, errors, calls: () => calls };
};

const pendingReceipt = {
  settlement: {
    success: false,
    errorReason: 'settlement_pending',
    transaction: '',
    payer: '0x00000000000000000000000000000000000000B1',
    extra: { settlement: 'deferred', status: `/v1/payments/${key.payer}-${key.nonce}` },
  },
};

describe('the deferral write fails (tryDefer)', () => {
  it('store down until the request is out of time: the data leave with the pending receipt, not a 504', async () => {
    const { deps, errors, calls } = depsWith([new Error('socket hang up')]);
    // 4.5 s left: less than the facilitator's 4 s plus the 1 s margin, so no second attempt.
    const out = await tryDefer(grant(4_500), deps);
    expect(out).toMatchObject({ type: 'settled', receipt: pendingReceipt });
    expect(calls()).toBe(1);
    expect(errors).toContain('x402 deferral unconfirmed: answered; settled by the worker if the write landed, else not charged');
  });

  it('a lost answer, then the retry finds the write landed: deferred, after two writes', async () => {
    const { deps, calls } = depsWith([new Error('timeout'), { deferred: true }]);
    expect(await tryDefer(grant(20_000), deps)).toMatchObject({ type: 'settled', receipt: pendingReceipt });
    expect(calls()).toBe(2);
  });

  it('the store refuses (payer over its caps, or refused deferral): null, the call settles first', async () => {
    expect(await tryDefer(grant(20_000), depsWith([{ deferred: false, why: 'over_cap' }]).deps)).toBeNull();
    expect(await tryDefer(grant(20_000), depsWith([{ deferred: false, why: 'payer_refused' }]).deps)).toBeNull();
  });
});
