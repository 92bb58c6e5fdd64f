/**
 * Faults in the paid path, on the local chain (ganache + the official facilitator logic) with the
 * service's store behind a proxy that can stall. Each case kills, pauses or delays one part and
 * then shows that the buyer either got the data, or was not charged, or gets the data by retrying
 * the same header, and that finance's sales records match the chain.
 */
import { createServer } from 'node:net';
import { FacilitatorTimeoutError, type SettleResponse } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalPaymentNetwork } from '../../infra/local/chain';
import { startLocalStack, type LocalStack } from '../../infra/local/stack';
import type { FacilitatorClient } from '../../shared/payment/facilitator';
import { processPayment, settlePayment, type HttpRequestLike, type PaymentDeps } from '../../shared/payment/core';
import { CLAIM_LIFETIME_MS, DynamoReconcileLedger } from '../../shared/payment/ledger';
import { reconcilePendingPayments, viemChainReader } from '../../shared/payment/reconcile';
import { ROUTES } from '../../shared/routes';
import { createDocumentClient } from '../../shared/store/client';
import { expectError } from '../helpers/contract';
import { startPausableProxy, type PausableProxy } from '../helpers/pausable-proxy';
import { getJson } from '../helpers/stack';
import { b64, signAuthorization, unb64, v1Payload } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PRICE_ROUTE = ROUTES.find((r) => r.id === 'GET /v1/price/{code}')!;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

describe('x402 faults: kill, pause and delay parts of the paid path (local chain)', () => {
  let stack: LocalStack;
  let net: LocalPaymentNetwork;
  let proxy: PausableProxy;
  /** Reads the ledger straight from the store (not through the proxy). */
  let ledger: DynamoReconcileLedger;
  const hook = { pauseStoreAfterSettle: false, pauseStoreAfterVerify: false, settles: 0 };

  beforeAll(async () => {
    const storePort = await freePort();
    proxy = await startPausableProxy(storePort);
    const id = Math.random().toString(36).slice(2, 8);
    stack = await startLocalStack({
      dynamoPort: storePort,
      env: {
        OBSERVATIONS_TABLE: `faults-obs-${id}`,
        CREDITS_TABLE: `faults-cred-${id}`,
        X402_ENFORCE: '1',
        X402_LOCAL_CHAIN: '1',
        X402_FACILITATOR_TIMEOUT_MS: '4000',
        STORE_TIMEOUT_MS: '3000', // as on AWS: three attempts fit the request budget
      },
      // The service reaches its store through the proxy; the test's own ledger does not.
      overrides: { doc: createDocumentClient({ DYNAMODB_ENDPOINT: `http://127.0.0.1:${proxy.port}`, AWS_REGION: 'us-east-1', STORE_TIMEOUT_MS: 3_000 }) },
    });
    net = stack.payments!;
    ledger = new DynamoReconcileLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
    net.facilitator.facilitator.onAfterVerify(async () => {
      if (hook.pauseStoreAfterVerify) proxy.pause();
    });
    net.facilitator.facilitator.onBeforeSettle(async () => {
      hook.settles++;
    });
    net.facilitator.facilitator.onAfterSettle(async () => {
      if (hook.pauseStoreAfterSettle) proxy.pause();
    });
  }, 120_000);
  afterAll(async () => {
    proxy?.resume();
    await stack?.close();
    await proxy?.close();
  });

  const buyerHeader = async (index: number) => {
    const buyer = net.chain.accounts[index]!;
    const signed = await signAuthorization(buyer, { payTo: net.payTo });
    return { buyer, signed, header: b64(v1Payload(signed)), key: { payer: buyer.address.toLowerCase(), nonce: signed.authorization.nonce.toLowerCase() } };
  };
  const balanceOf = (a: `0x${string}`) => net.chain.balanceOf(a);
  const reconcileAt = (offsetMs: number) =>
    reconcilePendingPayments({ ledger, chain: viemChainReader(net.chain.rpcUrl), now: () => new Date(Date.now() + offsetMs) });
  const salesFor = async (nonce: string) => (await ledger.salesOfMonth(new Date().toISOString().slice(0, 7))).filter((s) => s.nonce === nonce);
  const request = (header: string, requestId: string, timeLeftMs?: () => number): HttpRequestLike => ({
    method: 'GET',
    path: '/v1/price/CL',
    url: `${stack.url}/v1/price/CL`,
    headers: { 'x-payment': header },
    requestId,
    ...(timeLeftMs ? { timeLeftMs } : {}),
  });

  it('killed between /settle and the ledger write: the retry is told to wait, reconciliation books the sale, the same header then gets the data', async () => {
    const { buyer, header, key } = await buyerHeader(2);
    const before = await balanceOf(buyer.address);
    const real = stack.services.payment.facilitator;
    let onChain: SettleResponse | undefined;
    // The process "dies" the moment /settle returns: nothing after it ever runs.
    const dying: FacilitatorClient = {
      verify: (p, r) => real.verify(p, r),
      getSupported: () => real.getSupported(),
      settle: async (p, r) => {
        onChain = await real.settle(p, r);
        return new Promise<never>(() => undefined);
      },
    };
    const deps: PaymentDeps = { ...stack.services.payment, facilitator: dying };
    const outcome = await processPayment(request(header, 'killed-1'), PRICE_ROUTE, deps);
    expect(outcome.type).toBe('verified');
    if (outcome.type !== 'verified') return;
    void settlePayment(outcome.receipt, 'killed-1', deps);
    for (let i = 0; i < 200 && !onChain; i++) await sleep(25);
    expect(onChain).toMatchObject({ success: true });
    expect(before - (await balanceOf(buyer.address))).toBe(10_000n);

    expect(await ledger.get(key)).toMatchObject({ state: 'SETTLING' });
    expect((await ledger.listPending()).map((p) => p.nonce)).toContain(key.nonce);
    // The buyer retries at once: the money may have moved, so it is never told to sign anew.
    const early = await getJson(stack.url, '/v1/price/CL', { headers: { 'X-PAYMENT': header } });
    expectError(early, 504, 'SETTLEMENT_PENDING');
    expect(early.headers.get('retry-after')).toBe('60');
    // A request may still be alive within the claim lifetime: reconciliation leaves it alone.
    expect((await reconcileAt(0)).settled.map((s) => s.nonce)).not.toContain(key.nonce);
    const report = await reconcileAt(CLAIM_LIFETIME_MS + 1_000);
    expect(report.settled.find((s) => s.nonce === key.nonce)?.transaction).toBe(onChain!.transaction);
    expect(await salesFor(key.nonce)).toEqual([expect.objectContaining({ amount: '10000', transaction: onChain!.transaction })]);

    const retry = await getJson(stack.url, '/v1/price/CL', { headers: { 'X-PAYMENT': header } });
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body).toMatchObject({ instrument: 'CL' });
    expect(unb64(retry.headers.get('x-payment-response'))).toMatchObject({ success: true, transaction: onChain!.transaction });
    expect(before - (await balanceOf(buyer.address))).toBe(10_000n); // paid once
  });

  it('the store stalls right after /settle: the buyer still gets the data; reconciliation books the sale from the chain', async () => {
    const { buyer, header, key } = await buyerHeader(3);
    const before = await balanceOf(buyer.address);
    hook.pauseStoreAfterSettle = true;
    let res: Awaited<ReturnType<typeof getJson>>;
    try {
      res = await getJson(stack.url, '/v1/price/CL', { headers: { 'X-PAYMENT': header } });
    } finally {
      hook.pauseStoreAfterSettle = false;
      proxy.resumeDropping(); // the SETTLED write is lost
    }
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ instrument: 'CL' });
    const paid = unb64(res.headers.get('x-payment-response'));
    expect(paid).toMatchObject({ success: true });
    expect(before - (await balanceOf(buyer.address))).toBe(10_000n);
    // The SETTLED write was lost with the store; the SETTLING record (written before /settle) was not.
    expect(await ledger.get(key)).toMatchObject({ state: 'SETTLING' });
    const report = await reconcileAt(CLAIM_LIFETIME_MS + 1_000);
    expect(report.settled.find((s) => s.nonce === key.nonce)?.transaction).toBe(paid.transaction);
    expect(await salesFor(key.nonce)).toEqual([expect.objectContaining({ transaction: paid.transaction })]);
  }, 60_000);

  it('the store stalls before /settle: a 503 inside the request budget, nothing submitted, nothing charged', async () => {
    const { buyer, header, key } = await buyerHeader(4);
    const before = await balanceOf(buyer.address);
    const settlesBefore = hook.settles;
    hook.pauseStoreAfterVerify = true;
    const started = Date.now();
    let res: Awaited<ReturnType<typeof getJson>>;
    try {
      res = await getJson(stack.url, '/v1/price/CL', { headers: { 'X-PAYMENT': header } });
    } finally {
      hook.pauseStoreAfterVerify = false;
      proxy.resume();
    }
    expect(Date.now() - started).toBeLessThan(28_000); // before the Lambda and API Gateway give up
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect((res.body as any).error).toMatchObject({ retryable: true });
    expect((res.body as any).instrument).toBeUndefined();
    expect(hook.settles).toBe(settlesBefore);
    expect(await balanceOf(buyer.address)).toBe(before);
    // Writes that timed out may still land once the store answers again (SETTLING among them):
    // whatever the record says, nothing was submitted, and reconciliation does not submit it.
    await sleep(200);
    expect(['CLAIMED', 'RELEASED', 'SETTLING']).toContain((await ledger.get(key))?.state);
    await reconcileAt(CLAIM_LIFETIME_MS + 1_000);
    expect(hook.settles).toBe(settlesBefore);
    expect(await balanceOf(buyer.address)).toBe(before);
    expect(await salesFor(key.nonce)).toEqual([]);
  }, 60_000);

  it('out of time before /settle: the payment is given back, not settled; the same header then pays once', async () => {
    const { buyer, header, key } = await buyerHeader(5);
    const before = await balanceOf(buyer.address);
    const settlesBefore = hook.settles;
    // 3 s left is less than the settle call's own timeout (4 s here) plus its margin.
    const deps = stack.services.payment;
    const outcome = await processPayment(
      request(header, 'late-1', () => 3_000),
      PRICE_ROUTE,
      deps,
    );
    expect(outcome.type).toBe('verified');
    if (outcome.type !== 'verified') return;
    const settled = await settlePayment(outcome.receipt, 'late-1', deps);
    expect(settled.type).toBe('rejected');
    if (settled.type !== 'rejected') return;
    expect(settled.response.statusCode).toBe(503);
    expect(JSON.parse(settled.response.body).error).toMatchObject({ code: 'PAYMENT_NOT_SETTLED', retryable: true, details: { reason: 'out_of_time' } });
    expect(hook.settles).toBe(settlesBefore);
    expect(await ledger.get(key)).toMatchObject({ state: 'RELEASED' });
    expect(await balanceOf(buyer.address)).toBe(before);

    const retry = await getJson(stack.url, '/v1/price/CL', { headers: { 'X-PAYMENT': header } });
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(before - (await balanceOf(buyer.address))).toBe(10_000n);
    expect(await salesFor(key.nonce)).toHaveLength(1);
  });

  it('100 paid calls with injected faults: every buyer got the data, was not charged, or gets it by retrying; sales equal the chain', async () => {
    type Fault = 'none' | 'killed-after-settle' | 'facilitator-timeout' | 'store-down-before-settle' | 'store-down-after-settle' | 'facilitator-unreachable';
    const FAULTS: Fault[] = [
      'none',
      'killed-after-settle',
      'none',
      'facilitator-timeout',
      'store-down-before-settle',
      'none',
      'store-down-after-settle',
      'facilitator-unreachable',
    ];
    const real = stack.services.payment.facilitator;
    const realLedger = stack.services.payment.ledger;
    const background: Promise<unknown>[] = [];
    const payToBefore = await balanceOf(net.payTo);
    const calls: Array<{ key: { payer: string; nonce: string }; header: string; fault: Fault; served: boolean }> = [];

    for (let i = 0; i < 100; i++) {
      const fault = FAULTS[i % FAULTS.length]!;
      const { header, key } = await buyerHeader(2 + (i % 8));
      let markDead: () => void = () => undefined;
      const died = new Promise<void>((resolve) => {
        markDead = resolve;
      });
      const facilitator: FacilitatorClient = {
        verify: (p, r) => real.verify(p, r),
        getSupported: () => real.getSupported(),
        settle: async (p, r) => {
          if (fault === 'facilitator-unreachable') throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
          const settling = real.settle(p, r);
          background.push(settling.catch(() => undefined));
          if (fault === 'facilitator-timeout') throw new FacilitatorTimeoutError('settle', 4_000); // it goes on without us
          const result = await settling;
          if (fault === 'killed-after-settle') {
            markDead();
            return new Promise<never>(() => undefined);
          }
          return result;
        },
      };
      const ledgerWithFault = Object.create(realLedger) as typeof realLedger;
      if (fault === 'store-down-before-settle') ledgerWithFault.markSettling = async () => Promise.reject(new Error('store timeout'));
      if (fault === 'store-down-after-settle') ledgerWithFault.markSettled = async () => Promise.reject(new Error('store timeout'));
      const deps: PaymentDeps = { ...stack.services.payment, facilitator, ledger: ledgerWithFault };
      const outcome = await processPayment(request(header, `run-${i}`), PRICE_ROUTE, deps);
      expect(outcome.type, `call ${i}`).toBe('verified');
      if (outcome.type !== 'verified') continue;
      let served = false;
      if (fault === 'killed-after-settle') {
        void settlePayment(outcome.receipt, `run-${i}`, deps);
        await died; // the settlement it started reached the chain
      } else {
        const so = await settlePayment(outcome.receipt, `run-${i}`, deps);
        served = so.type === 'settled';
      }
      calls.push({ key, header, fault, served });
      // The local facilitator sends from one account and cannot overlap two settlements (its
      // nonces collide); the service did not wait for the background one, the test does.
      await Promise.all(background);
    }
    await Promise.all(background);
    await sleep(200);
    await reconcileAt(CLAIM_LIFETIME_MS + 1_000);

    const chain = viemChainReader(net.chain.rpcUrl);
    const sales = (await ledger.salesOfMonth(new Date().toISOString().slice(0, 7))).filter((s) => calls.some((c) => c.key.nonce === s.nonce));
    let charged = 0;
    for (const c of calls) {
      const used = await chain.authorizationUsed(net.chain.asset, c.key.payer as `0x${string}`, c.key.nonce as `0x${string}`);
      const booked = sales.filter((s) => s.nonce === c.key.nonce);
      // Finance books exactly the payments the chain shows, once each, with the chain's transaction.
      expect(booked.length, `${c.fault} ${c.key.nonce}`).toBe(used ? 1 : 0);
      if (used) {
        charged++;
        expect(booked[0]!.transaction).toBe(
          await chain.findAuthorizationTransaction(net.chain.asset, c.key.payer as `0x${string}`, c.key.nonce as `0x${string}`),
        );
        if (!c.served) {
          // Charged without the data: the same header gets it now.
          const retry = await getJson(stack.url, '/v1/price/CL', { headers: { 'X-PAYMENT': c.header } });
          expect(retry.status, `${c.fault}: ${JSON.stringify(retry.body)}`).toBe(200);
          expect(retry.body).toMatchObject({ instrument: 'CL' });
        }
      } else {
        expect(c.served, `${c.fault}: served without payment`).toBe(false);
      }
    }
    expect(calls).toHaveLength(100);
    expect((await balanceOf(net.payTo)) - payToBefore).toBe(BigInt(charged) * 10_000n);
    expect(sales.reduce((sum, s) => sum + BigInt(s.amount), 0n)).toBe(BigInt(charged) * 10_000n);
    // Each fault had its expected money outcome.
    const chargedBy = (f: Fault) => calls.filter((c) => c.fault === f).length;
    expect(charged).toBe(100 - chargedBy('store-down-before-settle') - chargedBy('facilitator-unreachable'));
  }, 120_000);
});
