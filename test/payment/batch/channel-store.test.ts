/**
 * The batch channel store's contract, run against the DynamoDB store (embedded dynalite, several
 * document clients standing for several Lambda instances) and the in-memory fake: atomic
 * read-modify-write under 50 concurrent writers, sales booked only together with the channel
 * change, open sales stamped once, and the job cursor.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchChannelStore, BatchSale, StoredChannel } from '../../../shared/payment/batch/channel-store';
import { DynamoChannelStore, StoreConflictError } from '../../../shared/payment/batch/dynamo-channel-store';
import { MemoryChannelStore } from '../../../shared/payment/batch/memory-channel-store';
import { salesOfMonth } from '../../../shared/payment/sales';
import { saleShard } from '../../../shared/payment/sales';
import { createDocumentClient } from '../../../shared/store/client';
import { startTestStore, type TestStore } from '../../helpers/store';

const channelIdOf = (n: number): `0x${string}` => `0x${n.toString(16).padStart(2, '0')}${randomUUID().replaceAll('-', '').padEnd(62, '0')}`;

const channel = (channelId: string, over: Partial<StoredChannel> = {}): StoredChannel => ({
  channelId,
  channelConfig: {
    payer: '0x00000000000000000000000000000000000000a1',
    payerAuthorizer: '0x00000000000000000000000000000000000000a1',
    receiver: '0x00000000000000000000000000000000000000b2',
    receiverAuthorizer: '0x00000000000000000000000000000000000000c3',
    token: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
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
  lastRequestTimestamp: 0,
  ...over,
});

const sale = (channelId: string, cumulative: bigint, amount = 10_000n): BatchSale => ({
  saleId: `batch:${channelId}:${cumulative}`,
  lane: 'x402-batch',
  route: 'GET /v1/price/{code}',
  path: '/v1/price/CL',
  amount: amount.toString(),
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  network: 'eip155:84532',
  payTo: '0x00000000000000000000000000000000000000b2',
  payer: '0x00000000000000000000000000000000000000a1',
  transaction: '',
  settledAt: '2026-11-26T10:00:00.000Z',
  requestId: randomUUID(),
  extra: { channel_id: channelId, cumulative_amount: cumulative.toString() },
});

/** Charges one call: charged += price, and the call's sale, in one change. */
const chargeOnce = (store: BatchChannelStore, channelId: string, price = 10_000n) =>
  store.change(channelId, (current) => {
    if (!current) return { channel: current };
    const charged = BigInt(current.chargedCumulativeAmount) + price;
    if (charged > BigInt(current.balance)) return { channel: current };
    return { channel: { ...current, chargedCumulativeAmount: charged.toString() }, sales: [sale(channelId, charged, price)] };
  });

interface Harness {
  /** Stores that share one backend (one per simulated Lambda instance). */
  stores: BatchChannelStore[];
  salesOfMonth(): Promise<Array<{ amount: string; transaction: string; saleId: string }>>;
}

const contract = (name: string, setup: () => Promise<Harness>, teardown: () => Promise<void>) =>
  describe(`batch channel store: ${name}`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await setup();
    });
    afterAll(teardown);

    it('creates, reads, lists and deletes a channel; an unchanged update writes nothing', async () => {
      const [store] = h.stores;
      const id = channelIdOf(1);
      expect(await store!.get(id)).toBeUndefined();
      expect((await store!.updateChannel(id, () => channel(id))).status).toBe('updated');
      expect(await store!.get(id.toUpperCase().replace('0X', '0x'))).toMatchObject({ channelId: id, balance: '1000000' });
      expect((await store!.list()).map((c) => c.channelId)).toContain(id);
      expect((await store!.updateChannel(id, (c) => c)).status).toBe('unchanged');
      expect((await store!.updateChannel(id, () => undefined)).status).toBe('deleted');
      expect(await store!.get(id)).toBeUndefined();
      expect((await store!.updateChannel(id, () => undefined)).status).toBe('unchanged');
    });

    it('refuses an id that is not a 32-byte hex channel id', async () => {
      await expect(h.stores[0]!.get('../../etc')).rejects.toThrow(/invalid channel id/);
    });

    it('50 concurrent read-modify-writes of one channel from several instances: every write that succeeds is kept', async () => {
      const id = channelIdOf(2);
      await h.stores[0]!.updateChannel(id, () => channel(id, { balance: '10000000000' }));
      const bump = (c: StoredChannel | undefined) => c && { ...c, refundNonce: c.refundNonce + 1 };
      const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => h.stores[i % h.stores.length]!.updateChannel(id, bump)));
      // A writer that gives up says so (StoreConflictError: the request answers 503, nothing charged); none is silently lost.
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(StoreConflictError);
      const done = results.filter((r) => r.status === 'fulfilled').length;
      expect(done).toBeGreaterThan(0);
      expect((await h.stores[0]!.get(id))?.refundNonce).toBe(done);
    });

    it('50 charges in flight on a channel whose balance covers 10: never more than the balance, and revenue equals the charged amount', async () => {
      const id = channelIdOf(3);
      await h.stores[0]!.updateChannel(id, () => channel(id, { balance: '100000' }));
      const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => chargeOnce(h.stores[i % h.stores.length]!, id)));
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(StoreConflictError);
      const booked = results.filter((r) => r.status === 'fulfilled' && r.value.status === 'updated').length;
      expect(booked).toBeGreaterThan(0);
      expect(booked).toBeLessThanOrEqual(10);
      const charged = BigInt((await h.stores[0]!.get(id))!.chargedCumulativeAmount);
      expect(charged).toBe(BigInt(booked) * 10_000n);
      const sales = (await h.salesOfMonth()).filter((s) => s.saleId.includes(id));
      expect(sales.reduce((sum, s) => sum + BigInt(s.amount), 0n)).toBe(charged);
      // Each cumulative amount is booked once: no two writers spent the same part of the balance.
      expect(new Set(sales.map((s) => s.saleId)).size).toBe(sales.length);
      // Whoever gave up can try again: the rest of the balance is still there to be charged, and no further.
      while ((await chargeOnce(h.stores[0]!, id)).status === 'updated');
      expect((await h.stores[0]!.get(id))?.chargedCumulativeAmount).toBe('100000');
      expect((await h.salesOfMonth()).filter((s) => s.saleId.includes(id))).toHaveLength(10);
    });

    it('sales are booked only with a change of the channel, and stay open until stamped with their claim once', async () => {
      const [store] = h.stores;
      const id = channelIdOf(4);
      // An unchanged channel books nothing, even when sales are offered.
      await store!.change(id, (c) => ({ channel: c, sales: [sale(id, 10_000n)] }));
      expect((await h.salesOfMonth()).filter((s) => s.saleId.includes(id))).toHaveLength(0);
      await store!.updateChannel(id, () => channel(id));
      for (let i = 0; i < 3; i++) await chargeOnce(store!, id);
      const open = (await store!.openSales()).filter((o) => o.channelId === id);
      expect(open.map((o) => o.cumulative)).toEqual([10_000n, 20_000n, 30_000n]);

      await store!.closeSales(open.slice(0, 2), '0xclaim1');
      // Closing again (a retried job run) changes nothing: the first claim stays on the sale.
      await store!.closeSales(open.slice(0, 2), '0xclaim2');
      expect((await store!.openSales()).filter((o) => o.channelId === id).map((o) => o.cumulative)).toEqual([30_000n]);
      const txs = (await h.salesOfMonth())
        .filter((s) => s.saleId.includes(id))
        .map((s) => s.transaction)
        .sort();
      expect(txs).toEqual(['', '0xclaim1', '0xclaim1']);
    });

    it('lists the channels and open sales of every shard (a channel id whose first byte is 0x00 to 0x1f: every shard twice)', async () => {
      const [store] = h.stores;
      const ids = Array.from({ length: 32 }, (_, n) => channelIdOf(n));
      for (const id of ids) {
        await store!.updateChannel(id, () => channel(id));
        await chargeOnce(store!, id);
      }
      const listed = new Set((await store!.list()).map((c) => c.channelId));
      expect(ids.filter((id) => !listed.has(id))).toEqual([]);
      const open = new Set((await store!.openSales()).map((o) => o.channelId));
      expect(ids.filter((id) => !open.has(id))).toEqual([]);
    });

    it('keeps the job cursor', async () => {
      const [store] = h.stores;
      await store!.setJobCursor(12_345n);
      expect(await store!.jobCursor()).toBe(12_345n);
    });
  });

let embedded: TestStore;
// 50 writers on one item keep the embedded store busy on a loaded machine: the longest store timeout.
contract(
  'DynamoDB (embedded dynalite, 5 document clients)',
  async () => {
    embedded = await startTestStore({ STORE_TIMEOUT_MS: '20000' });
    const stores = Array.from({ length: 5 }, () => new DynamoChannelStore(createDocumentClient(embedded.config), embedded.config.CREDITS_TABLE));
    return { stores, salesOfMonth: () => salesOfMonth(embedded.doc, embedded.config.CREDITS_TABLE, '2026-11') };
  },
  async () => embedded?.close(),
);

const memory = new MemoryChannelStore();
contract(
  'in memory',
  async () => ({ stores: [memory, memory, memory], salesOfMonth: async () => memory.sales() }),
  async () => undefined,
);

describe('sale record keys', () => {
  it('spreads sales over 16 shards by the first byte of sha256(sale id)', () => {
    // sha256("abc") = ba7816bf…: 0xba = 186, 186 % 16 = 10 (the digest from FIPS 180-2's example).
    expect(saleShard('abc')).toBe(10);
    const seen = new Set(Array.from({ length: 400 }, (_, i) => saleShard(`batch:${i}`)));
    expect(seen.size).toBe(16);
  });
});
