/**
 * End to end on a Base-like local chain (a block every 2 s, X402_LOCAL_BLOCK_TIME=2): unmodified
 * official clients (@x402/fetch + @x402/evm's batch-settlement client scheme) pay hundreds of calls
 * to a server built from the batch lane (harness.ts), with deposits, top-ups and failed answers;
 * the settlement job claims and settles; chain and store agree to the atomic unit. A buyer whose
 * client restarts with no channel state recovers through the corrective 402 and pays on.
 */
import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment } from '@x402/fetch';
import { toClientEvmSigner } from '@x402/evm';
import { BatchSettlementEvmScheme, InMemoryClientChannelStorage } from '@x402/evm/batch-settlement/client';
import type { HDAccount } from 'viem';
import { BATCH_SETTLEMENT_ADDRESS } from '@x402/evm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalPaymentNetwork, type LocalPaymentNetwork } from '../../../infra/local/chain';
import { DynamoChannelStore } from '../../../shared/payment/batch/dynamo-channel-store';
import { viemEscrowReader } from '../../../shared/payment/batch/escrow-reader';
import { BATCH_REASON } from '../../../shared/payment/batch/lane';
import { createChannelManager, runBatchSettlement } from '../../../shared/payment/batch/settle-job';
import { salesOfMonth } from '../../../shared/payment/sales';
import { startTestStore, type TestStore } from '../../helpers/store';
import { startBatchHarness, type Harness } from './harness';
import { countingFacilitator, laneOn, readChannel, readReceiver } from './helpers';

let net: LocalPaymentNetwork;
let embedded: TestStore;
let store: DynamoChannelStore;
let harness: Harness;

beforeAll(async () => {
  [net, embedded] = await Promise.all([startLocalPaymentNetwork({ blockTime: 2 }), startTestStore({ STORE_TIMEOUT_MS: '20000' })]);
  store = new DynamoChannelStore(embedded.doc, embedded.config.CREDITS_TABLE);
  // A 1 USD deposit hint, so that 0.25 decision packs after 27 price calls (0.27 USD) need top-ups: the
  // third pack crosses 1 USD.
  harness = await startBatchHarness({ lane: laneOn(net, store, { config: { minDeposit: '1000000' } }).lane, network: net.chain.network, payTo: net.payTo });
}, 120_000);
afterAll(async () => {
  await harness?.close();
  await net?.close();
  await embedded?.close();
});

/** @x402/fetch with only the batch-settlement scheme registered (so it picks that option over exact). */
const officialFetch = (account: HDAccount, storage = new InMemoryClientChannelStorage()) =>
  wrapFetchWithPayment(
    fetch,
    new x402Client().register(net.chain.network, new BatchSettlementEvmScheme(toClientEvmSigner(account, net.chain.publicClient as never), { storage })),
  );

const settlementPass = () => {
  const facilitator = countingFacilitator(net.facilitator.url) as never;
  return runBatchSettlement({
    store,
    manager: createChannelManager(store, facilitator, { X402_NETWORK: net.chain.network, X402_PAY_TO: net.payTo }),
    escrow: viemEscrowReader(net.chain.publicClient),
    receiver: net.payTo,
    token: net.chain.asset,
    now: () => new Date(),
  });
};

const month = () => new Date().toISOString().slice(0, 7);

describe('batch lane end to end (official clients, 2 s blocks)', () => {
  const buyers = [2, 3, 4].map((i) => ({ index: i, storage: new InMemoryClientChannelStorage() }));
  const channelOf = new Map<number, string>();

  it('three buyers pay 96 calls (deposits, top-ups, 9 failed answers not charged); one claim and one settle; chain == store', async () => {
    const payTo0 = await net.chain.balanceOf(net.payTo);
    const receiver0 = await readReceiver(net);
    const spent0 = await Promise.all(buyers.map((b) => net.chain.balanceOf(net.chain.accounts[b.index]!.address)));

    const results = await Promise.all(
      buyers.map(async (b) => {
        const pay = officialFetch(net.chain.accounts[b.index]!, b.storage);
        const out = { ok: 0, failed: 0, deposits: 0 };
        // 35 calls a buyer (105 until issue 39: the same deposit, top-up and refusal paths, a third of the signatures).
        for (let n = 1; n <= 35; n++) {
          // 30 price calls (every 10th answers 503), then 5 decision packs at 0.25 that need a top-up.
          const path = n > 30 ? '/v1/decision/all' : n % 10 === 0 ? '/v1/price/CL?fail=1' : '/v1/price/CL';
          const res = await pay(`${harness.url}${path}`);
          await res.arrayBuffer();
          if (res.status === 200) {
            out.ok++;
            const receipt = decodePaymentResponseHeader(res.headers.get('payment-response')!);
            if (receipt.transaction) out.deposits++;
            channelOf.set(b.index, (receipt.extra as { channelState: { channelId: string } }).channelState.channelId);
          } else {
            expect(
              res.status,
              res.headers.get('payment-required') ? Buffer.from(res.headers.get('payment-required')!, 'base64').toString().slice(0, 300) : '',
            ).toBe(503);
            out.failed++;
          }
        }
        return out;
      }),
    );
    for (const r of results) {
      expect(r).toMatchObject({ ok: 32, failed: 3 });
      // The first deposit (1 USD, the server's hint) covers the price calls; the decision packs need top-ups.
      expect(r.deposits).toBeGreaterThanOrEqual(2);
    }

    const channelIds = [...channelOf.values()];
    const sales = (await salesOfMonth(embedded.doc, embedded.config.CREDITS_TABLE, month())).filter((s) => channelIds.includes(String(s.extra?.channel_id)));
    expect(sales).toHaveLength(96);
    const perBuyer = 27n * 10_000n + 5n * 250_000n; // SPEC.md: price 0.01 USD, decision pack 0.25
    const revenue = sales.reduce((t, s) => t + BigInt(s.amount), 0n);
    expect(revenue).toBe(3n * perBuyer);
    for (const id of channelIds) expect((await store.get(id))?.chargedCumulativeAmount).toBe(perBuyer.toString());

    const sent0 = await net.chain.publicClient.getTransactionCount({ address: net.facilitator.account.address });
    const report = await settlementPass();
    expect(report.claims).toHaveLength(1);
    expect(report.claims[0]!.vouchers).toBe(3);
    // The settlement is a mined escrow transaction paying out to our receiver, the only one of the pass.
    expect(report.settlements).toEqual([{ receiver: net.payTo, transaction: report.settle?.transaction }]);
    const settled = await net.chain.publicClient.getTransactionReceipt({ hash: report.settle!.transaction as `0x${string}` });
    expect(settled.status).toBe('success');
    expect(settled.to?.toLowerCase()).toBe(BATCH_SETTLEMENT_ADDRESS.toLowerCase());
    expect((await net.chain.publicClient.getTransactionCount({ address: net.facilitator.account.address })) - sent0).toBe(2);

    // Chain == store: claimed, settled and received equal the booked sales, to the atomic unit.
    const receiver = await readReceiver(net);
    expect(receiver.totalClaimed - receiver0.totalClaimed).toBe(revenue);
    expect(receiver.totalSettled - receiver0.totalSettled).toBe(revenue);
    expect((await net.chain.balanceOf(net.payTo)) - payTo0).toBe(revenue);
    const stamped = (await salesOfMonth(embedded.doc, embedded.config.CREDITS_TABLE, month())).filter((s) => channelIds.includes(String(s.extra?.channel_id)));
    expect(stamped.every((s) => s.transaction === report.claims[0]!.transaction)).toBe(true);
    // Each buyer's USDC left only into its channel; what is not claimed is still its own.
    for (const [i, b] of buyers.entries()) {
      const ch = await readChannel(net, channelOf.get(b.index)!);
      expect(ch.totalClaimed).toBe(perBuyer);
      expect(spent0[i]! - (await net.chain.balanceOf(net.chain.accounts[b.index]!.address))).toBe(ch.balance);
    }
  }, 240_000);

  it('a buyer whose client restarts without its channel state gets a corrective 402, recovers and pays on (charged once)', async () => {
    const b = buyers[0]!;
    const channelId = channelOf.get(b.index)!;
    // Charges the chain has not seen yet: a fresh client would start from the claimed total.
    const pay = officialFetch(net.chain.accounts[b.index]!, b.storage);
    for (let i = 0; i < 3; i++) expect((await pay(`${harness.url}/v1/price/CL`)).status).toBe(200);
    const charged = BigInt((await store.get(channelId))!.chargedCumulativeAmount);
    expect(charged).toBeGreaterThan((await readChannel(net, channelId)).totalClaimed);

    const seen = harness.statuses.length;
    const restarted = officialFetch(net.chain.accounts[b.index]!);
    const res = await restarted(`${harness.url}/v1/price/CL`);
    expect(res.status).toBe(200);
    // The unpaid probe, the voucher refused as a mismatch, the retry after recovery.
    expect(harness.statuses.slice(seen)).toEqual([402, 402, 200]);
    expect(BigInt((await store.get(channelId))!.chargedCumulativeAmount)).toBe(charged + 10_000n);
    expect(BATCH_REASON.mismatch).toBe('invalid_batch_settlement_evm_cumulative_amount_mismatch');
  }, 60_000);
});
