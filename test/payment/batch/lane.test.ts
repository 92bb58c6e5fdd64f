/**
 * The batch lane's money rules on the local chain: ganache with the escrow look-alike, the
 * official facilitator scheme behind loopback HTTP, payloads made by the official client scheme
 * (or signed by hand with real EIP-712 signatures where a test needs a voucher no honest client
 * sends). The channel store is the in-memory fake; the DynamoDB store runs the same lane below.
 */
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { BATCH_SETTLEMENT_ADDRESS } from '@x402/evm';
import { createWalletClient, http } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalPaymentNetwork, type LocalPaymentNetwork } from '../../../infra/local/chain';
import { localBaseSepolia } from '../../../infra/local/chain/chain';
import type { BatchChannelStore } from '../../../shared/payment/batch/channel-store';
import { DynamoChannelStore } from '../../../shared/payment/batch/dynamo-channel-store';
import { BATCH_REASON, createBatchLane, offer, type BatchGrant } from '../../../shared/payment/batch/lane';
import { MemoryChannelStore } from '../../../shared/payment/batch/memory-channel-store';
import { salesOfMonth } from '../../../shared/payment/sales';
import { createDocumentClient } from '../../../shared/store/client';
import { startTestStore, type TestStore } from '../../helpers/store';
import { callOf, DECISION_ROUTE, handVoucher, laneConfigFor, laneOn, officialBuyer, paymentRequiredFor, PRICE_ROUTE, readChannel } from './helpers';

let net: LocalPaymentNetwork;
beforeAll(async () => {
  net = await startLocalPaymentNetwork();
});
afterAll(async () => net?.close());

/** A buyer with a funded channel: the official client's first call (a deposit) paid and committed. */
const openChannel = async <S extends BatchChannelStore = MemoryChannelStore>(accountIndex: number, store: S = new MemoryChannelStore() as unknown as S) => {
  // A 1 USD deposit hint: small numbers to reason about in the money rules.
  const env = laneOn(net, store, { config: { minDeposit: '1000000' } });
  const option = env.lane.offer(PRICE_ROUTE, '/v1/price/CL');
  const required = paymentRequiredFor(option, net);
  const buyer = officialBuyer(net, net.chain.accounts[accountIndex]!);
  const payload = await buyer.pay(required);
  const auth = await env.lane.authorize(payload, payload.accepted, callOf());
  if (!auth.ok) throw new Error(`deposit refused: ${auth.reason} ${auth.message}`);
  const done = await env.lane.commit(auth.grant);
  if (!done.ok) throw new Error(`deposit commit refused: ${done.reason}`);
  await buyer.answer(payload, { settleResponse: done.receipt });
  return { ...env, store, option, required, buyer, channelId: auth.grant.channelId, first: done.receipt };
};

/** One call the way @x402/fetch makes it: pay, authorize, commit, and the client's hook reads the answer. */
const paidCall = async (ch: Awaited<ReturnType<typeof openChannel<BatchChannelStore>>>) => {
  const payload = await ch.buyer.pay(ch.required);
  const auth = await ch.lane.authorize(payload, payload.accepted, callOf());
  if (!auth.ok) return auth;
  const done = await ch.lane.commit(auth.grant);
  if (done.ok) await ch.buyer.answer(payload, { settleResponse: done.receipt });
  return done;
};

describe('batch lane: the offer', () => {
  it('is the exact option of the route with the batch-settlement scheme and the channel terms', () => {
    const config = laneConfigFor(net);
    const option = offer(DECISION_ROUTE, '/v1/decision/all', config);
    expect(option).toMatchObject({
      scheme: 'batch-settlement',
      network: 'eip155:84532',
      amount: '250000',
      maxAmountRequired: '250000',
      asset: net.chain.asset,
      payTo: net.payTo,
      resource: '/v1/decision/all',
      extra: {
        name: 'USDC',
        version: '2',
        receiverAuthorizer: net.facilitator.receiverAuthorizer.address,
        withdrawDelay: 86_400,
        assetTransferMethod: 'eip3009',
      },
    });
    // The deposit hint is at least one call and otherwise the configured floor (default 5 USD, the official client's default cap).
    expect(option.extra.minDeposit).toBe('5000000');
    expect(offer(DECISION_ROUTE, '/v1/decision/all', { ...config, minDeposit: '1000' }).extra.minDeposit).toBe('250000');
  });
});

describe('batch lane: paid calls with the official client', () => {
  it('first call: the deposit goes on chain at commit, the voucher counts, one sale is booked', async () => {
    const ch = await openChannel(2);
    expect(ch.first).toMatchObject({ success: true, payer: net.chain.accounts[2]!.address, extra: { chargedAmount: '10000' } });
    expect(ch.first.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    // The client deposits the server's hint: the escrow holds it, nothing is claimed yet.
    expect(await readChannel(net, ch.channelId)).toEqual({ balance: 1_000_000n, totalClaimed: 0n });
    expect((ch.first.extra as { channelState: { chargedCumulativeAmount: string } }).channelState.chargedCumulativeAmount).toBe('10000');
    expect(ch.store.sales()).toEqual([
      expect.objectContaining({ lane: 'x402-batch', amount: '10000', transaction: '', route: PRICE_ROUTE.id, path: '/v1/price/CL' }),
    ]);
  });

  it('repeat calls are checked locally: no facilitator call, no transaction, +price per call', async () => {
    const ch = await openChannel(3);
    const calls = { ...ch.facilitator.calls };
    const block = await net.chain.publicClient.getBlockNumber();
    for (let i = 0; i < 5; i++) expect((await paidCall(ch)).ok).toBe(true);
    expect(ch.facilitator.calls).toEqual(calls);
    expect(await net.chain.publicClient.getBlockNumber()).toBe(block);
    expect((await ch.store.get(ch.channelId))?.chargedCumulativeAmount).toBe('60000');
    expect(ch.store.sales().reduce((s, x) => s + BigInt(x.amount), 0n)).toBe(60_000n);
  });
});

describe('batch lane: money rules', () => {
  it('a voucher beyond the deposit is refused (corrective 402 with the channel state), nothing is charged', async () => {
    const ch = await openChannel(4);
    // Balance 1 USD, charged 0.01: a voucher for the whole balance plus one call is one call too many.
    const payload = await handVoucher(net, ch.buyer, ch.option, 1_000_000n + 10_000n);
    const before = await ch.store.get(ch.channelId);
    // With the right base the over-spend is refused for the balance; the base check comes first otherwise.
    await ch.store.updateChannel(ch.channelId, (c) => c && { ...c, chargedCumulativeAmount: '1000000' });
    const auth = await ch.lane.authorize(payload, payload.accepted, callOf());
    expect(auth).toMatchObject({ ok: false, status: 402, reason: BATCH_REASON.mismatch, message: expect.stringContaining(BATCH_REASON.exceedsBalance) });
    expect(!auth.ok && auth.requirements?.extra.channelState).toMatchObject({ balance: '1000000', chargedCumulativeAmount: '1000000' });
    expect((await ch.store.get(ch.channelId))?.pendingRequest).toBeUndefined();
    await ch.store.updateChannel(ch.channelId, () => before);
    expect(ch.store.sales()).toHaveLength(1);
  });

  it('vouchers only grow, by exactly one price: a replayed, lower or skipping voucher is refused', async () => {
    const ch = await openChannel(5);
    expect((await paidCall(ch)).ok).toBe(true); // charged 20000
    for (const cumulative of [20_000n, 10_000n, 40_000n]) {
      const payload = await handVoucher(net, ch.buyer, ch.option, cumulative);
      const auth = await ch.lane.authorize(payload, payload.accepted, callOf());
      expect(auth).toMatchObject({ ok: false, reason: BATCH_REASON.mismatch });
      // The corrective 402 proves the charged amount with the buyer's own last voucher.
      expect(!auth.ok && auth.requirements?.extra).toMatchObject({
        channelState: { chargedCumulativeAmount: '20000' },
        voucherState: { signedMaxClaimable: '20000' },
      });
    }
    expect((await ch.store.get(ch.channelId))?.chargedCumulativeAmount).toBe('20000');
  });

  it('a voucher priced for a cheaper route does not pay a dearer one', async () => {
    const ch = await openChannel(6);
    const dear = ch.lane.offer(DECISION_ROUTE, '/v1/decision/all');
    const payload = await handVoucher(net, ch.buyer, ch.option, 20_000n); // +0.01, the price route's price
    const auth = await ch.lane.authorize(
      { ...payload, accepted: dear as unknown as PaymentRequirements },
      dear as unknown as PaymentRequirements,
      callOf('/v1/decision/all', DECISION_ROUTE),
    );
    expect(auth).toMatchObject({ ok: false, reason: BATCH_REASON.mismatch });
  });

  it('one voucher pays one call: the same voucher twice at once gets one reservation; once committed it no longer matches', async () => {
    const ch = await openChannel(7);
    const payload = await ch.buyer.pay(ch.required);
    const [a, b] = await Promise.all([ch.lane.authorize(payload, payload.accepted, callOf()), ch.lane.authorize(payload, payload.accepted, callOf())]);
    const granted = [a, b].filter((r) => r.ok);
    expect(granted).toHaveLength(1);
    expect([a, b].find((r) => !r.ok)).toMatchObject({ reason: BATCH_REASON.busy });
    const done = await ch.lane.commit((granted[0] as { grant: BatchGrant }).grant);
    expect(done.ok).toBe(true);
    expect(await ch.lane.authorize(payload, payload.accepted, callOf())).toMatchObject({ ok: false, reason: BATCH_REASON.mismatch });
    expect(ch.store.sales()).toHaveLength(2);
  });

  it('an error answer is not charged: release leaves the charged amount, books nothing, and the same voucher pays the retry', async () => {
    const ch = await openChannel(8);
    const payload = await ch.buyer.pay(ch.required);
    const auth = await ch.lane.authorize(payload, payload.accepted, callOf());
    expect(auth.ok).toBe(true);
    await ch.lane.release((auth as { grant: BatchGrant }).grant, 'handler_failed');
    expect(await ch.store.get(ch.channelId)).toMatchObject({ chargedCumulativeAmount: '10000', pendingRequest: undefined });
    expect(ch.store.sales()).toHaveLength(1);
    const retry = await ch.lane.authorize(payload, payload.accepted, callOf());
    expect(retry.ok).toBe(true);
    expect((await ch.lane.commit((retry as { grant: BatchGrant }).grant)).ok).toBe(true);
    expect((await ch.store.get(ch.channelId))?.chargedCumulativeAmount).toBe('20000');
  });

  it('a reservation whose request died expires: the channel is usable again, and the dead request cannot commit', async () => {
    const ch = await openChannel(9);
    const payload = await ch.buyer.pay(ch.required);
    const dead = await ch.lane.authorize(payload, payload.accepted, callOf());
    expect(dead.ok).toBe(true);
    expect(await ch.lane.authorize(payload, payload.accepted, callOf())).toMatchObject({ ok: false, reason: BATCH_REASON.busy });
    ch.clock.advance(31_000);
    const next = await ch.lane.authorize(payload, payload.accepted, callOf());
    expect(next.ok).toBe(true);
    expect((await ch.lane.commit((next as { grant: BatchGrant }).grant)).ok).toBe(true);
    expect(await ch.lane.commit((dead as { grant: BatchGrant }).grant)).toMatchObject({ ok: false, reason: BATCH_REASON.busy });
    expect((await ch.store.get(ch.channelId))?.chargedCumulativeAmount).toBe('20000');
    expect(ch.store.sales()).toHaveLength(2);
  });

  it("a commit retried after its write was lost, that finds a later voucher committed since, says 'may have been charged', never 'nothing charged'", async () => {
    const ch = await openChannel(6);
    const payload = await ch.buyer.pay(ch.required);
    const mine = await ch.lane.authorize(payload, payload.accepted, callOf());
    if (!mine.ok) throw new Error(`refused: ${mine.reason}`);
    const charged = BigInt(mine.grant.cumulative);
    const change = ch.store.change.bind(ch.store);
    let lost = false;
    ch.store.change = async (id, update, seed) => {
      const done = await change(id, update, seed);
      if (lost) return done;
      lost = true;
      // The write landed; before its answer comes back, the buyer's next voucher is committed (the mark of ours is gone).
      const next = await handVoucher(net, ch.buyer, ch.option, charged + 10_000n);
      const theirs = await ch.lane.authorize(next, next.accepted, callOf());
      if (!theirs.ok) throw new Error(`the next voucher was refused: ${theirs.reason}`);
      expect((await ch.lane.commit(theirs.grant)).ok).toBe(true);
      throw new Error('socket hang up (the write landed)');
    };
    const done = await ch.lane.commit(mine.grant);
    expect(done).toMatchObject({ ok: false, status: 503, reason: BATCH_REASON.outcomeUnknown });
    expect((done as { message: string }).message).not.toMatch(/nothing was charged/);
    expect(ch.store.sales().map((s) => s.extra?.cumulative_amount)).toEqual(['10000', String(charged), String(charged + 10_000n)]);
  });

  it("a late release of an expired request leaves the newer request's reservation alone", async () => {
    const ch = await openChannel(8);
    const payload = await ch.buyer.pay(ch.required);
    const late = await ch.lane.authorize(payload, payload.accepted, callOf());
    ch.clock.advance(31_000);
    const next = await ch.lane.authorize(payload, payload.accepted, callOf());
    if (!late.ok || !next.ok) throw new Error('both reservations are granted in turn');
    // The expired request answers an error after all and releases what it held.
    await ch.lane.release(late.grant, 'handler_error');
    expect((await ch.store.get(ch.channelId))?.pendingRequest?.pendingId).toBe(next.grant.pendingId);
    expect(await ch.lane.authorize(payload, payload.accepted, callOf())).toMatchObject({ ok: false, reason: BATCH_REASON.busy });
    expect((await ch.lane.commit(next.grant)).ok).toBe(true);
    expect(ch.store.sales()).toHaveLength(2);
  });

  it('refuses a voucher the facilitator verified for another payer than the channel payer', async () => {
    const env = laneOn(net, new MemoryChannelStore(), { config: { minDeposit: '1000000' } });
    const other = net.chain.accounts[5]!.address;
    const lane = createBatchLane({
      config: laneConfigFor(net, { minDeposit: '1000000' }),
      store: new MemoryChannelStore(),
      facilitator: { verify: async (p, r) => ({ ...(await env.facilitator.verify(p, r)), payer: other }), settle: env.facilitator.settle },
      now: () => new Date(),
    });
    const option = lane.offer(PRICE_ROUTE, '/v1/price/CL');
    const buyer = officialBuyer(net, net.chain.accounts[6]!);
    const payload = await buyer.pay(paymentRequiredFor(option, net));
    expect(await lane.authorize(payload, payload.accepted, callOf())).toMatchObject({ ok: false, reason: BATCH_REASON.signature });
    expect(env.facilitator.calls.settle).toBe(0);
  });

  it("gives the buyer the facilitator's reason code and a short text, never its own words (logged instead)", async () => {
    const words = 'execution reverted: eth_call {"to":"0xe7f1…","data":"0x…"} at http://127.0.0.1:8545';
    const logged: Array<Record<string, unknown> | undefined> = [];
    const lane = createBatchLane({
      config: laneConfigFor(net, { minDeposit: '1000000' }),
      store: new MemoryChannelStore(),
      facilitator: {
        verify: async () => ({ isValid: false, invalidReason: 'invalid_batch_settlement_evm_deposit_simulation_failed', invalidMessage: words }),
        settle: async () => {
          throw new Error('not called');
        },
      },
      now: () => new Date(),
      log: { warn: (_m, extra) => logged.push(extra), error: () => undefined },
    });
    const buyer = officialBuyer(net, net.chain.accounts[6]!);
    const payload = await buyer.pay(paymentRequiredFor(lane.offer(PRICE_ROUTE, '/v1/price/CL'), net));
    const refused = await lane.authorize(payload, payload.accepted, callOf());
    expect(refused).toMatchObject({ ok: false, status: 402, reason: 'invalid_batch_settlement_evm_deposit_simulation_failed' });
    expect(JSON.stringify(refused)).not.toContain('127.0.0.1');
    expect(JSON.stringify(refused)).not.toContain('eth_call');
    expect(logged).toEqual([expect.objectContaining({ invalidMessage: words })]);
  });

  it('a deposit that fails on chain at commit is not charged: the reservation is released, nothing is booked', async () => {
    const store = new MemoryChannelStore();
    const env = laneOn(net, store, { config: { minDeposit: '1000000' } });
    const required = paymentRequiredFor(env.lane.offer(PRICE_ROUTE, '/v1/price/CL'), net);
    // A buyer of its own (random key), funded with 2 USD, so that emptying it is harmless to other tests.
    const buyer = officialBuyer(net, mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 17 }));
    await net.chain.mint(buyer.account.address, 2_000_000n);
    const funder = createWalletClient({ account: net.chain.accounts[0]!, chain: localBaseSepolia(net.chain.rpcUrl), transport: http(net.chain.rpcUrl) });
    await net.chain.publicClient.waitForTransactionReceipt({ hash: await funder.sendTransaction({ to: buyer.account.address, value: 10n ** 17n }) });
    const payload = await buyer.pay(required);
    expect((payload.payload as { type: string }).type).toBe('deposit');
    const auth = await env.lane.authorize(payload, payload.accepted, callOf());
    if (!auth.ok) throw new Error(auth.reason);
    // The buyer's funds leave before the deposit is submitted: the facilitator refuses or the transaction reverts.
    await net.chain.transfer(buyer.account, net.chain.accounts[9]!.address, 2_000_000n);
    const done = await env.lane.commit(auth.grant);
    expect(done.ok).toBe(false);
    expect(await store.get(auth.grant.channelId)).toMatchObject({ chargedCumulativeAmount: '0', pendingRequest: undefined });
    expect(store.sales()).toEqual([]);
    expect(await readChannel(net, auth.grant.channelId)).toEqual({ balance: 0n, totalClaimed: 0n });
  });

  it('a channel the settlement job is refunding takes no voucher until the refund is done', async () => {
    const ch = await openChannel(5);
    await ch.store.updateChannel(ch.channelId, (c) => c && { ...c, closingUntil: ch.clock.now().getTime() + 60_000 });
    const payload = await ch.buyer.pay(ch.required);
    expect(await ch.lane.authorize(payload, payload.accepted, callOf())).toMatchObject({ ok: false, reason: BATCH_REASON.busy });
    expect(ch.store.sales()).toHaveLength(1);
  });

  it('refuses a voucher not signed by the payer authorizer, and a channel that does not pay this service', async () => {
    const ch = await openChannel(2);
    const forged = await handVoucher(net, ch.buyer, ch.option, 20_000n, net.chain.accounts[5]!);
    expect(await ch.lane.authorize(forged, forged.accepted, callOf())).toMatchObject({ ok: false, reason: BATCH_REASON.signature });
    const elsewhere = { ...ch.option, payTo: net.chain.accounts[6]!.address };
    const foreign = await handVoucher(net, ch.buyer, elsewhere, 10_000n);
    expect(await ch.lane.authorize(foreign, ch.option as unknown as PaymentRequirements, callOf())).toMatchObject({
      ok: false,
      reason: 'accepted_requirements_mismatch',
    });
    const tampered = { ...foreign, accepted: ch.option } as unknown as PaymentPayload;
    expect(await ch.lane.authorize(tampered, tampered.accepted, callOf())).toMatchObject({
      ok: false,
      reason: 'invalid_batch_settlement_evm_receiver_mismatch',
    });
  });

  it("a payer's withdrawal: no voucher is accepted once it is seen, and it completes only after the channel's delay", async () => {
    const ch = await openChannel(3);
    const config = ch.buyer.scheme.buildChannelConfig(ch.option as unknown as PaymentRequirements);
    const payer = createWalletClient({ account: ch.buyer.account, chain: localBaseSepolia(net.chain.rpcUrl), transport: http(net.chain.rpcUrl) });
    const escrow = { address: BATCH_SETTLEMENT_ADDRESS, abi: net.chain.contracts.LocalBatchSettlement.abi } as const;
    const { balance } = await readChannel(net, ch.channelId);
    await net.chain.publicClient.waitForTransactionReceipt({
      hash: await payer.writeContract({ ...escrow, functionName: 'initiateWithdraw', args: [config, balance] } as never),
    });

    // The lane learns it from the chain when its mirror is older than the TTL (5 min).
    ch.clock.advance(6 * 60_000);
    const payload = await ch.buyer.pay(ch.required);
    expect(await ch.lane.authorize(payload, payload.accepted, callOf())).toMatchObject({ ok: false, reason: BATCH_REASON.withdrawalPending });

    await expect(payer.writeContract({ ...escrow, functionName: 'finalizeWithdraw', args: [config] } as never)).rejects.toThrow(
      /WithdrawDelayNotElapsed|revert/,
    );
    await net.chain.increaseTime(86_400);
    const before = await net.chain.balanceOf(ch.buyer.account.address);
    await net.chain.publicClient.waitForTransactionReceipt({
      hash: await payer.writeContract({ ...escrow, functionName: 'finalizeWithdraw', args: [config] } as never),
    });
    // Nothing was claimed: the whole deposit goes back.
    expect((await net.chain.balanceOf(ch.buyer.account.address)) - before).toBe(balance);
    expect(await readChannel(net, ch.channelId)).toEqual({ balance: 0n, totalClaimed: 0n });
  });
});

/** Fires every payload at once, each through one of the lanes (one per simulated Lambda), and commits what is granted. */
const inFlight = async (lanes: Array<ReturnType<typeof laneOn>['lane']>, payloads: PaymentPayload[]) => {
  const results = await Promise.all(
    payloads.map(async (p, i) => {
      const lane = lanes[i % lanes.length]!;
      const auth = await lane.authorize(p, p.accepted, callOf());
      return auth.ok ? lane.commit(auth.grant) : auth;
    }),
  );
  return { committed: results.filter((r) => r.ok).length, refused: results.filter((r) => !r.ok).map((r) => (r as { reason: string }).reason) };
};

const fiftyInFlight = (name: string, accountIndex: number, stores: () => BatchChannelStore[]) =>
  describe(`batch lane: 50 vouchers in flight on one channel (${name})`, () => {
    it('the same voucher 50 times at once pays one call; 50 vouchers signed ahead at once pay one call; never beyond the balance', async () => {
      const [first, ...others] = stores();
      const ch = await openChannel(accountIndex, first!);
      const lanes = [ch.lane, ...others.map((s) => laneOn(net, s, { clock: ch.clock, config: { minDeposit: '1000000' } }).lane)];
      const charged = async () => BigInt((await first!.get(ch.channelId))!.chargedCumulativeAmount);
      const before = await charged();

      const next = await ch.buyer.pay(ch.required);
      const same = await inFlight(lanes, Array(50).fill(next));
      expect(same.committed).toBe(1);
      for (const reason of same.refused) expect([BATCH_REASON.busy, BATCH_REASON.mismatch]).toContain(reason);
      expect(await charged()).toBe(before + 10_000n);

      const ahead = await Promise.all(Array.from({ length: 50 }, (_, j) => handVoucher(net, ch.buyer, ch.option, before + 10_000n * BigInt(j + 2))));
      const signedAhead = await inFlight(lanes, ahead);
      // Only the voucher for exactly one more call matches at any moment: it pays one call.
      expect(signedAhead.committed).toBe(1);
      expect(await charged()).toBe(before + 20_000n);
      const { balance } = await readChannel(net, ch.channelId);
      expect(await charged()).toBeLessThanOrEqual(balance);
      // Revenue booked equals the charged amount (nothing is claimed yet, so every sale is open).
      const open = (await first!.openSales()).filter((o) => o.channelId === ch.channelId);
      expect(open.reduce((t, o) => t + BigInt(o.amount), 0n)).toBe(await charged());
    });
  });

fiftyInFlight('in memory', 9, () => [new MemoryChannelStore()]);

describe('batch lane on the DynamoDB store', () => {
  let embedded: TestStore;
  beforeAll(async () => {
    embedded = await startTestStore({ STORE_TIMEOUT_MS: '20000' });
  });
  afterAll(async () => embedded?.close());

  fiftyInFlight('DynamoDB, 5 instances', 5, () =>
    Array.from({ length: 5 }, () => new DynamoChannelStore(createDocumentClient(embedded.config), embedded.config.CREDITS_TABLE)),
  );

  it('deposit and repeat calls, with the sales in the credit table', async () => {
    const store = new DynamoChannelStore(embedded.doc, embedded.config.CREDITS_TABLE);
    const ch = await openChannel(4, store);
    for (let i = 0; i < 3; i++) expect((await paidCall(ch)).ok).toBe(true);
    expect((await store.get(ch.channelId))?.chargedCumulativeAmount).toBe('40000');
    const month = new Date().toISOString().slice(0, 7);
    const sales = (await salesOfMonth(embedded.doc, embedded.config.CREDITS_TABLE, month)).filter((s) => s.extra?.channel_id === ch.channelId);
    expect(sales.map((s) => s.extra?.cumulative_amount).sort()).toEqual(['10000', '20000', '30000', '40000']);
    expect((await store.openSales()).filter((o) => o.channelId === ch.channelId)).toHaveLength(4);
  });
});
