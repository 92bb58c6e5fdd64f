/**
 * One contract for both credit ledgers: the in-memory one (fast unit tests of the Pro lane) behaves
 * like the DynamoDB one on the embedded store, debit by debit.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCreditLedger } from '../../shared/pro/credit-ledger';
import { newKeyRecord, type CreditLedger, type KeyRecord, type UsageEntry } from '../../shared/pro/credit-port';
import { MemoryCreditLedger } from '../../shared/pro/memory-credit-ledger';
import { startTestStore, type TestStore } from '../helpers/store';

const NOW = new Date('2026-11-20T12:00:00.000Z');
const DAY = 86_400_000;

type TestLedger = CreditLedger & { put(r: KeyRecord): Promise<void>; usage(hash: string, month: string): Promise<UsageEntry[]> };

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(() => store?.close());

const ledgers: Array<[string, () => TestLedger]> = [
  ['MemoryCreditLedger', () => new MemoryCreditLedger()],
  ['DynamoCreditLedger (embedded store)', () => new DynamoCreditLedger(store.doc, store.config.CREDITS_TABLE)],
];

describe.each(ledgers)('%s', (_name, make) => {
  const newKey = async (ledger: TestLedger, patch: Partial<KeyRecord> = {}) => {
    const record = { ...newKeyRecord({ hash: randomUUID().replace(/-/g, ''), hint: 'cds_live_…abcd', plan: 'monthly', now: NOW }), ...patch };
    await ledger.put(record);
    return record;
  };
  const call = (requestId = 'req-1') => ({ callId: randomUUID(), requestId, route: 'GET /v1/price/{code}' });

  it('debits the credits with one usage entry per call, also for calls of one request at the same instant (an MCP POST)', async () => {
    const ledger = make();
    const key = await newKey(ledger);
    const results = await Promise.all(Array.from({ length: 30 }, () => ledger.debit(key.hash, 2, call('mcp-post-1'), NOW)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect((await ledger.get(key.hash))!.creditsLeft).toBe(3000 - 60);
    const entries = await ledger.usage(key.hash, '2026-11');
    expect(entries).toHaveLength(30);
    expect(new Set(entries.map((e) => e.callId)).size).toBe(30);
    for (const e of entries) expect(e).toMatchObject({ requestId: 'mcp-post-1', route: 'GET /v1/price/{code}', credits: 2, at: NOW.toISOString() });
  });

  it('never goes below zero: the calls that do not fit are refused as quota_exceeded, with the key as it is', async () => {
    const ledger = make();
    const key = await newKey(ledger, { creditsLeft: 5 });
    const results = await Promise.all(Array.from({ length: 8 }, () => ledger.debit(key.hash, 2, call(), NOW)));
    expect(results.filter((r) => r.ok)).toHaveLength(2);
    for (const r of results.filter((x) => !x.ok)) expect(r).toMatchObject({ ok: false, reason: 'quota_exceeded', record: { creditsLeft: 1 } });
    expect((await ledger.get(key.hash))!.creditsLeft).toBe(1);
  });

  it('refuses unknown, revoked and lapsed keys; starts a new credit month while the subscription is paid', async () => {
    const ledger = make();
    expect(await ledger.debit('0'.repeat(64), 1, call(), NOW)).toEqual({ ok: false, reason: 'not_found' });
    const revoked = await newKey(ledger, { status: 'revoked' });
    expect(await ledger.debit(revoked.hash, 1, call(), NOW)).toMatchObject({ ok: false, reason: 'revoked' });
    const lapsed = await newKey(ledger, { periodEnd: new Date(NOW.getTime() - DAY).toISOString(), paidUntil: new Date(NOW.getTime() - DAY).toISOString() });
    expect(await ledger.debit(lapsed.hash, 1, call(), NOW)).toMatchObject({ ok: false, reason: 'expired' });
    const renewing = await newKey(ledger, {
      periodStart: new Date(NOW.getTime() - 70 * DAY).toISOString(),
      periodEnd: new Date(NOW.getTime() - 40 * DAY).toISOString(),
      paidUntil: new Date(NOW.getTime() + 300 * DAY).toISOString(),
      creditsLeft: 0,
    });
    const renewed = await ledger.debit(renewing.hash, 3, call(), NOW);
    expect(renewed).toMatchObject({ ok: true, record: { creditsLeft: 3000 - 3 } });
    if (renewed.ok) {
      expect(renewed.record.periodStart <= NOW.toISOString() && NOW.toISOString() < renewed.record.periodEnd).toBe(true);
    }
  });

  it("take is the debit without the key's record: the same credits, entry and refusals", async () => {
    const ledger = make();
    const key = await newKey(ledger, { creditsLeft: 5 });
    const taken = await ledger.take(key.hash, 3, call('watch'), NOW);
    expect(taken).toEqual({ ok: true, usage: expect.objectContaining({ hash: key.hash, requestId: 'watch', credits: 3, at: NOW.toISOString() }) });
    expect(await ledger.take(key.hash, 3, call(), NOW)).toMatchObject({ ok: false, reason: 'quota_exceeded', record: { creditsLeft: 2 } });
    expect((await ledger.get(key.hash))!.creditsLeft).toBe(2);
    expect(await ledger.usage(key.hash, '2026-11')).toHaveLength(1);
  });

  it('refunds a call once, and only that call', async () => {
    const ledger = make();
    const key = await newKey(ledger);
    const a = await ledger.debit(key.hash, 5, call('r'), NOW);
    const b = await ledger.debit(key.hash, 5, call('r'), NOW);
    if (!a.ok || !b.ok) throw new Error('debit refused');
    expect(await ledger.refund(a.usage, new Date(NOW.getTime() + 1000))).toBe(true);
    expect(await ledger.refund(a.usage, new Date(NOW.getTime() + 2000))).toBe(false);
    expect((await ledger.get(key.hash))!.creditsLeft).toBe(3000 - 5);
    const entries = await ledger.usage(key.hash, '2026-11');
    expect(entries.find((e) => e.callId === a.usage.callId)!.refundedAt).toBe(new Date(NOW.getTime() + 1000).toISOString());
    expect(entries.find((e) => e.callId === b.usage.callId)!.refundedAt).toBeUndefined();
  });
});
