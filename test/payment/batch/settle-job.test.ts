/**
 * The batch settlement job on the local chain and the embedded store: claims and settlement move
 * exactly the revenue the store booked (chain == store to the atomic unit, per claim transaction),
 * a pass interrupted between an on-chain claim and the store update is finished by the next one
 * from chain state (no second claim transaction, no sale left unstamped), idle channels are
 * refunded cooperatively, and a payer's withdrawal completes after its delay with what was charged
 * claimed first.
 */
import type { PaymentRequirements } from '@x402/core/types';
import { BATCH_SETTLEMENT_ADDRESS } from '@x402/evm';
import { createWalletClient, getAddress, http, type Address, type HDAccount } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLocalPaymentNetwork, type LocalPaymentNetwork } from '../../../infra/local/chain';
import { DEV_MNEMONIC, localBaseSepolia } from '../../../infra/local/chain/chain';
import { ensureTables } from '../../../infra/local/embedded-store';
import type { BatchChannelStore, StoredChannel } from '../../../shared/payment/batch/channel-store';
import { DynamoChannelStore } from '../../../shared/payment/batch/dynamo-channel-store';
import { type EscrowReader, viemEscrowReader } from '../../../shared/payment/batch/escrow-reader';
import { BATCH_REASON, type BatchPaymentOption } from '../../../shared/payment/batch/lane';
import { batchSettlementDeps, createChannelManager, runBatchSettlement } from '../../../shared/payment/batch/settle-job';
import type { SaleRecord } from '../../../shared/payment/sales';
import { salesOfMonth } from '../../../shared/payment/sales';
import { startTestStore, type TestStore } from '../../helpers/store';
import { callOf, laneOn, officialBuyer, paymentRequiredFor, PRICE_ROUTE, readChannel, readReceiver } from './helpers';

/** A store that fails the first write raising a channel's claimed total (the crash between claim and store update). */
class CrashingStore extends DynamoChannelStore {
  armed = false;
  override async updateChannel(id: string, update: (c: StoredChannel | undefined) => StoredChannel | undefined) {
    return super.updateChannel(id, (cur) => {
      const next = update(cur);
      if (this.armed && cur && next && BigInt(next.totalClaimed) > BigInt(cur.totalClaimed)) {
        this.armed = false;
        throw new Error('crash between the on-chain claim and the store update');
      }
      return next;
    });
  }
}

/** Runs a hook once, after the first listing its predicate picks has been read (a write between listing and acting on it). */
class ListingStore extends CrashingStore {
  hook?: { at: (snapshot: StoredChannel[]) => boolean; run: () => Promise<void> };
  override async list() {
    const snapshot = await super.list();
    if (this.hook?.at(snapshot)) {
      const { run } = this.hook;
      this.hook = undefined;
      await run();
    }
    return snapshot;
  }
}

/** A buyer of its own (a development-mnemonic account past the chain's ten, given 10 USDC): a channel no other test touched. */
let freshAccounts = 0;
const freshBuyer = async () => {
  const account = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 20 + ++freshAccounts });
  await net.chain.transfer(net.chain.accounts[2]!, account.address, 10_000_000n);
  return account;
};

let net: LocalPaymentNetwork;
let embedded: TestStore;
beforeAll(async () => {
  [net, embedded] = await Promise.all([startLocalPaymentNetwork(), startTestStore({ STORE_TIMEOUT_MS: '20000' })]);
  net.facilitator.facilitator.onBeforeSettle(async ({ paymentPayload }) => {
    const p = paymentPayload.payload as { type?: string; claims?: Array<{ voucher: { channel: { payer: string } } }> };
    if (p.type === 'claim' && p.claims?.some((c) => poisoned.has(c.voucher.channel.payer.toLowerCase())))
      return { abort: true as const, reason: 'claim refused (test: a poisoned channel)' };
  });
});
afterAll(async () => {
  await net?.close();
  await embedded?.close();
});

/** Each test: fresh tables (its own prefix), the receiver's books start from what is already on chain. */
let store: ListingStore;
let creditsTable = '';
let tables = 0;
beforeEach(async () => {
  const credits = `credits-job-${++tables}-${Date.now()}`;
  await ensureTables(embedded.embedded.endpoint, { observations: embedded.config.OBSERVATIONS_TABLE, credits });
  creditsTable = credits;
  store = new ListingStore(embedded.doc, credits);
});

const jobClock = { offsetMs: 0, now: () => new Date(Date.now() + jobClock.offsetMs) };

/** One pass as the Lambda runs it (batchSettlementDeps), over the test's store and a clock the test can move. */
type Manager = ReturnType<typeof createChannelManager>;
const run = async (
  s: BatchChannelStore = store,
  opts: { idleRefundSeconds?: number; payTo?: Address; escrow?: EscrowReader; wrapManager?: (m: Manager) => Manager; warnings?: Array<[string, unknown]> } = {},
) => {
  const wrap = opts.wrapManager ?? ((m: Manager) => m);
  const facilitator = laneOn(net, s).facilitator as never;
  const config = { X402_NETWORK: net.chain.network, X402_PAY_TO: opts.payTo ?? net.payTo, X402_RPC_URL: net.chain.rpcUrl, CREDITS_TABLE: 'unused' };
  const deps = batchSettlementDeps({
    config,
    doc: embedded.doc,
    facilitator,
    now: jobClock.now,
    escrow: opts.escrow ?? viemEscrowReader(net.chain.publicClient),
  });
  return runBatchSettlement({
    ...deps,
    store: s,
    manager: wrap(createChannelManager(s, facilitator, config)),
    managerFor: (receiver) => wrap(createChannelManager(s, facilitator, { ...config, X402_PAY_TO: receiver })),
    ...(opts.idleRefundSeconds !== undefined ? { idleRefundSeconds: opts.idleRefundSeconds } : {}),
    ...(opts.warnings ? { log: { warn: (message: string, detail: unknown) => opts.warnings!.push([message, detail]), info: () => {} } } : {}),
  });
};

/** Payers whose claims the facilitator refuses (a channel whose claim keeps failing). */
const poisoned = new Set<string>();

/** Buyers paying `calls` calls each through the lane (deposit first), as the official client does. */
const pay = async (accountIndexes: Array<number | HDAccount>, calls: number, s: BatchChannelStore = store) => {
  const env = laneOn(net, s, { config: { minDeposit: '1000000' } });
  const option = env.lane.offer(PRICE_ROUTE, '/v1/price/CL');
  const required = paymentRequiredFor(option, net);
  const buyers = accountIndexes.map((i) => officialBuyer(net, typeof i === 'number' ? net.chain.accounts[i]! : i));
  const channelIds = new Set<string>();
  for (let n = 0; n < calls; n++) {
    for (const buyer of buyers) {
      const payload = await buyer.pay(required);
      const auth = await env.lane.authorize(payload, payload.accepted, callOf());
      if (!auth.ok) throw new Error(`refused: ${auth.reason} ${auth.message}`);
      channelIds.add(auth.grant.channelId);
      const done = await env.lane.commit(auth.grant);
      if (!done.ok) throw new Error(`commit refused: ${done.reason}`);
      await buyer.answer(payload, { settleResponse: done.receipt });
    }
  }
  return { ...env, option, required, buyers, channelIds: [...channelIds] };
};

const facilitatorTransactions = () => net.chain.publicClient.getTransactionCount({ address: net.facilitator.account.address });
const batchSales = async (channelIds: string[]): Promise<SaleRecord[]> =>
  (await salesOfMonth(embedded.doc, creditsTable, new Date().toISOString().slice(0, 7))).filter((x) => channelIds.includes(String(x.extra?.channel_id)));
const sum = (xs: SaleRecord[]) => xs.reduce((t, x) => t + BigInt(x.amount), 0n);

/** Sum of each claim transaction's Claimed deltas for these channels, from the chain's logs. */
const claimedByTransaction = async (channelIds: string[], fromBlock: bigint) => {
  const events = await viemEscrowReader(net.chain.publicClient).claimEvents(channelIds, fromBlock, await net.chain.publicClient.getBlockNumber());
  const last = new Map<string, bigint>();
  const byTx = new Map<string, bigint>();
  for (const e of events) {
    byTx.set(e.transaction, (byTx.get(e.transaction) ?? 0n) + e.totalClaimed - (last.get(e.channelId) ?? 0n));
    last.set(e.channelId, e.totalClaimed);
  }
  return byTx;
};

describe('batch settlement job', () => {
  it('claims and settles exactly what the store booked: chain == store to the atomic unit, every sale stamped with its claim', async () => {
    const block0 = await net.chain.publicClient.getBlockNumber();
    const receiver0 = await readReceiver(net);
    const payTo0 = await net.chain.balanceOf(net.payTo);
    const { channelIds } = await pay([2, 3], 4);
    const sent0 = await facilitatorTransactions();

    const report = await run();
    expect(report.claims).toHaveLength(1);
    expect(report.claims[0]!.vouchers).toBe(2);
    expect(report.settle?.transaction).toMatch(/^0x/);
    // One claim and one settle for eight paid calls.
    expect((await facilitatorTransactions()) - sent0).toBe(2);

    const sales = await batchSales(channelIds);
    expect(sales).toHaveLength(8);
    const revenue = sum(sales);
    expect(revenue).toBe(80_000n);
    const receiver = await readReceiver(net);
    expect(receiver.totalClaimed - receiver0.totalClaimed).toBe(revenue);
    expect(receiver.totalSettled - receiver0.totalSettled).toBe(revenue);
    expect((await net.chain.balanceOf(net.payTo)) - payTo0).toBe(revenue);
    // Each claim transaction's on-chain deltas equal the sales stamped with it.
    const byTx = await claimedByTransaction(channelIds, block0);
    expect([...byTx.keys()]).toEqual([report.claims[0]!.transaction]);
    for (const [tx, amount] of byTx) expect(sum(sales.filter((x) => x.transaction === tx))).toBe(amount);
    expect(await store.openSales()).toEqual([]);
    for (const id of channelIds) expect((await store.get(id))?.totalClaimed).toBe((await readChannel(net, id)).totalClaimed.toString());

    // Nothing new: the next pass sends nothing.
    const sent1 = await facilitatorTransactions();
    expect((await run()).claims).toEqual([]);
    expect(await facilitatorTransactions()).toBe(sent1);
  });

  it('a crash between the on-chain claim and the store update: the next pass takes the claim from the chain, never claims again, stamps every sale', async () => {
    const payTo0 = await net.chain.balanceOf(net.payTo);
    const { channelIds } = await pay([4], 3);
    const sent0 = await facilitatorTransactions();
    store.armed = true;
    // The pass goes on; the channel's failure is recorded on it with its reason.
    const failed = await run();
    expect(failed.claimFailures).toEqual([
      expect.objectContaining({ channelId: channelIds[0], reason: expect.stringMatching(/crash between the on-chain claim/) }),
    ]);
    expect((await store.get(channelIds[0]!))?.claimFailure).toMatchObject({ attempts: 1, reason: expect.stringMatching(/crash/) });
    // The claim is on chain; the store does not know it.
    expect((await readChannel(net, channelIds[0]!)).totalClaimed).toBe(30_000n);
    expect((await store.get(channelIds[0]!))?.totalClaimed).toBe('0');
    // The claim, and the settle of what the chain holds claimed (the pass went on).
    expect((await facilitatorTransactions()) - sent0).toBe(2);
    // The next pass runs minutes later: blocks have been mined since the claim.
    for (let i = 0; i < 3; i++) await net.chain.mine();

    const report = await run();
    expect(report.recovered).toBe(1);
    expect(report.claims).toEqual([]);
    // The recovery pass sends nothing: no second claim.
    expect((await facilitatorTransactions()) - sent0).toBe(2);
    expect((await store.get(channelIds[0]!))?.claimFailure).toBeUndefined();
    const sales = await batchSales(channelIds);
    expect(sales.map((x) => x.transaction)).toEqual(Array(3).fill(expect.stringMatching(/^0x[0-9a-f]{64}$/)));
    expect(new Set(sales.map((x) => x.transaction)).size).toBe(1);
    expect((await net.chain.balanceOf(net.payTo)) - payTo0).toBe(sum(sales));
    expect(await store.openSales()).toEqual([]);
  });

  it('a claim whose facilitator answer is lost after it was mined is recovered the same way', async () => {
    const { channelIds } = await pay([5], 2);
    let drop = true;
    net.facilitator.facilitator.onAfterSettle(async ({ paymentPayload }) => {
      if (drop && (paymentPayload.payload as { type?: string }).type === 'claim') {
        drop = false;
        throw new Error('answer lost');
      }
    });
    expect((await run()).claimFailures).toEqual([expect.objectContaining({ channelId: channelIds[0] })]);
    expect((await readChannel(net, channelIds[0]!)).totalClaimed).toBe(20_000n);
    const sent = await facilitatorTransactions();
    const report = await run();
    expect(report.recovered).toBe(1);
    expect(report.claims).toEqual([]);
    // The settle went out in the failing pass: nothing is sent again.
    expect((await facilitatorTransactions()) - sent).toBe(0);
    const sales = await batchSales(channelIds);
    expect(sales.every((x) => x.transaction.startsWith('0x'))).toBe(true);
  });

  it('one channel whose claim keeps failing stops only itself; after the pay-to address moved, the channels of the old receiver are still claimed and settled to it; sales stamped in the pass that claims them', async () => {
    const { channelIds, buyers, option } = await pay([8, 9], 2);
    const [bad, good] = channelIds as [string, string];
    const oldReceiver = net.payTo;
    const movedTo = net.chain.accounts[0]!.address;
    const receiver0 = await readReceiver(net, oldReceiver);
    const payTo0 = await net.chain.balanceOf(oldReceiver);
    poisoned.add(buyers[0]!.account.address.toLowerCase());
    // An RPC whose logs lag: the claims this pass makes are not in its event reads.
    const lagging: EscrowReader = { ...viemEscrowReader(net.chain.publicClient), claimEvents: async () => [] };

    const warnings: Array<[string, unknown]> = [];
    const first = await run(store, { payTo: movedTo, escrow: lagging, warnings });
    // Both channels went in one claim, which the bad one failed: why is logged before each is claimed alone.
    expect(warnings[0]).toEqual([
      expect.stringMatching(/batch claim failed/),
      expect.objectContaining({ channels: 2, reason: expect.stringMatching(/poisoned/) }),
    ]);
    // The bad channel: recorded with its reason, retried later; the good one claimed and settled to the receiver it was opened to.
    expect(first.claimFailures).toEqual([expect.objectContaining({ channelId: bad, attempts: 1, reason: expect.stringMatching(/poisoned/) })]);
    const failure = (await store.get(bad))?.claimFailure;
    expect(failure?.retryAt).toBeGreaterThan(jobClock.now().getTime());
    expect(first.claims.map((c) => c.vouchers)).toEqual([1]);
    expect((await readChannel(net, good)).totalClaimed).toBe(20_000n);
    expect((await readChannel(net, bad)).totalClaimed).toBe(0n);
    expect(first.settlements).toEqual([expect.objectContaining({ receiver: oldReceiver, transaction: expect.stringMatching(/^0x/) })]);
    const receiver1 = await readReceiver(net, oldReceiver);
    expect(receiver1.totalSettled - receiver0.totalSettled).toBe(20_000n);
    expect((await net.chain.balanceOf(oldReceiver)) - payTo0).toBe(20_000n);
    // Stamped in this pass, though the event reads saw nothing; the finance record names the receiver paid.
    const goodSales = await batchSales([good]);
    expect(goodSales.map((x) => x.transaction)).toEqual([first.claims[0]!.transaction, first.claims[0]!.transaction]);
    expect(goodSales.every((x) => x.payTo === getAddress(oldReceiver))).toBe(true);
    expect((await store.openSales()).map((o) => o.channelId)).toEqual([bad, bad]);

    // Within its backoff the failing channel is not tried again (nothing sent for it), even once it would succeed.
    poisoned.clear();
    const sent = await facilitatorTransactions();
    const second = await run(store, { payTo: movedTo });
    expect(second.claims).toEqual([]);
    expect(second.claimsDeferred).toBe(1);
    expect(await facilitatorTransactions()).toBe(sent);

    // Its payer starts a withdrawal: the next pass claims it at once, backoff or not.
    const buyer = buyers[0]!;
    const config = buyer.scheme.buildChannelConfig(option as unknown as PaymentRequirements);
    const payer = createWalletClient({ account: buyer.account, chain: localBaseSepolia(net.chain.rpcUrl), transport: http(net.chain.rpcUrl) });
    const escrow = { address: BATCH_SETTLEMENT_ADDRESS as Address, abi: net.chain.contracts.LocalBatchSettlement.abi } as const;
    const { balance } = await readChannel(net, bad);
    await net.chain.publicClient.waitForTransactionReceipt({
      hash: await payer.writeContract({ ...escrow, functionName: 'initiateWithdraw', args: [config, balance] } as never),
    });
    const third = await run(store, { payTo: movedTo });
    expect(third.claims.map((c) => c.vouchers)).toEqual([1]);
    expect((await readChannel(net, bad)).totalClaimed).toBe(20_000n);
    expect((await store.get(bad))?.claimFailure).toBeUndefined();
    expect(await store.openSales()).toEqual([]);
    expect((await readReceiver(net, oldReceiver)).totalSettled - receiver0.totalSettled).toBe(40_000n);
  });

  it('a refund fences its channel: a voucher sent while the refund is under way is refused, nothing is charged that the refund cannot claim', async () => {
    const env = await pay([await freshBuyer()], 2);
    const channelId = env.channelIds[0]!;
    let midRefund: unknown;
    jobClock.offsetMs = 25 * 3600_000;
    const report = await run(store, {
      wrapManager: (m) =>
        ({
          claim: (o: Parameters<Manager['claim']>[0]) => m.claim(o),
          settle: () => m.settle(),
          refund: async (ids?: string[]) => {
            // The buyer comes back just as the refund starts.
            const payload = await env.buyers[0]!.pay(env.required);
            midRefund = await env.lane.authorize(payload, payload.accepted, callOf());
            return m.refund(ids);
          },
        }) as unknown as Manager,
    }).finally(() => {
      jobClock.offsetMs = 0;
    });
    expect(midRefund).toMatchObject({ ok: false, reason: BATCH_REASON.busy });
    expect(report.refunds).toHaveLength(1);
    expect(await readChannel(net, channelId)).toEqual({ balance: 20_000n, totalClaimed: 20_000n });
    expect(sum(await batchSales([channelId]))).toBe(20_000n);
  });

  it('a voucher committed between the listing and the fence cancels the refund (the channel is not idle any more)', async () => {
    const env = await pay([await freshBuyer()], 1);
    const channelId = env.channelIds[0]!;
    // The voucher lands after the refund step's listing: the first one that shows the channel claimed.
    store.hook = {
      at: (snapshot) => snapshot.some((c) => c.channelId === channelId && c.totalClaimed === '10000'),
      run: async () => {
        const payload = await env.buyers[0]!.pay(env.required);
        const auth = await env.lane.authorize(payload, payload.accepted, callOf());
        if (!auth.ok) throw new Error(`refused: ${auth.reason}`);
        const done = await env.lane.commit(auth.grant);
        if (!done.ok) throw new Error(`commit refused: ${done.reason}`);
        await env.buyers[0]!.answer(payload, { settleResponse: done.receipt });
      },
    };
    jobClock.offsetMs = 25 * 3600_000;
    const report = await run().finally(() => {
      jobClock.offsetMs = 0;
    });
    expect(store.hook).toBeUndefined();
    expect(report.refunds).toEqual([]);
    const kept = await store.get(channelId);
    expect(kept?.chargedCumulativeAmount).toBe('20000');
    expect(kept?.closingUntil).toBeUndefined();
    // The channel keeps taking vouchers.
    const payload = await env.buyers[0]!.pay(env.required);
    expect((await env.lane.authorize(payload, payload.accepted, callOf())).ok).toBe(true);
  });

  it('the claim cursor stays while a sale the chain claimed is not stamped (its claim event not in the range read), and the next pass stamps it', async () => {
    const { channelIds } = await pay([await freshBuyer()], 3);
    const lagging: EscrowReader = { ...viemEscrowReader(net.chain.publicClient), claimEvents: async () => [] };
    const cursor0 = await store.jobCursor();
    store.armed = true;
    const first = await run(store, { escrow: lagging });
    expect(first.claimFailures).toHaveLength(1);
    expect((await readChannel(net, channelIds[0]!)).totalClaimed).toBe(30_000n);
    expect(first.open).toBe(3);
    expect(first.cursor).toBe(cursor0 ?? first.cursor);
    expect(await store.jobCursor()).toBe(first.cursor);

    for (let i = 0; i < 3; i++) await net.chain.mine();
    const second = await run();
    expect(second.open).toBe(0);
    const sales = await batchSales(channelIds);
    expect(sales.map((x) => x.transaction)).toEqual(Array(3).fill(expect.stringMatching(/^0x[0-9a-f]{64}$/)));
  });

  it('refunds an idle channel cooperatively: charged is claimed, the rest goes back, and the returning buyer recovers and deposits again', async () => {
    const env = await pay([6], 2);
    const channelId = env.channelIds[0]!;
    const buyer = env.buyers[0]!;
    const { balance } = await readChannel(net, channelId);
    const before = await net.chain.balanceOf(buyer.account.address);

    jobClock.offsetMs = 25 * 3600_000;
    const report = await run().finally(() => {
      jobClock.offsetMs = 0;
    });
    expect(report.refunds.map((r) => r.channel.toLowerCase())).toEqual([channelId]);
    // The claim step claims what was charged; the refund then returns the rest.
    expect(report.claims).toHaveLength(1);
    expect((await net.chain.balanceOf(buyer.account.address)) - before).toBe(balance - 20_000n);
    expect(await readChannel(net, channelId)).toEqual({ balance: 20_000n, totalClaimed: 20_000n });
    expect(await store.get(channelId)).toBeUndefined();
    const sales = await batchSales([channelId]);
    expect(sales).toHaveLength(2);
    expect(new Set(sales.map((x) => x.transaction))).toEqual(new Set([report.claims[0]!.transaction]));

    // The buyer comes back with its old view of the channel (balance 1 USD): the lane answers with a
    // corrective 402, the official client re-reads the chain, then deposits again.
    const payload = await buyer.pay(env.required);
    const refused = await env.lane.authorize(payload, payload.accepted, callOf());
    expect(refused).toMatchObject({ ok: false, reason: BATCH_REASON.mismatch });
    const corrective = !refused.ok ? refused.requirements! : (undefined as never);
    const recovered = await buyer.answer(payload, {
      paymentRequired: paymentRequiredFor(corrective as BatchPaymentOption, net, PRICE_ROUTE, '/v1/price/CL', refused.ok ? '' : refused.reason),
    });
    expect(recovered).toEqual({ recovered: true });
    const retry = await buyer.pay(env.required);
    expect((retry.payload as { type: string }).type).toBe('deposit');
    const auth = await env.lane.authorize(retry, retry.accepted, callOf());
    expect(auth.ok).toBe(true);
    if (!auth.ok) throw new Error(auth.reason);
    expect((await env.lane.commit(auth.grant)).ok).toBe(true);
    expect((await store.get(channelId))?.chargedCumulativeAmount).toBe('30000');
  });

  it("a payer's withdrawal: the job claims what was charged, and after the delay the payer gets the rest", async () => {
    const env = await pay([7], 3);
    const channelId = env.channelIds[0]!;
    const buyer = env.buyers[0]!;
    const config = buyer.scheme.buildChannelConfig(env.option as unknown as PaymentRequirements);
    const payer = createWalletClient({ account: buyer.account, chain: localBaseSepolia(net.chain.rpcUrl), transport: http(net.chain.rpcUrl) });
    const escrow = { address: BATCH_SETTLEMENT_ADDRESS as Address, abi: net.chain.contracts.LocalBatchSettlement.abi } as const;
    const { balance } = await readChannel(net, channelId);
    // The payer asks for all that is not claimed yet, which is the whole balance (nothing claimed).
    await net.chain.publicClient.waitForTransactionReceipt({
      hash: await payer.writeContract({ ...escrow, functionName: 'initiateWithdraw', args: [config, balance] } as never),
    });

    const report = await run();
    expect(report.claims[0]?.vouchers).toBe(1);
    expect((await store.get(channelId))?.withdrawRequestedAt).toBeGreaterThan(0);
    // The lane sees the withdrawal in its mirror and takes no more vouchers.
    const payload = await buyer.pay(env.required);
    expect(await env.lane.authorize(payload, payload.accepted, callOf())).toMatchObject({ ok: false, reason: BATCH_REASON.withdrawalPending });

    await net.chain.increaseTime(86_400);
    const before = await net.chain.balanceOf(buyer.account.address);
    await net.chain.publicClient.waitForTransactionReceipt({
      hash: await payer.writeContract({ ...escrow, functionName: 'finalizeWithdraw', args: [config] } as never),
    });
    expect((await net.chain.balanceOf(buyer.account.address)) - before).toBe(balance - 30_000n);
    expect(await readChannel(net, channelId)).toEqual({ balance: 30_000n, totalClaimed: 30_000n });
    expect(sum(await batchSales([channelId]))).toBe(30_000n);
  });
});
