/**
 * The settlement pass at volume, on the DynamoDB channel store (embedded dynalite) and a simulated
 * escrow (synthetic: a map of claimed totals, one Claimed event per channel per claim, block numbers
 * counting up; the money rules on the real escrow are settle-job.test.ts's). Open sales are read a
 * page at a time across the store's shards, claim transactions run in parallel up to the bound, and
 * a pass stopped part-way (its Lambda's time running out) saves where it stopped: the next pass
 * claims the channels left without claiming any channel twice, and continues the stamp scan from
 * its page with the event cursor held until the scan is complete.
 */
import { randomUUID } from 'node:crypto';
import type { ClaimResult } from '@x402/evm/batch-settlement/server';
import { getAddress, type Address } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureTables } from '../../../infra/local/embedded-store';
import type { BatchSale, OpenSale, StoredChannel } from '../../../shared/payment/batch/channel-store';
import { DynamoChannelStore } from '../../../shared/payment/batch/dynamo-channel-store';
import type { ClaimEvent, EscrowReader } from '../../../shared/payment/batch/escrow-reader';
import { type BatchSettlementDeps, runBatchSettlement } from '../../../shared/payment/batch/settle-job';
import { salesOfMonth } from '../../../shared/payment/sales';
import { startTestStore, type TestStore } from '../../helpers/store';

const TOKEN = getAddress('0x036CbD53842c5426634e7929541eC2318f3dCF7e');
const RECEIVERS: Address[] = [
  '0x00000000000000000000000000000000000000b1',
  '0x00000000000000000000000000000000000000b2',
  '0x00000000000000000000000000000000000000b3',
].map((a) => getAddress(a));
const PRICE = 10_000n;

/** A channel id whose first byte picks its store shard (byte % 16). */
const channelIdOf = (firstByte: number): string => `0x${firstByte.toString(16).padStart(2, '0')}${randomUUID().replaceAll('-', '').padEnd(62, '0')}`;

const channel = (channelId: string, receiver: Address): StoredChannel => ({
  channelId,
  channelConfig: {
    payer: '0x00000000000000000000000000000000000000a1',
    payerAuthorizer: '0x00000000000000000000000000000000000000a1',
    receiver,
    receiverAuthorizer: '0x00000000000000000000000000000000000000c3',
    token: TOKEN,
    withdrawDelay: 86_400,
    salt: `0x${'0'.repeat(64)}`,
  },
  chargedCumulativeAmount: '0',
  signedMaxClaimable: '0',
  signature: '0x',
  balance: '1000000',
  totalClaimed: '0',
  withdrawRequestedAt: 0,
  refundNonce: 0,
  // used now: never idle, so no refund interferes
  lastRequestTimestamp: Date.now(),
});

const saleOf = (channelId: string, cumulative: bigint, receiver: Address): BatchSale => ({
  saleId: `batch:${channelId}:${cumulative}`,
  lane: 'x402-batch',
  route: 'GET /v1/price/{code}',
  path: '/v1/price/CL',
  amount: PRICE.toString(),
  asset: TOKEN,
  network: 'eip155:84532',
  payTo: receiver,
  payer: '0x00000000000000000000000000000000000000a1',
  transaction: '',
  settledAt: '2026-11-26T10:00:00.000Z',
  requestId: randomUUID(),
  extra: { channel_id: channelId, cumulative_amount: cumulative.toString() },
});

/** The escrow, simulated: claimed totals per channel and the Claimed events, one block per claim transaction. */
class SimulatedEscrow implements EscrowReader {
  block = 100n;
  claimed = new Map<string, bigint>();
  events: ClaimEvent[] = [];
  /** Claims per channel over the whole test: a second claim of the same voucher is a double claim. */
  claimsOf = new Map<string, number>();

  /** One claim transaction of these channels up to these totals. */
  claim(totals: ReadonlyArray<[channelId: string, total: bigint]>): `0x${string}` {
    const transaction = `0x${(++this.block).toString(16).padStart(64, '0')}` as const;
    for (const [i, [channelId, total]] of totals.entries()) {
      const id = channelId.toLowerCase();
      this.claimed.set(id, total);
      this.claimsOf.set(id, (this.claimsOf.get(id) ?? 0) + 1);
      this.events.push({ channelId: id, totalClaimed: total, transaction, blockNumber: this.block, logIndex: i });
    }
    return transaction;
  }
  async blockNumber() {
    return this.block;
  }
  async channels(ids: readonly string[]) {
    return new Map(
      ids.map((id) => [
        id.toLowerCase(),
        { balance: 1_000_000n, totalClaimed: this.claimed.get(id.toLowerCase()) ?? 0n, withdrawRequestedAt: 0, refundNonce: 0 },
      ]),
    );
  }
  async receiverTotals() {
    return { totalClaimed: 0n, totalSettled: 0n };
  }
  async claimEvents(ids: readonly string[], fromBlock: bigint, toBlock: bigint) {
    const wanted = new Set(ids.map((i) => i.toLowerCase()));
    return this.events.filter((e) => wanted.has(e.channelId) && e.blockNumber >= fromBlock && e.blockNumber <= toBlock);
  }
}

let embedded: TestStore;
beforeAll(async () => {
  embedded = await startTestStore({ STORE_TIMEOUT_MS: '20000' });
});
afterAll(async () => {
  await embedded?.close();
});

/** A store that records the size of every open-sales read it answers. */
class CountingStore extends DynamoChannelStore {
  reads: Array<{ kind: 'page' | 'channel'; limit: number; got: number; after?: string | undefined }> = [];
  override async openSalesPage(after: string | undefined, limit: number) {
    const r = await super.openSalesPage(after, limit);
    this.reads.push({ kind: 'page', limit, got: r.sales.length, after });
    return r;
  }
  override async openSalesOf(channelId: string, range: { above: bigint; upTo: bigint }, limit: number): Promise<OpenSale[]> {
    const r = await super.openSalesOf(channelId, range, limit);
    this.reads.push({ kind: 'channel', limit, got: r.length });
    return r;
  }
}

let store: CountingStore;
let escrow: SimulatedEscrow;
let table: string;
/** Claim transactions in flight now, and the most at once. */
let inFlight = 0;
let maxInFlight = 0;

/** The channel manager of one receiver, simulated: claims each selected channel's charged total on the escrow, then records it in the store. */
const managerOf = (receiver: Address): BatchSettlementDeps['manager'] => ({
  claim: async (opts) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      const mine = (await store.list()).filter((c) => getAddress(c.channelConfig.receiver) === receiver);
      const selected = (await opts!.selectClaimChannels!(mine, {} as never)).filter((c) => BigInt(c.chargedCumulativeAmount) > BigInt(c.totalClaimed));
      // one block per transaction: the claim waits for it (yield so parallel claims overlap)
      await new Promise((r) => setImmediate(r));
      const results: ClaimResult[] = [];
      if (!selected.length) return results;
      const transaction = escrow.claim(selected.map((c) => [c.channelId, BigInt(c.chargedCumulativeAmount)]));
      for (const c of selected) await store.updateChannel(c.channelId, (cur) => (cur ? { ...cur, totalClaimed: c.chargedCumulativeAmount } : cur));
      results.push({ vouchers: selected.length, transaction });
      return results;
    } finally {
      inFlight--;
    }
  },
  settle: async () => ({ transaction: '0x' }),
  refund: async () => [],
});

const depsWith = (over: Partial<BatchSettlementDeps> = {}): BatchSettlementDeps => ({
  store,
  manager: managerOf(RECEIVERS[0]!),
  managerFor: managerOf,
  escrow,
  receiver: RECEIVERS[0]!,
  token: TOKEN,
  now: () => new Date(),
  ...over,
});

beforeEach(async () => {
  table = `credits-${randomUUID().slice(0, 8)}`;
  await ensureTables(embedded.embedded.endpoint, { observations: embedded.config.OBSERVATIONS_TABLE, credits: table });
  store = new CountingStore(embedded.doc, table);
  escrow = new SimulatedEscrow();
  inFlight = 0;
  maxInFlight = 0;
});

/** Opens a channel to each receiver in turn (ids spread over store shards) and books `calls` sales on each. */
const book = async (channels: number, calls: number): Promise<string[]> => {
  const ids = Array.from({ length: channels }, (_, i) => channelIdOf(i * 37 + 1));
  for (const [i, id] of ids.entries()) {
    const receiver = RECEIVERS[i % RECEIVERS.length]!;
    await store.updateChannel(id, () => channel(id, receiver));
    for (let n = 1n; n <= BigInt(calls); n++) {
      await store.change(id, (cur) => ({
        channel: { ...cur!, chargedCumulativeAmount: (n * PRICE).toString() },
        sales: [saleOf(id, n * PRICE, receiver)],
      }));
    }
  }
  return ids;
};

/** Every booked sale: stamped with the transaction of the claim that covered it, or open. */
const salesByChannel = async () => {
  const sales = await salesOfMonth(embedded.doc, table, '2026-11');
  const out = new Map<string, string[]>();
  for (const s of sales) {
    const id = (s.extra as { channel_id: string }).channel_id;
    out.set(id, [...(out.get(id) ?? []), s.transaction]);
  }
  return out;
};

describe('batch settlement pass at volume (pages, parallel claims, resumable)', () => {
  it('reads open sales a page at a time, runs claims in parallel up to the bound, and stamps every sale with its claim', async () => {
    // 6 channels over 3 receivers: three claim transactions (one per receiver), 5 sales each.
    const ids = await book(6, 5);
    const report = await runBatchSettlement(depsWith({ settings: { pageSize: 2, claimConcurrency: 2, closeConcurrency: 3 } }));
    expect(report.stopped).toBe(false);
    expect(report.claims).toHaveLength(3);
    expect(maxInFlight).toBe(2);
    // no read ever asked for or got more than a page
    expect(store.reads.length).toBeGreaterThan(0);
    for (const r of store.reads) expect(r.limit).toBe(2);
    for (const r of store.reads) expect(r.got).toBeLessThanOrEqual(2);
    // each channel claimed once, to its charged total; each of its sales stamped with that claim
    const sales = await salesByChannel();
    for (const id of ids) {
      expect(escrow.claimsOf.get(id)).toBe(1);
      expect(escrow.claimed.get(id)).toBe(5n * PRICE);
      const tx = escrow.events.find((e) => e.channelId === id)!.transaction;
      expect(sales.get(id)).toEqual([tx, tx, tx, tx, tx]);
    }
    expect(report.stamped).toBe(30);
    expect(await store.openSales()).toEqual([]);
    expect(report.backlog).toEqual({ sales: 0, atomic: 0n });
    expect(await store.passState()).toBeUndefined();
  });

  it('a pass stopped after its first claim saves where it stopped; the next claims the rest, none twice', async () => {
    const ids = await book(6, 3);
    let claimsStarted = 0;
    const counting = (receiver: Address): BatchSettlementDeps['manager'] => {
      const m = managerOf(receiver);
      return {
        ...m,
        claim: (o) => {
          claimsStarted++;
          return m.claim(o);
        },
      };
    };
    const first = await runBatchSettlement(
      depsWith({ manager: counting(RECEIVERS[0]!), managerFor: counting, settings: { claimConcurrency: 1 }, shouldStop: () => claimsStarted >= 1 }),
    );
    expect(first.stopped).toBe(true);
    expect(first.claims).toHaveLength(1);
    // the stopped pass skipped the stamp scan (and refunds) and measured no backlog
    expect(first.backlog).toBeUndefined();
    expect(first.stamped).toBe(3 * 2);
    const claimedFirst = ids.filter((id) => escrow.claimsOf.get(id));
    expect(claimedFirst).toHaveLength(2);
    const saved = JSON.parse((await store.passState())!) as { claimFrom?: string };
    // the first channel left, in the pass's order (by id)
    const left = ids.filter((id) => !escrow.claimsOf.get(id)).sort();
    expect(saved.claimFrom).toBe(left[0]);

    const second = await runBatchSettlement(depsWith({ settings: { claimConcurrency: 1 } }));
    expect(second.stopped).toBe(false);
    expect(second.claims).toHaveLength(2);
    for (const id of ids) expect(escrow.claimsOf.get(id)).toBe(1);
    const sales = await salesByChannel();
    for (const id of ids) {
      const tx = escrow.events.find((e) => e.channelId === id)!.transaction;
      expect(sales.get(id)).toEqual([tx, tx, tx]);
    }
    expect(await store.passState()).toBeUndefined();
  });

  it('a stamp scan stopped after one page continues from that page; the event cursor moves only when the scan is complete', async () => {
    // Claims that went on chain in a pass that died before touching the store: found by the stamp scan.
    const ids = await book(3, 2);
    const cursor0 = escrow.block;
    await store.setJobCursor(cursor0);
    escrow.claim(ids.map((id) => [id, 2n * PRICE]));
    let pages = 0;
    const first = await runBatchSettlement(
      depsWith({
        settings: { pageSize: 2 },
        shouldStop: () => store.reads.filter((r) => r.kind === 'page').length > pages,
      }),
    );
    expect(first.stopped).toBe(true);
    expect(first.stamped).toBe(2);
    expect(await store.jobCursor()).toBe(cursor0);
    const saved = JSON.parse((await store.passState())!) as { scan?: { after?: string; toBlock: string } };
    expect(saved.scan?.after).toBeDefined();
    expect(saved.scan?.toBlock).toBe(escrow.block.toString());

    // a new claim lands between the passes; the scan goes on from its page
    pages = Number.POSITIVE_INFINITY;
    const blockAtStart = escrow.block;
    escrow.block += 5n;
    store.reads = [];
    const second = await runBatchSettlement(depsWith({ settings: { pageSize: 2 } }));
    expect(second.stopped).toBe(false);
    expect(store.reads.find((r) => r.kind === 'page')!.after).toBe(saved.scan!.after);
    expect(first.stamped + second.stamped).toBe(6);
    // none claimed again: the sync took the chain's claimed totals
    for (const id of ids) expect(escrow.claimsOf.get(id)).toBe(1);
    const sales = await salesByChannel();
    for (const id of ids) {
      const tx = escrow.events.find((e) => e.channelId === id)!.transaction;
      expect(sales.get(id)).toEqual([tx, tx]);
    }
    // the cursor is the block the scan began at, not the later one
    expect(await store.jobCursor()).toBe(blockAtStart);
    expect(await store.passState()).toBeUndefined();
  });
});
