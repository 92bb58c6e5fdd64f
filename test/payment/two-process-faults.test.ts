/**
 * Issue 33's fault run: paid calls across the exact lane (settled first and deferred) and the
 * batch-settlement lane, on the local chain, through two server processes that share one store:
 * one in the test's process and one a child OS process (test/helpers/server-process.ts), each
 * with its own services (store client, facilitator client, lanes) built from its configuration.
 * Each reaches the store through its own loopback proxy that applies writes and loses their
 * answers; both reach the facilitator through a proxy that loses its answers after it acted, and
 * the facilitator reaches the chain node through a proxy that loses the node's answer to
 * eth_sendRawTransaction. The fault modes rotate across the calls; a buyer whose call got no data
 * sends the same request again (to the other process). At the end the reconciler, the deferred
 * settle worker and the batch settlement pass run, and then:
 *   charged without data = 0 (every charge on chain was delivered, at once or by re-sending the same request),
 *   each payment delivered at most once (a delivered exact payment is spent; a batch voucher sent
 *     again returns the bytes it paid for, never a second call),
 *   sales == on-chain transfers (exact) and claims (batch), to the atomic unit.
 */
import { decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, SettleResponse } from '@x402/core/types';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { LocalPaymentNetwork } from '../../infra/local/chain';
import { startLocalFacilitator, type LocalFacilitator } from '../../infra/local/chain/facilitator';
import { startLocalServer, type LocalServer } from '../../infra/local/server';
import type { LocalStack } from '../../infra/local/stack';
import { viemEscrowReader } from '../../shared/payment/batch/escrow-reader';
import { batchSettlementDeps, runBatchSettlement } from '../../shared/payment/batch/settle-job';
import { createFacilitatorClient } from '../../shared/payment/facilitator';
import { deferredWorkerDeps } from '../../shared/payment/exact/deferred-job';
import { DynamoDeferredLedger } from '../../shared/payment/exact/deferred-store';
import { runDeferredSettlement } from '../../shared/payment/exact/deferred-worker';
import { CLAIM_LIFETIME_MS, DynamoReconcileLedger } from '../../shared/payment/ledger';
import { reconcilePendingPayments, viemChainReader } from '../../shared/payment/reconcile';
import { createServices, type Services } from '../../shared/services';
import { createDocumentClient } from '../../shared/store/client';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy';
import { getJson, startTestStack, type JsonResponse } from '../helpers/stack';
import { startFacilitatorAnswerProxy, startStoreAnswerProxy, type AnswerProxy } from '../helpers/store-answer-proxy';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { until } from '../helpers/until';
import { officialBuyer, readChannel } from './batch/helpers';
import { b64, nowS, signAuthorization, v1Payload } from './helpers';

/** Settled before the data leaves: 0.02 USD, dearer than the deferral ceiling below. */
const SETTLE_FIRST_PATH = '/v1/history/CL';
/** 0.01 USD: an exact call here is answered first and settled by the worker; the batch lane pays here too. */
const CHEAP_PATH = '/v1/price/CL';

type Lane = 'exact-first' | 'exact-deferred' | 'batch';
type Mode =
  | 'none'
  /** The facilitator settled on chain; its answer is lost (connection reset, or held past the client's timeout). */
  | 'facilitator-settle-answer-lost'
  /** The node mined the transfer; its answer to eth_sendRawTransaction is lost (the facilitator sees a 503). */
  | 'chain-send-answer-lost'
  /** The facilitator verified; its answer is lost (nothing is charged by a verify). */
  | 'facilitator-verify-answer-lost'
  /** The store applied the lane's final write (settlement, deferral, commit); its answer is lost. */
  | 'store-write-answer-lost'
  /** The store applied the commit and holds its answer; the buyer gives up waiting and re-sends to the other server. */
  | 'commit-answer-held-buyer-resends';

/** One round of the rotation: every lane with every fault mode it has. */
const ROUND: ReadonlyArray<readonly [Lane, Mode]> = [
  ['exact-first', 'none'],
  ['exact-deferred', 'none'],
  ['batch', 'none'],
  ['exact-first', 'facilitator-settle-answer-lost'],
  ['batch', 'store-write-answer-lost'],
  ['exact-deferred', 'store-write-answer-lost'],
  ['exact-first', 'chain-send-answer-lost'],
  ['batch', 'commit-answer-held-buyer-resends'],
  ['exact-first', 'store-write-answer-lost'],
  ['exact-deferred', 'facilitator-verify-answer-lost'],
  ['batch', 'none'],
  ['exact-first', 'facilitator-verify-answer-lost'],
];
const ROUNDS = 9;
/** The store client's attempts per request (shared/store/client.ts maxAttempts). */
const STORE_CLIENT_ATTEMPTS = 3;

interface Call {
  i: number;
  lane: Lane;
  mode: Mode;
  path: string;
  /** The request as the buyer sends it (again). */
  headers: Record<string, string>;
  /** exact: the authorization; batch: the voucher's cumulative amount. */
  key: { payer: string; nonce: string } | { cumulative: string };
  price: bigint;
  first: JsonResponse;
  /** The answer that carried the data (the first, or a re-sent request's). */
  delivered?: JsonResponse;
  resentForData: boolean;
}

let stack: LocalStack;
let net: LocalPaymentNetwork;
let rpc: RpcProxy;
let facilitator: LocalFacilitator;
let facilitatorProxy: AnswerProxy;
let storeProxies: AnswerProxy[];
let services: Services;
let local: LocalServer;
let child: ServerProcess;
/** The two processes' addresses: [this process's server, the child's]. */
let servers: string[];
/** From spawning the child to its first answer. */
let childStartMs: number;

beforeAll(async () => {
  stack = await startTestStack({
    X402_ENFORCE: '1',
    X402_LOCAL_CHAIN: '1',
    X402_DEFER_MAX_USD: '0.01',
    X402_MAX_TIMEOUT_SECONDS: '300',
  });
  net = stack.payments!;
  rpc = await startRpcProxy(net.chain.rpcUrl);
  // The official facilitator logic on the same chain and keys, reaching its node through the RPC proxy.
  facilitator = await startLocalFacilitator({ ...net.chain, rpcUrl: rpc.url });
  facilitatorProxy = await startFacilitatorAnswerProxy(facilitator.url);
  storeProxies = [await startStoreAnswerProxy(stack.storeEndpoint), await startStoreAnswerProxy(stack.storeEndpoint)];
  // Two servers, each with its own services over its own store connection (as two Lambda instances
  // have): one here, one a child process given the same configuration but its own store proxy.
  const config = (i: number) => ({
    ...stack.config,
    DYNAMODB_ENDPOINT: storeProxies[i]!.endpoint,
    STORE_TIMEOUT_MS: 400,
    X402_FACILITATOR_URL: facilitatorProxy.endpoint,
    X402_FACILITATOR_TIMEOUT_MS: 2_000,
  });
  services = createServices(config(0));
  local = await startLocalServer(services, 0);
  const spawned = Date.now();
  child = await startServerProcess(config(1));
  childStartMs = Date.now() - spawned;
  servers = [local.url, child.url];
}, 300_000);
afterAll(async () => {
  await child?.close();
  await local?.close();
  services?.doc?.destroy();
  for (const p of storeProxies ?? []) await p.close();
  await facilitatorProxy?.close();
  await facilitator?.close();
  await rpc?.close();
  await stack?.close();
});

/** The data of a paid answer (both routes answer the instrument they were asked for). */
const hasData = (r?: JsonResponse) => r?.status === 200 && (r.body as { instrument?: string })?.instrument === 'CL';

describe('two server processes, one store, lossy store, facilitator and chain: 108 paid calls across the exact and batch lanes', () => {
  it('charges nobody without data, delivers each payment at most once, and books exactly what the chain moved', async () => {
    onTestFailed(() => console.error(`server process ${child.pid} output:\n${child.output()}`));
    const started = Date.now();
    const month = new Date().toISOString().slice(0, 7);
    const doc = createDocumentClient(stack.config);
    const finance = new DynamoReconcileLedger(doc, stack.config.CREDITS_TABLE);
    const payToBefore = await net.chain.balanceOf(net.payTo);
    const batchBuyer = officialBuyer(net, net.chain.accounts[7]!, { depositMultiplier: 50 });
    const batchOffer = (await getJson(servers[0]!, CHEAP_PATH)).body as PaymentRequired;
    expect(batchOffer.accepts.map((a) => a.scheme)).toEqual(['exact', 'batch-settlement']);
    const calls: Call[] = [];

    const send = (server: number, path: string, headers: Record<string, string>, signal?: AbortSignal) =>
      getJson(servers[server]!, path, { headers, ...(signal ? { signal } : {}) });

    for (let i = 0; i < ROUND.length * ROUNDS; i++) {
      const [lane, mode] = ROUND[i % ROUND.length]!;
      const round = Math.floor(i / ROUND.length);
      // Each round swaps the processes, so that every lane meets every fault mode in both.
      const here = (i + round) % 2;
      const there = 1 - here;
      const path = lane === 'exact-first' ? SETTLE_FIRST_PATH : CHEAP_PATH;
      const price = lane === 'exact-first' ? 20_000n : 10_000n;
      // The reset loses an answer at once; in every fourth round a lost settlement or write is held
      // past the client's timeout instead (a lost verify is the same either way: nothing charged).
      const how = round % 4 === 3 && mode !== 'facilitator-verify-answer-lost' ? 'hold' : 'reset';
      // A retry of an applied write succeeds at the store (the same ClientRequestToken), so in two
      // rounds of four (one on each process) a reset write loses the answer of each of the client's
      // attempts: the write throws, and the lane's own recovery must find out what happened.
      const lostWriteAnswers = round % 4 === 1 || round % 4 === 2 ? STORE_CLIENT_ATTEMPTS : 1;
      let headers: Record<string, string>;
      let key: Call['key'];
      let payload: PaymentPayload | undefined;
      if (lane === 'batch') {
        payload = await batchBuyer.pay(batchOffer);
        headers = { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload) };
        key = { cumulative: String((payload.payload as { voucher: { maxClaimableAmount: string } }).voucher.maxClaimableAmount) };
      } else {
        // Four buyers, so that no payer reaches the deferral caps.
        const buyer = net.chain.accounts[2 + ((i + Math.floor(i / ROUND.length)) % 4)]!;
        const signed = await signAuthorization(buyer, { payTo: net.payTo, value: price, validBefore: nowS() + 240n });
        headers = { 'X-PAYMENT': b64(v1Payload(signed)) };
        key = { payer: buyer.address.toLowerCase(), nonce: signed.authorization.nonce.toLowerCase() };
      }

      if (mode === 'facilitator-settle-answer-lost') facilitatorProxy.loseNext('settle', 1, how);
      if (mode === 'facilitator-verify-answer-lost') facilitatorProxy.loseNext('verify', 1, how);
      if (mode === 'chain-send-answer-lost') rpc.sendFault = 'lose-503';
      if (mode === 'store-write-answer-lost') storeProxies[here]!.loseNext('TransactWriteItems', lostWriteAnswers, how);
      let first: JsonResponse;
      let delivered: JsonResponse | undefined;
      let resentForData = false;
      if (mode === 'commit-answer-held-buyer-resends') {
        // The commit is applied and its answer held; the buyer gives up waiting as soon as the
        // write landed (as it would at API Gateway's cut at 29 s).
        const silent = storeProxies[here]!;
        const landed = silent.lost.TransactWriteItems ?? 0;
        const gaveUp = new AbortController();
        silent.dropping.add('TransactWriteItems');
        let answered = false;
        const waiting = send(here, path, headers, gaveUp.signal)
          .catch((err: unknown) => ({ status: 0, headers: new Headers(), body: String(err) }))
          .finally(() => {
            answered = true;
          });
        // (An answer before any commit landed, a refusal, ends the wait too: the checks below judge it.)
        await until(() => answered || (silent.lost.TransactWriteItems ?? 0) > landed, 10);
        gaveUp.abort();
        first = await waiting;
        // The same request, to the other server: the data it paid for.
        delivered = await send(there, path, headers);
        resentForData = true;
        silent.dropping.clear();
      } else {
        first = await send(here, path, headers);
      }
      rpc.sendFault = 'none';
      if (hasData(first)) delivered = first;
      if (lane === 'batch' && delivered) {
        // What @x402/fetch does with the answer: the client's channel state follows the receipt.
        const receipt = delivered.headers.get('payment-response');
        if (receipt) await batchBuyer.answer(payload!, { settleResponse: decodePaymentResponseHeader(receipt) as SettleResponse });
      }
      calls.push({ i, lane, mode, path, headers, key, price, first, resentForData, ...(delivered ? { delivered } : {}) });
    }
    const callsDone = Date.now();

    // The backstops: the deferred worker settles what was answered first; the reconciler books what
    // the chain shows for every settlement whose outcome was lost; the batch pass claims the vouchers.
    // (A claim of dozens of vouchers takes longer than one call's facilitator timeout: the jobs have their own.)
    const payment = {
      ...services.payment,
      facilitator: createFacilitatorClient({ X402_FACILITATOR_URL: facilitatorProxy.endpoint, X402_FACILITATOR_TIMEOUT_MS: 20_000 }),
    };
    const chain = viemChainReader(net.chain.rpcUrl);
    const worker = deferredWorkerDeps(payment, chain)!;
    /** Deferred passes until none is left: a settlement whose answer a pass did not get is asked of the chain once its lease ran out. */
    const settleDeferred = async () => {
      for (let round = 0; round < 6; round++) {
        const later = () => new Date(Date.now() + round * (worker.leaseMs + 1_000));
        const deferred = new DynamoDeferredLedger(doc, stack.config.CREDITS_TABLE, later);
        // One at a time: the local facilitator sends from one account and cannot overlap two settlements.
        if ((await runDeferredSettlement({ ...worker, owner: `fault-run-${round}`, now: later, deferred }, 1)).found === 0) return;
      }
      throw new Error('deferred claims left after six passes');
    };
    await settleDeferred();
    await reconcilePendingPayments({
      ledger: finance,
      chain,
      facilitator: payment.facilitator,
      now: () => new Date(Date.now() + CLAIM_LIFETIME_MS + 1_000),
    });
    const pass = await runBatchSettlement(
      batchSettlementDeps({
        config: stack.config,
        doc: services.doc!,
        facilitator: payment.facilitator,
        now: () => new Date(),
        escrow: viemEscrowReader(net.chain.publicClient),
      }),
    );
    expect(pass.claimFailures).toEqual([]);
    const backstopsDone = Date.now();

    // Exact: the chain says who paid, and finance booked exactly those, once each.
    const sales = (await finance.salesOfMonth(month)).filter((s) => calls.some((c) => 'nonce' in c.key && c.key.nonce === s.nonce));
    const exactCalls = calls.filter((x) => x.lane !== 'batch');
    const keyOf = (c: Call) => c.key as { payer: Hex; nonce: Hex };
    const usedOnChain = (c: Call) => chain.authorizationUsed(net.chain.asset, keyOf(c).payer, keyOf(c).nonce);
    const used = await Promise.all(exactCalls.map(usedOnChain));
    exactCalls.forEach((c, n) => {
      const booked = sales.filter((s) => s.nonce === keyOf(c).nonce);
      expect(booked.length, `call ${c.i} (${c.lane}, ${c.mode}): booked ${booked.length}, used on chain ${used[n]}`).toBe(used[n] ? 1 : 0);
      // Its words say only what is known: a buyer who was charged is never told it was not.
      if (used[n] && !c.delivered)
        expect(JSON.stringify(c.first.body), `call ${c.i} (${c.lane}, ${c.mode})`).not.toMatch(/nothing (was|is) charged|not charged/i);
    });
    // Every call without data, charged or not, gets it by sending the same request again (paid now if it was not before).
    let chargedWithoutData = 0;
    for (const [n, c] of exactCalls.entries()) {
      if (c.delivered) continue;
      const again = await send((c.i + 1) % 2, c.path, c.headers);
      expect(hasData(again), `call ${c.i} (${c.lane}, ${c.mode}) re-sent: ${again.status} ${JSON.stringify(again.body).slice(0, 300)}`).toBe(true);
      c.delivered = again;
      c.resentForData = true;
      if (used[n]) chargedWithoutData++;
    }
    await settleDeferred();
    await until(async () => (await Promise.all(exactCalls.map(usedOnChain))).every(Boolean));
    // Delivered once: the same request after its data is a spent payment.
    for (const c of exactCalls) {
      const spent = await send(c.i % 2, c.path, c.headers);
      expect(spent.status, `call ${c.i} (${c.lane}, ${c.mode}) sent after its data: ${JSON.stringify(spent.body).slice(0, 300)}`).toBe(402);
    }
    const exactCharged = exactCalls.reduce((t, c) => t + c.price, 0n);

    const exactDone = Date.now();
    // Batch: each voucher committed once. Sent again, the channel's last voucher returns the answer it
    // paid for (the same bytes) and an earlier one is refused: never a second call, never a second sale.
    const batchSales = (await finance.salesOfMonth(month)).filter((s) => s.lane === 'x402-batch');
    const batchCalls = calls.filter((c) => c.lane === 'batch');
    let replayed = 0;
    for (const c of batchCalls) {
      const { cumulative } = c.key as { cumulative: string };
      expect(hasData(c.delivered), `batch call ${c.i} (${c.mode}): ${c.first.status} ${JSON.stringify(c.first.body).slice(0, 300)}`).toBe(true);
      expect(
        batchSales.filter((s) => s.extra?.cumulative_amount === cumulative),
        `batch call ${c.i}`,
      ).toHaveLength(1);
      const again = await send((c.i + 1) % 2, c.path, c.headers);
      if (again.status === 200) {
        expect(again.body).toEqual(c.delivered!.body);
        replayed++;
      } else {
        expect(again.status, `batch call ${c.i} sent again`).toBe(402);
      }
    }
    expect(replayed).toBe(1); // the last voucher only
    expect((await finance.salesOfMonth(month)).filter((s) => s.lane === 'x402-batch')).toHaveLength(batchCalls.length);
    expect(batchSales).toHaveLength(batchCalls.length);
    const channelId = String(batchSales[0]!.extra?.channel_id);
    const batchRevenue = batchSales.reduce((t, s) => t + BigInt(s.amount), 0n);
    expect(batchRevenue).toBe(BigInt(batchCalls.length) * 10_000n);

    // Sales == chain to the atomic unit: exact transfers reached the pay-to address, batch vouchers were claimed on the channel.
    const exactSales = (await finance.salesOfMonth(month)).filter(
      (s) => s.lane !== 'x402-batch' && calls.some((c) => 'nonce' in c.key && c.key.nonce === s.nonce),
    );
    expect(exactSales.reduce((t, s) => t + BigInt(s.amount), 0n)).toBe(exactCharged);
    expect((await readChannel(net, channelId)).totalClaimed).toBe(batchRevenue);
    expect(pass.settlements).toHaveLength(1);
    expect((await net.chain.balanceOf(net.payTo)) - payToBefore).toBe(exactCharged + batchRevenue);

    // Every fault mode happened, and what it did to the buyer.
    const count = (lane: Lane, mode: Mode) => calls.filter((c) => c.lane === lane && c.mode === mode).length;
    expect(facilitatorProxy.lost.settle ?? 0).toBeGreaterThanOrEqual(count('exact-first', 'facilitator-settle-answer-lost'));
    expect(facilitatorProxy.lost.verify ?? 0).toBeGreaterThanOrEqual(count('exact-first', 'facilitator-verify-answer-lost'));
    expect(rpc.lost).toBeGreaterThanOrEqual(count('exact-first', 'chain-send-answer-lost'));
    const lostWrites = storeProxies.reduce((n, p) => n + (p.lost.TransactWriteItems ?? 0), 0);
    expect(lostWrites).toBeGreaterThanOrEqual(ROUNDS * 4);
    const resent = calls.filter((c) => c.resentForData);
    const summary = {
      calls: calls.length,
      perLane: {
        exactFirst: calls.filter((c) => c.lane === 'exact-first').length,
        exactDeferred: calls.filter((c) => c.lane === 'exact-deferred').length,
        batch: batchCalls.length,
      },
      resentForData: resent.length,
      chargedWithoutDataBeforeResend: chargedWithoutData,
      chargedWithoutData: 0,
      lost: { settle: facilitatorProxy.lost.settle, verify: facilitatorProxy.lost.verify, send: rpc.lost, storeWrites: lostWrites },
      childStartMs,
      callsMs: callsDone - started,
      backstopsMs: backstopsDone - callsDone,
      exactChecksMs: exactDone - backstopsDone,
      totalMs: Date.now() - started,
    };
    console.info('two-process fault run', JSON.stringify(summary));
    expect(calls.length).toBeGreaterThanOrEqual(100);
  }, 600_000);
});
