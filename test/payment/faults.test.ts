/**
 * Faults in the paid path, on the local chain (ganache + the official facilitator logic), with the
 * service's store behind a proxy that can stall and the facilitator's JSON-RPC behind a proxy that
 * can lose the node's answer to eth_sendRawTransaction. Each case kills, pauses, loses or delays one
 * part and then shows the first rule of money: the buyer got the data, or was not charged, or gets
 * the data by retrying the same header, once; and finance's sales records match the chain.
 */
import { FacilitatorTimeoutError, type SettleResponse } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalPaymentNetwork } from '../../infra/local/chain';
import { startLocalFacilitator, type LocalFacilitator } from '../../infra/local/chain/facilitator';
import { startLocalStack, type LocalStack } from '../../infra/local/stack';
import { charge, release, settle } from '../../shared/payment/charge';
import { createFacilitatorClient, type FacilitatorClient } from '../../shared/payment/facilitator';
import type { PaidCall, PaymentDeps } from '../../shared/payment/lane';
import { CLAIM_LIFETIME_MS, DynamoReconcileLedger, type PaymentLedger } from '../../shared/payment/ledger';
import { reconcilePendingPayments, viemChainReader } from '../../shared/payment/reconcile';
import { ROUTES } from '../../shared/routes';
import { createDocumentClient } from '../../shared/store/client';
import { expectError } from '../helpers/contract';
import { until } from '../helpers/until';
import { startPausableProxy, type PausableProxy } from '../helpers/pausable-proxy';
import { startRpcProxy, type RpcProxy, type SendFault } from '../helpers/rpc-proxy';
import { getJson } from '../helpers/stack';
import { b64, signAuthorization, unb64, v1Payload } from './helpers';
import { freePort } from '../helpers/ports';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PRICE_ROUTE = ROUTES.find((r) => r.id === 'GET /v1/price/{code}')!;

describe('x402 faults: kill, pause, lose and delay parts of the paid path (local chain)', () => {
  let stack: LocalStack;
  let net: LocalPaymentNetwork;
  let proxy: PausableProxy;
  let rpc: RpcProxy;
  /** The official facilitator logic on the same chain, reaching its node through the lossy RPC proxy. */
  let lossy: LocalFacilitator;
  let lossyClient: FacilitatorClient;
  /** Reads the ledger straight from the store (not through the proxy). */
  let ledger: DynamoReconcileLedger;
  const hook: { pauseStoreAfterSettle: boolean; settles: number; paused?: () => void } = { pauseStoreAfterSettle: false, settles: 0 };

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
        X402_DEFER_MAX_USD: '0', // the settle-first path's faults (deferred settlement: test/payment/deferred.test.ts)
      },
      // The service reaches its store through the proxy; the test's own ledger does not.
      overrides: { doc: createDocumentClient({ DYNAMODB_ENDPOINT: `http://127.0.0.1:${proxy.port}`, AWS_REGION: 'us-east-1', STORE_TIMEOUT_MS: 3_000 }) },
    });
    net = stack.payments!;
    ledger = new DynamoReconcileLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
    rpc = await startRpcProxy(net.chain.rpcUrl);
    lossy = await startLocalFacilitator({ ...net.chain, rpcUrl: rpc.url });
    lossyClient = createFacilitatorClient({ X402_FACILITATOR_URL: lossy.url, X402_FACILITATOR_TIMEOUT_MS: 4_000 });
    for (const f of [net.facilitator.facilitator, lossy.facilitator]) {
      f.onBeforeSettle(async () => {
        hook.settles++;
      });
      f.onAfterSettle(async () => {
        if (!hook.pauseStoreAfterSettle) return;
        proxy.pause();
        hook.paused?.();
      });
    }
  }, 120_000);
  afterAll(async () => {
    proxy?.resume();
    await lossy?.close();
    await rpc?.close();
    await stack?.close();
    await proxy?.close();
  });

  const buyerHeader = async (index: number) => {
    const buyer = net.chain.accounts[index]!;
    const signed = await signAuthorization(buyer, { payTo: net.payTo });
    const payload = v1Payload(signed);
    return { buyer, payload, header: b64(payload), key: { payer: buyer.address.toLowerCase(), nonce: signed.authorization.nonce.toLowerCase() } };
  };
  const balanceOf = (a: `0x${string}`) => net.chain.balanceOf(a);
  const reconcileAt = (offsetMs: number) =>
    reconcilePendingPayments({ ledger, chain: viemChainReader(net.chain.rpcUrl), now: () => new Date(Date.now() + offsetMs) });
  const salesFor = async (nonce: string) => (await ledger.salesOfMonth(new Date().toISOString().slice(0, 7))).filter((s) => s.nonce === nonce);
  const paidCall = (callId: string, timeLeftMs: () => number = () => 25_000): PaidCall => ({
    route: PRICE_ROUTE,
    resource: { path: '/v1/price/CL', url: `${stack.url}/v1/price/CL` },
    callId,
    requestId: callId,
    timeLeftMs,
  });
  const retry = (header: string) => getJson(stack.url, '/v1/price/CL', { headers: { 'X-PAYMENT': header } });

  it('killed between /settle and the settlement write: the retry is told to wait, reconciliation books the sale, the same header then gets the data once', async () => {
    const { buyer, payload, header, key } = await buyerHeader(2);
    const before = await balanceOf(buyer.address);
    const real = stack.services.payment.facilitator;
    let onChain: SettleResponse | undefined;
    let settled: () => void = () => undefined;
    const settledOnChain = new Promise<void>((resolve) => {
      settled = resolve;
    });
    // The process "dies" the moment /settle returns: nothing after it ever runs.
    const dying: FacilitatorClient = {
      verify: (p, r) => real.verify(p, r),
      getSupported: () => real.getSupported(),
      settle: async (p, r) => {
        onChain = await real.settle(p, r);
        settled();
        return new Promise<never>(() => undefined);
      },
    };
    const deps: PaymentDeps = { ...stack.services.payment, facilitator: dying };
    const outcome = await charge({ kind: 'x402', payload }, paidCall('killed-1'), deps);
    expect(outcome.type).toBe('granted');
    if (outcome.type !== 'granted') return;
    void settle(outcome.grant, deps);
    await settledOnChain;
    expect(onChain).toMatchObject({ success: true });
    expect(before - (await balanceOf(buyer.address))).toBe(10_000n);

    // The claim was watched from its first write: nothing else had to be written before /settle.
    expect(await ledger.get(key)).toMatchObject({ state: 'CLAIMED', watched: true });
    // The buyer retries at once: the money may have moved, so it is never told to sign anew.
    const early = await retry(header);
    expectError(early, 409, 'PAYMENT_IN_PROGRESS');
    expect(early.body.error.retryable).toBe(true);
    // A call may still be alive within the claim lifetime: reconciliation leaves it alone.
    expect((await reconcileAt(0)).settled.map((s) => s.nonce)).not.toContain(key.nonce);
    const report = await reconcileAt(CLAIM_LIFETIME_MS + 1_000);
    expect(report.settled.find((s) => s.nonce === key.nonce)?.transaction).toBe(onChain!.transaction);
    expect(await salesFor(key.nonce)).toEqual([expect.objectContaining({ amount: '10000', transaction: onChain!.transaction })]);

    const late = await retry(header);
    expect(late.status, JSON.stringify(late.body)).toBe(200);
    expect(late.body).toMatchObject({ instrument: 'CL' });
    expect(unb64(late.headers.get('x-payment-response'))).toMatchObject({ success: true, transaction: onChain!.transaction });
    expect(before - (await balanceOf(buyer.address))).toBe(10_000n); // paid once
    expectError(await retry(header), 402, 'INVALID_PAYMENT'); // delivered once
  });

  it.each([
    ['a 503', 'lose-503'],
    ['"already known"', 'lose-already-known'],
  ] as const)('the node takes the transfer but its answer to sendRawTransaction is lost (%s): 504, reconciled, then served once', async (_n, fault) => {
    const { buyer, payload, header, key } = await buyerHeader(3);
    const before = await balanceOf(buyer.address);
    rpc.sendFault = fault;
    let outcome: Awaited<ReturnType<typeof settle>> | undefined;
    try {
      const deps: PaymentDeps = { ...stack.services.payment, facilitator: lossyClient };
      const granted = await charge({ kind: 'x402', payload }, paidCall(`lost-${fault}`), deps);
      if (granted.type !== 'granted') throw new Error(`expected a grant, got ${granted.type}`);
      outcome = await settle(granted.grant, deps);
    } finally {
      rpc.sendFault = 'none';
    }
    // The facilitator answered success:false (transaction_failed) although the transfer was mined.
    expect(before - (await balanceOf(buyer.address))).toBe(10_000n);
    expect(outcome.type === 'refused' && outcome.refusal.error).toMatchObject({ statusCode: 504, code: 'SETTLEMENT_PENDING' });
    expect(await ledger.get(key)).toMatchObject({ state: 'PENDING', watched: true });
    expect((await reconcileAt(0)).settled.map((s) => s.nonce)).toContain(key.nonce);
    expect(await salesFor(key.nonce)).toHaveLength(1);
    const paid = await retry(header);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ instrument: 'CL' });
    expectError(await retry(header), 402, 'INVALID_PAYMENT');
  });

  it('the store stalls right after /settle (until a store call of the service times out): the settlement is written once the store answers, the buyer gets the data once', async () => {
    const { buyer, header, key } = await buyerHeader(4);
    const before = await balanceOf(buyer.address);
    const paused = new Promise<void>((resolve) => {
      hook.paused = resolve;
    });
    hook.pauseStoreAfterSettle = true; // the facilitator's after-settle hook pauses the store proxy
    const request = retry(header);
    await paused;
    hook.pauseStoreAfterSettle = false;
    hook.paused = undefined;
    expect(proxy.isPaused()).toBe(true);
    // The stall lasts until the service has given up on a store call (its settlement write timed out), however long that takes.
    const abandoned = proxy.abandoned();
    await until(() => proxy.abandoned() > abandoned);
    proxy.resumeDropping(); // what was written during the stall is lost
    const res = await request;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ instrument: 'CL' });
    const paid = unb64(res.headers.get('x-payment-response'));
    expect(before - (await balanceOf(buyer.address))).toBe(10_000n);
    expect(await ledger.get(key)).toMatchObject({ state: 'SETTLED', delivered: true, watched: false });
    expect(await salesFor(key.nonce)).toEqual([expect.objectContaining({ transaction: paid.transaction })]);
    // Nothing is left for reconciliation to reopen, and the same header is a spent payment.
    expect((await reconcileAt(CLAIM_LIFETIME_MS + 1_000)).settled.map((s) => s.nonce)).not.toContain(key.nonce);
    expectError(await retry(header), 402, 'INVALID_PAYMENT');
  }, 60_000);

  it('the store stalls at the claim: a retryable 503 (the store client gives up within its bounded attempts), nothing submitted, nothing charged', async () => {
    const { buyer, header, key } = await buyerHeader(5);
    const before = await balanceOf(buyer.address);
    const settlesBefore = hook.settles;
    proxy.pause();
    let res: Awaited<ReturnType<typeof getJson>>;
    try {
      res = await retry(header);
    } finally {
      proxy.resume();
    }
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect((res.body as any).error).toMatchObject({ code: 'PAYMENT_LEDGER_UNAVAILABLE', retryable: true });
    expect((res.body as any).instrument).toBeUndefined();
    expect(hook.settles).toBe(settlesBefore);
    expect(await balanceOf(buyer.address)).toBe(before);
    // A claim that timed out may still land once the store answers: it was never submitted, and
    // reconciliation does not submit it; once its window is over it is closed unpaid.
    await sleep(200);
    await reconcileAt(CLAIM_LIFETIME_MS + 1_000);
    await reconcileAt(10 * 60_000);
    expect(hook.settles).toBe(settlesBefore);
    expect(await balanceOf(buyer.address)).toBe(before);
    expect(await salesFor(key.nonce)).toEqual([]);
    expect(['UNPAID', undefined]).toContain((await ledger.get(key))?.state);
  }, 60_000);

  it('out of time before /settle: the payment is given back, not settled; the same header then pays once', async () => {
    const { buyer, payload, header, key } = await buyerHeader(6);
    const before = await balanceOf(buyer.address);
    const settlesBefore = hook.settles;
    // 3 s left is less than the settle call's own timeout (4 s here) plus its margin.
    const deps = stack.services.payment;
    const outcome = await charge(
      { kind: 'x402', payload },
      paidCall('late-1', () => 3_000),
      deps,
    );
    expect(outcome.type).toBe('granted');
    if (outcome.type !== 'granted') return;
    const settled = await settle(outcome.grant, deps);
    expect(settled.type === 'refused' && settled.refusal.error).toMatchObject({
      statusCode: 503,
      code: 'PAYMENT_NOT_SETTLED',
      details: { reason: 'out_of_time' },
    });
    expect(hook.settles).toBe(settlesBefore);
    expect(await ledger.get(key)).toMatchObject({ state: 'RELEASED' });
    expect(await balanceOf(buyer.address)).toBe(before);

    const paid = await retry(header);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(before - (await balanceOf(buyer.address))).toBe(10_000n);
    expect(await salesFor(key.nonce)).toHaveLength(1);
  });

  // Two of each fault: the volume (108 calls, two servers, proxies in front of every part) is two-process-faults.test.ts's.
  it('24 paid calls with every fault mixed in: none charged without data, each delivered at most once, sales equal the chain', async () => {
    type Fault =
      | 'none'
      | 'killed-after-settle'
      | 'facilitator-timeout'
      | 'store-down-at-claim'
      | 'store-down-after-settle'
      | 'store-ack-lost-after-settle'
      | 'facilitator-unreachable'
      | 'lost-send-503'
      | 'lost-send-already-known'
      | 'handler-error';
    const FAULTS: Fault[] = [
      'none',
      'killed-after-settle',
      'facilitator-timeout',
      'store-down-at-claim',
      'store-down-after-settle',
      'store-ack-lost-after-settle',
      'facilitator-unreachable',
      'lost-send-503',
      'lost-send-already-known',
      'handler-error',
      'none',
      'none',
    ];
    const realLedger = stack.services.payment.ledger;
    const background: Promise<unknown>[] = [];
    const payToBefore = await balanceOf(net.payTo);
    const calls: Array<{ key: { payer: string; nonce: string }; header: string; fault: Fault; served: boolean }> = [];

    for (let i = 0; i < 2 * FAULTS.length; i++) {
      const fault = FAULTS[i % FAULTS.length]!;
      const { header, payload, key } = await buyerHeader(2 + (i % 8));
      const sendFault: SendFault = fault === 'lost-send-503' ? 'lose-503' : fault === 'lost-send-already-known' ? 'lose-already-known' : 'none';
      let markDead: () => void = () => undefined;
      const died = new Promise<void>((resolve) => {
        markDead = resolve;
      });
      const facilitator: FacilitatorClient = {
        verify: (p, r) => lossyClient.verify(p, r),
        getSupported: () => lossyClient.getSupported(),
        settle: async (p, r) => {
          if (fault === 'facilitator-unreachable') throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
          rpc.sendFault = sendFault;
          const settling = lossyClient.settle(p, r).finally(() => {
            rpc.sendFault = 'none';
          });
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
      const faulty = Object.create(realLedger) as PaymentLedger;
      if (fault === 'store-down-at-claim') faulty.claim = async () => Promise.reject(new Error('store timeout'));
      if (fault === 'store-down-after-settle') faulty.settle = async () => Promise.reject(new Error('store timeout'));
      if (fault === 'store-ack-lost-after-settle') {
        let first = true;
        faulty.settle = async (...args) => {
          const done = await realLedger.settle(...args);
          if (first) {
            first = false;
            throw new Error('socket timeout (the write landed)');
          }
          return done;
        };
      }
      const deps: PaymentDeps = { ...stack.services.payment, facilitator, ledger: faulty };
      // A store that is down stays down for the rest of the request: its time runs out.
      let left = 25_000;
      const call = paidCall(`run-${i}`, () => left);
      const outcome = await charge({ kind: 'x402', payload }, call, deps);
      let served = false;
      if (outcome.type === 'granted') {
        if (fault === 'handler-error') {
          await release(outcome.grant, { kind: 'handler_threw' }, deps);
        } else if (fault === 'killed-after-settle') {
          void settle(outcome.grant, deps);
          await died; // the settlement it started reached the chain
        } else {
          if (fault === 'store-down-after-settle') {
            const down = faulty.settle;
            faulty.settle = async (...args) => {
              left = 500;
              return down(...args);
            };
          }
          served = (await settle(outcome.grant, deps)).type === 'settled';
        }
      } else {
        expect(fault, `call ${i}: ${outcome.type}`).toBe('store-down-at-claim');
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
    let deliveredOnRetry = 0;
    for (const c of calls) {
      const used = await chain.authorizationUsed(net.chain.asset, c.key.payer as `0x${string}`, c.key.nonce as `0x${string}`);
      const booked = sales.filter((s) => s.nonce === c.key.nonce);
      // Finance books exactly the payments the chain shows, once each, with the chain's transaction.
      expect(booked.length, `${c.fault} ${c.key.nonce}`).toBe(used ? 1 : 0);
      if (used) {
        charged++;
        const again = await retry(c.header);
        expect(booked[0]!.transaction).toBe(
          await chain.findAuthorizationTransaction(net.chain.asset, c.key.payer as `0x${string}`, c.key.nonce as `0x${string}`),
        );
        if (c.served) {
          // Delivered once: the same header is a spent payment.
          expect(again.status, `${c.fault}: served twice`).not.toBe(200);
        } else {
          // Charged without the data: the same header gets it now, and only now.
          expect(again.status, `${c.fault}: ${JSON.stringify(again.body)}`).toBe(200);
          expect(again.body).toMatchObject({ instrument: 'CL' });
          deliveredOnRetry++;
          expect((await retry(c.header)).status, `${c.fault}: delivered twice`).not.toBe(200);
        }
      } else {
        expect(c.served, `${c.fault}: served without payment`).toBe(false);
      }
    }
    expect(calls).toHaveLength(2 * FAULTS.length);
    expect((await balanceOf(net.payTo)) - payToBefore).toBe(BigInt(charged) * 10_000n);
    expect(sales.reduce((sum, s) => sum + BigInt(s.amount), 0n)).toBe(BigInt(charged) * 10_000n);
    // Each fault had its expected money outcome.
    const count = (f: Fault) => calls.filter((c) => c.fault === f).length;
    expect(charged).toBe(calls.length - count('store-down-at-claim') - count('facilitator-unreachable') - count('handler-error'));
    expect(deliveredOnRetry).toBe(
      count('killed-after-settle') +
        count('facilitator-timeout') +
        count('store-down-after-settle') +
        count('lost-send-503') +
        count('lost-send-already-known'),
    );
    expect(rpc.lost).toBeGreaterThanOrEqual(count('lost-send-503') + count('lost-send-already-known'));
  }, 240_000);
});
