/**
 * The payment ledger on the embedded store: one conditional write per proof (also under 50
 * concurrent claims), the claim life cycle, finance records, and reconciliation of pending
 * settlements with a fake chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { DynamoReconcileLedger, type ClaimKey, type NewClaim } from '../../shared/payment/ledger';
import { reconcilePendingPayments, type ChainReader } from '../../shared/payment/reconcile';
import { createDocumentClient } from '../../shared/store/client';
import { startTestStack } from '../helpers/stack';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { saleItem, saleKey } from '../../shared/payment/sales';
import { TTL_ATTRIBUTE } from '../../shared/store/tables';
import { newClaim, pendClaim, randomNonce, saleOf, settleClaim, txHash } from './helpers';

const PAYER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const T0 = new Date('2026-03-31T23:59:30.000Z');

describe('DynamoReconcileLedger (embedded store)', () => {
  let stack: LocalStack;
  let ledger: DynamoReconcileLedger;
  let doc: ReturnType<typeof createDocumentClient>;
  let clock = T0;
  const claimOf = (nonce: string, claimId = 'req-1'): NewClaim => newClaim(PAYER, nonce, clock, claimId);

  beforeAll(async () => {
    stack = await startTestStack({}, false);
    const config = stack.config;
    doc = createDocumentClient(config);
    ledger = new DynamoReconcileLedger(doc, config.CREDITS_TABLE, () => clock);
  });
  afterAll(async () => stack?.close());

  it('claims a proof once; the second claim sees who holds it', async () => {
    const nonce = randomNonce();
    expect(await ledger.claim(claimOf(nonce, 'req-a'))).toEqual({ ok: true });
    const second = await ledger.claim(claimOf(nonce, 'req-b'));
    expect(second.ok).toBe(false);
    expect(second.ok === false && second.existing).toMatchObject({ state: 'CLAIMED', claimId: 'req-a', amount: '10000', attempts: 1 });
  });

  it('lets exactly one of 50 concurrent claims of one proof win', async () => {
    const nonce = randomNonce();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => ledger.claim(claimOf(nonce, `req-${i}`))));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const holder = await ledger.get({ payer: PAYER, nonce });
    expect(holder?.state).toBe('CLAIMED');
  });

  it('lets a released proof be claimed again, but only by a new claim, and keeps a count', async () => {
    const nonce = randomNonce();
    const key: ClaimKey = { payer: PAYER, nonce };
    await ledger.claim(claimOf(nonce, 'req-1'));
    await ledger.release(key, 'someone-else', 'handler_error'); // not the holder: no effect
    expect((await ledger.get(key))?.state).toBe('CLAIMED');
    await ledger.release(key, 'req-1', 'handler_error');
    expect(await ledger.get(key)).toMatchObject({ state: 'RELEASED', reason: 'handler_error' });
    expect(await ledger.claim(claimOf(nonce, 'req-2'))).toEqual({ ok: true });
    const again = await ledger.get(key);
    expect(again).toMatchObject({ state: 'CLAIMED', claimId: 'req-2', attempts: 2 });
    expect(again?.reason).toBeUndefined();
  });

  it('never lets a settled or pending proof be claimed again', async () => {
    const settled = randomNonce();
    await ledger.claim(claimOf(settled));
    await settleClaim(ledger, { payer: PAYER, nonce: settled }, 'req-1', '0xabc', T0, true);
    expect((await ledger.claim(claimOf(settled, 'req-9'))).ok).toBe(false);

    const pending = randomNonce();
    await ledger.claim(claimOf(pending));
    await pendClaim(ledger, { payer: PAYER, nonce: pending }, 'req-1');
    const conflict = await ledger.claim(claimOf(pending, 'req-9'));
    expect(conflict.ok === false && conflict.existing?.state).toBe('PENDING');
  });

  it('hands an undelivered settled payment to exactly one retry, and takes it back on failure', async () => {
    const nonce = randomNonce();
    const key = { payer: PAYER, nonce };
    await ledger.claim(claimOf(nonce));
    await settleClaim(ledger, key, 'req-1', '0xdef', T0, false);
    const takers = await Promise.all(['r-a', 'r-b', 'r-c'].map((id) => ledger.takeDelivery(key, id)));
    expect(takers.filter(Boolean)).toHaveLength(1);
    const winner = ['r-a', 'r-b', 'r-c'][takers.indexOf(true)]!;
    await ledger.returnDelivery(key, winner);
    expect(await ledger.get(key)).toMatchObject({ delivered: false });
    expect(await ledger.takeDelivery(key, 'r-d')).toBe(true);
    expect(await ledger.takeDelivery(key, 'r-e')).toBe(false);
  });

  it('files sales by the month of settlement, spread over shards, and reads every shard back for finance', async () => {
    const nonce = randomNonce();
    const sale = {
      lane: 'x402-exact' as const,
      saleId: `${PAYER.toLowerCase()}#${nonce}`,
      payer: PAYER,
      nonce,
      amount: '250000',
      asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      network: 'eip155:84532',
      payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      route: 'GET /v1/decision/all',
      path: '/v1/decision/all',
      transaction: '0x123',
      settledAt: '2026-02-14T10:00:00.000Z',
      requestId: 'req-fin',
    };
    await ledger.recordSale(sale);
    const feb = await ledger.salesOfMonth('2026-02');
    expect(feb).toContainEqual({ ...sale, payer: PAYER.toLowerCase() });
    expect((await ledger.salesOfMonth('2026-01')).find((s) => s.nonce === nonce)).toBeUndefined();
    // Forty sales of one month land on several partitions (no hot key) and all come back, in time order.
    const many = Array.from({ length: 40 }, (_, i) => {
      const n = randomNonce();
      return { ...sale, nonce: n, saleId: `${PAYER.toLowerCase()}#${n}`, settledAt: `2026-06-01T00:00:${String(i).padStart(2, '0')}.000Z` };
    });
    for (const m of many) await ledger.recordSale(m);
    const june = await ledger.salesOfMonth('2026-06');
    expect(june.map((x) => x.nonce)).toEqual(many.map((m) => m.nonce));
    expect(new Set(many.map((m) => saleItem(m).pk)).size).toBeGreaterThan(8);
  });

  it('settles a payment in one write of one item: the claim becomes its sale, kept for finance and never expiring', async () => {
    const [paid, found] = [randomNonce(), randomNonce()];
    for (const n of [paid, found]) await ledger.claim(claimOf(n));
    const at = new Date('2026-05-20T08:00:00.000Z');
    const sales = [
      saleOf({ payer: PAYER, nonce: paid, claimId: 'req-1' }, txHash(), at),
      saleOf({ payer: PAYER, nonce: found, claimId: 'req-1' }, txHash(), at),
    ];
    // What the store is sent: the settlement is one conditional update, not a transaction.
    const sent: string[] = [];
    const spy = {
      send: (cmd: { constructor: { name: string } }) => {
        sent.push(cmd.constructor.name);
        return doc.send(cmd as never);
      },
    };
    const spied = new DynamoReconcileLedger(spy as never, stack.config.CREDITS_TABLE, () => clock);
    expect(await spied.settle({ payer: PAYER, nonce: paid }, 'req-1', { sale: sales[0]! })).toBe('recorded');
    expect(await spied.resolve({ payer: PAYER, nonce: found }, { state: 'CLAIMED', claimId: 'req-1' }, { state: 'SETTLED', sale: sales[1]! })).toBe(true);
    expect(sent).toEqual(['UpdateCommand', 'UpdateCommand']);
    for (const [n, sale, delivered] of [
      [paid, sales[0]!, true],
      [found, sales[1]!, false],
    ] as const) {
      const item = (await doc.send(new GetCommand({ TableName: stack.config.CREDITS_TABLE, Key: { pk: `X402#${PAYER.toLowerCase()}`, sk: `NONCE#${n}` } })))
        .Item!;
      expect(item).toMatchObject({ state: 'SETTLED', delivered, gsi2pk: saleKey(sale).pk, gsi2sk: saleKey(sale).sk });
      expect(item[TTL_ATTRIBUTE]).toBeUndefined();
      expect(item.gsi1pk).toBeUndefined();
    }
    // Finance reads both back with the sale's fields, and nothing else of the claim.
    const may = (await ledger.salesOfMonth('2026-05')).filter((s) => s.nonce === paid || s.nonce === found);
    expect(may).toEqual(expect.arrayContaining(sales.map((s) => ({ ...s, payer: s.payer.toLowerCase() }))));
    expect(may).toHaveLength(2);
  });

  describe('reconcilePendingPayments', () => {
    const fakeChain = (used: Set<string>, receipts: Record<string, 'success' | 'reverted'> = {}): ChainReader => ({
      authorizationUsed: async (_asset, _payer, nonce) => used.has(nonce.toLowerCase()),
      findAuthorizationTransaction: async (_asset, _payer, nonce) => (used.has(nonce.toLowerCase()) ? `0x${'77'.repeat(32)}` : null),
      transactionStatus: async (hash) => receipts[hash] ?? 'missing',
    });
    const pend = async (nonce: string, transaction = '') => {
      await ledger.claim(claimOf(nonce));
      await pendClaim(ledger, { payer: PAYER, nonce }, 'req-1', transaction);
    };

    it('settles what the chain shows as paid, marks expired unused ones unpaid, and leaves the rest pending', async () => {
      const minedTx = txHash();
      const [byReceipt, byState, expired, open] = [randomNonce(), randomNonce(), randomNonce(), randomNonce()];
      for (const [n, tx] of [
        [byReceipt, minedTx],
        [byState, ''],
        [expired, ''],
        [open, ''],
      ] as const)
        await pend(n, tx);
      expect((await ledger.listWatched()).map((k) => k.nonce)).toEqual(expect.arrayContaining([byReceipt, byState, expired, open]));
      clock = new Date(T0.getTime() + 31_000); // past the claims' lifetime: the calls that held them are gone

      // Before the window ends: only what the chain confirms is resolved.
      const first = await reconcilePendingPayments({ ledger, chain: fakeChain(new Set([byState]), { [minedTx]: 'success' }), now: () => clock });
      expect(first.settled.map((s) => s.nonce).sort()).toEqual([byReceipt, byState].sort());
      expect(first.settled.find((s) => s.nonce === byReceipt)?.transaction).toBe(minedTx);
      expect(first.settled.find((s) => s.nonce === byState)?.transaction).toBe(`0x${'77'.repeat(32)}`);
      const ours = (keys: ClaimKey[]) =>
        keys
          .map((k) => k.nonce)
          .filter((n) => ([byReceipt, byState, expired, open] as string[]).includes(n))
          .sort();
      expect(ours(first.stillPending)).toEqual([expired, open].sort());
      expect(await ledger.get({ payer: PAYER, nonce: byState })).toMatchObject({ state: 'SETTLED', delivered: false });

      // After validBefore an unused authorization can never settle: unpaid.
      clock = new Date(T0.getTime() + 120_000);
      const second = await reconcilePendingPayments({ ledger, chain: fakeChain(new Set()), now: () => clock });
      expect(ours(second.unpaid)).toEqual([expired, open].sort());
      expect(second.settled).toEqual([]);
      expect(await ledger.get({ payer: PAYER, nonce: open })).toMatchObject({ state: 'UNPAID' });
      expect((await ledger.listWatched()).map((k) => k.nonce)).not.toEqual(expect.arrayContaining([expired, open]));

      // Reconciled sales land in the month of their reconciliation: the clock had passed into April.
      const march = await ledger.salesOfMonth('2026-04');
      expect(march.filter((s) => ([byReceipt, byState] as string[]).includes(s.nonce!))).toHaveLength(2);
      clock = T0;
    });

    it('sweeps released, refused and abandoned claims too: one the chain shows used is settled and owed to its buyer', async () => {
      const [released, failed, abandoned, young] = [randomNonce(), randomNonce(), randomNonce(), randomNonce()];
      for (const n of [released, failed, abandoned]) await ledger.claim(claimOf(n));
      await ledger.release({ payer: PAYER, nonce: released }, 'req-1', 'facilitator_unreachable_at_settle');
      await ledger.markFailed({ payer: PAYER, nonce: failed }, 'req-1', { transaction: '', reason: 'invalid_exact_evm_insufficient_balance' });
      clock = new Date(T0.getTime() + 31_000);
      await ledger.claim(claimOf(young)); // still held by a live call
      const report = await reconcilePendingPayments({ ledger, chain: fakeChain(new Set([released, failed, abandoned, young])), now: () => clock });
      expect(
        report.settled
          .map((s) => s.nonce)
          .filter((n) => ([released, failed, abandoned, young] as string[]).includes(n))
          .sort(),
      ).toEqual([released, failed, abandoned].sort());
      for (const n of [released, failed, abandoned])
        expect(await ledger.get({ payer: PAYER, nonce: n })).toMatchObject({ state: 'SETTLED', delivered: false, watched: false });
      expect(await ledger.get({ payer: PAYER, nonce: young })).toMatchObject({ state: 'CLAIMED', watched: true });
      clock = T0;
    });
  });
});
