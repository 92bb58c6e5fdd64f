/**
 * Issue 33's money hole: the batch lane's commit whose store answer is lost. The store (embedded
 * dynalite) sits behind a proxy that applies writes and drops their answers; two "processes" (two
 * payment cores with their own store clients, facilitator clients and lanes) share it; the buyer
 * is the official batch-settlement client on the local chain. Whatever the store does with the
 * commit's acknowledgement, a buyer is never charged without receiving the data: a lost answer is
 * recovered inside the request when the store comes back in time, and otherwise the call answers
 * "may have been charged" and the same request sent again (on either process) gets the data it
 * paid for, once, with nothing charged again.
 */
import { randomUUID } from 'node:crypto';
import type { PaymentPayload, SettleResponse } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalPaymentNetwork, type LocalPaymentNetwork } from '../../../infra/local/chain';
import { loadConfig } from '../../../shared/config';
import { DynamoChannelLane, DynamoChannelStore } from '../../../shared/payment/batch/dynamo-channel-store';
import { viemEscrowReader } from '../../../shared/payment/batch/escrow-reader';
import { batchSettlementDeps, runBatchSettlement } from '../../../shared/payment/batch/settle-job';
import { charge, settle } from '../../../shared/payment/charge';
import { createFacilitatorClient } from '../../../shared/payment/facilitator';
import type { PaidCall, PaymentDeps } from '../../../shared/payment/lane';
import { MemoryPaymentLedger } from '../../../shared/payment/memory-ledger';
import { paymentRequiredFor as challengeOf } from '../../../shared/payment/payment-required';
import { salesOfMonth } from '../../../shared/payment/sales';
import { MemoryCreditLedger } from '../../../shared/pro/memory-credit-ledger';
import { createDocumentClient } from '../../../shared/store/client';
import { startStoreAnswerProxy, type StoreAnswerProxy } from '../../helpers/store-answer-proxy';
import { startTestStore, type TestStore } from '../../helpers/store';
import { officialBuyer, PRICE_ROUTE, readChannel } from './helpers';

let net: LocalPaymentNetwork;
let embedded: TestStore;
let proxy: StoreAnswerProxy;
let processes: PaymentDeps[];

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const PATH = '/v1/price/CL';

/** One server process: its own store client (through the proxy, 1 s per attempt), facilitator client and lane. */
const aProcess = (): PaymentDeps => {
  const config = loadConfig({
    ...net.env,
    X402_ENFORCE: '1',
    OBSERVATIONS_TABLE: embedded.config.OBSERVATIONS_TABLE,
    CREDITS_TABLE: embedded.config.CREDITS_TABLE,
    AWS_REGION: 'us-east-1',
  });
  const doc = createDocumentClient({ DYNAMODB_ENDPOINT: proxy.endpoint, AWS_REGION: 'us-east-1', STORE_TIMEOUT_MS: 1_000 });
  return {
    config,
    ledger: new MemoryPaymentLedger(() => new Date()),
    credits: new MemoryCreditLedger(),
    facilitator: createFacilitatorClient(config),
    stores: { 'x402-exact': { deferred: null }, 'x402-batch': new DynamoChannelLane(doc, embedded.config.CREDITS_TABLE) },
    now: () => new Date(),
    log: quiet,
  };
};

beforeAll(async () => {
  net = await startLocalPaymentNetwork();
  embedded = await startTestStore();
  proxy = await startStoreAnswerProxy(embedded.config.DYNAMODB_ENDPOINT!);
  processes = [aProcess(), aProcess()];
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await embedded?.close();
  await net?.close();
});

const paidCall = (budgetMs: number): PaidCall => {
  const deadline = Date.now() + budgetMs;
  const id = randomUUID();
  return { route: PRICE_ROUTE, resource: { path: PATH, url: `http://127.0.0.1${PATH}` }, callId: id, requestId: id, timeLeftMs: () => deadline - Date.now() };
};

/** What a server answers, as the transport would store it: the data and the receipt. */
interface Answer {
  data: string;
  settlement: SettleResponse;
}

/**
 * One request to one process: charge, "handler" (the data names the request), settle. The answer
 * a replay returns is the one stored at commit.
 */
const request = async (deps: PaymentDeps, payload: PaymentPayload, budgetMs: number, beforeSettle: () => void = () => undefined) => {
  const call = paidCall(budgetMs);
  const outcome = await charge({ kind: 'x402', payload }, call, deps);
  if (outcome.type === 'replay') return { kind: 'data' as const, replay: true, answer: JSON.parse(Buffer.from(outcome.answer).toString('utf8')) as Answer };
  if (outcome.type !== 'granted') return { kind: 'refused' as const, outcome };
  const data = `price of CL for ${call.requestId}`;
  beforeSettle();
  const settled = await settle(outcome.grant, deps, (receipt) => Buffer.from(JSON.stringify({ data, settlement: receipt.settlement })));
  if (settled.type === 'refused') return { kind: 'refused' as const, outcome: settled };
  return { kind: 'data' as const, replay: false, answer: { data, settlement: settled.receipt.settlement as SettleResponse } };
};

describe('batch lane: a commit whose store answer is lost', () => {
  it('never charges without data: recovered in the request, or the same request sent again (either process) gets the data once', async () => {
    const buyer = officialBuyer(net, net.chain.accounts[7]!);
    const required = await challengeOf(paidCall(10_000), processes[0]!);
    const delivered = new Map<string, string>(); // cumulative -> the data the buyer received for it
    const pendingAnswers: string[] = [];
    let replays = 0;

    // 7 calls: the first opens the channel; then a lost commit answer the store comes back from within
    // the request, a store silent past the request's budget, and no fault, in turn, on alternating
    // processes (each fault twice: once on each process, its replay on the other).
    for (let i = 0; i < 7; i++) {
      const payload = await buyer.pay(required as never);
      const cumulative = String((payload.payload as { voucher: { maxClaimableAmount: string } }).voucher.maxClaimableAmount);
      const here = processes[i % 2]!;
      const there = processes[(i + 1) % 2]!;
      const mode = i === 0 ? 'none' : (['none', 'recovered', 'silent'] as const)[i % 3]!;
      let answered: Awaited<ReturnType<typeof request>>;
      if (mode === 'recovered') {
        // The commit's write is applied and the store answers nothing for 4 s, longer than the store
        // client's three attempts (1 s each), then answers again while the request still has time.
        const lostBefore = proxy.lost.TransactWriteItems ?? 0;
        let lifted: ReturnType<typeof setTimeout> | undefined;
        const watch = setInterval(() => {
          if (lifted || (proxy.lost.TransactWriteItems ?? 0) === lostBefore) return;
          lifted = setTimeout(() => proxy.dropping.clear(), 4_000);
        }, 5);
        answered = await request(here, payload, 20_000, () => {
          for (const op of ['TransactWriteItems', 'GetItem', 'PutItem']) proxy.dropping.add(op);
        });
        clearInterval(watch);
        clearTimeout(lifted);
        proxy.dropping.clear();
        expect(answered.kind).toBe('data');
      } else if (mode === 'silent') {
        // Applied, then nothing answers until the request's budget is spent.
        answered = await request(here, payload, 6_000, () => {
          for (const op of ['TransactWriteItems', 'GetItem', 'PutItem']) proxy.dropping.add(op);
        });
        proxy.dropping.clear();
        expect(answered.kind).toBe('refused');
        const error = answered.kind === 'refused' && answered.outcome.type === 'refused' ? answered.outcome.refusal.error : undefined;
        // Only what is known: it may have been charged; the same request again.
        expect(error).toMatchObject({ statusCode: 503, retryable: true, details: { reason: 'payment_outcome_unknown' } });
        expect(error?.message).toMatch(/may have been charged/);
        expect(error?.message).not.toMatch(/nothing was charged/);
        pendingAnswers.push(cumulative);
        // The same request again, on the other process: the data it paid for, nothing charged again.
        answered = await request(there, payload, 20_000);
        expect(answered).toMatchObject({ kind: 'data', replay: true });
        replays++;
        // Sent once more: the same bytes, never a second, fresher call.
        const again = await request(here, payload, 20_000);
        expect(again.kind === 'data' && again.answer).toEqual(answered.kind === 'data' && answered.answer);
      } else {
        answered = await request(here, payload, 20_000);
      }
      if (answered.kind !== 'data') throw new Error(`call ${i} (${mode}) refused: ${JSON.stringify(answered.outcome)}`);
      expect(delivered.has(cumulative)).toBe(false);
      delivered.set(cumulative, answered.answer.data);
      await buyer.answer(payload, { settleResponse: answered.answer.settlement });
    }

    // The store's sales are exactly the calls whose data the buyer holds: charged without data 0.
    const month = new Date().toISOString().slice(0, 7);
    const sales = (await salesOfMonth(embedded.doc, embedded.config.CREDITS_TABLE, month)).filter((s) => s.lane === 'x402-batch');
    const charged = sales.map((s) => String(s.extra?.cumulative_amount));
    expect(charged.filter((c) => !delivered.has(c))).toEqual([]);
    expect(charged.sort()).toEqual([...delivered.keys()].sort());
    // The channel's charged amount is what the sales add up to (each call charged once).
    const channelId = String(sales[0]!.extra?.channel_id);
    const channel = await new DynamoChannelStore(embedded.doc, embedded.config.CREDITS_TABLE).get(channelId);
    expect(BigInt(channel!.chargedCumulativeAmount)).toBe(sales.reduce((t, s) => t + BigInt(s.amount), 0n));
    expect(replays).toBe(pendingAnswers.length);
    expect(replays).toBe(2);
    expect(proxy.lost.TransactWriteItems ?? 0).toBeGreaterThanOrEqual(4);

    // The settlement pass claims exactly what was sold: chain == store to the atomic unit, every sale stamped.
    const facilitator = createFacilitatorClient(processes[0]!.config);
    const pass = await runBatchSettlement(
      batchSettlementDeps({
        config: processes[0]!.config,
        doc: embedded.doc,
        facilitator,
        now: () => new Date(),
        escrow: viemEscrowReader(net.chain.publicClient),
      }),
    );
    expect(pass.claimFailures).toEqual([]);
    const revenue = sales.reduce((t, s) => t + BigInt(s.amount), 0n);
    expect((await readChannel(net, channelId)).totalClaimed).toBe(revenue);
    const stamped = (await salesOfMonth(embedded.doc, embedded.config.CREDITS_TABLE, month)).filter((s) => s.lane === 'x402-batch');
    expect(new Set(stamped.map((s) => s.transaction))).toEqual(new Set([pass.claims[0]!.transaction]));
  }, 240_000);
});
