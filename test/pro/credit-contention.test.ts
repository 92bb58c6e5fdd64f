/**
 * One hot Pro key under concurrent calls. DynamoDB cancels a transaction that meets another one on
 * the same item (TransactionCanceledException, reason TransactionConflict) and rejects a plain write
 * that meets one (TransactionConflictException); the embedded store runs transactions one at a time
 * and never does. So the DynamoDB ledger runs here on a document client that injects those
 * conflicts on a fraction of its writes (a seeded generator), before they reach the store, as
 * DynamoDB does (a cancelled transaction writes nothing). What must hold: a conflict is retried with
 * growing, jittered waits, a conflict that persists is answered 503 CREDITS_BUSY (never 402
 * QUOTA_EXCEEDED), and the credits left are the start minus the successful debits, with one usage
 * entry per debit.
 */
import { randomUUID } from 'node:crypto';
import { TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCreditLedger } from '../../shared/pro/credit-ledger';
import { backoffMs, DEFAULT_RETRY, newKeyRecord, type DebitResult, type RetryPolicy } from '../../shared/pro/credit-port';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { charge } from '../../shared/payment/charge';
import type { PaymentDeps } from '../../shared/payment/lane';
import { loadConfig } from '../../shared/config';
import { findRoute } from '../../shared/routes/table';
import { startTestStore, type TestStore } from '../helpers/store';

/** mulberry32: a small seeded generator, so a run's injections are reproducible in count. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const transactionConflict = () =>
  Object.assign(new Error('Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict, None]'), {
    name: 'TransactionCanceledException',
    CancellationReasons: [{ Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }, { Code: 'None' }],
  });
const writeConflict = () => Object.assign(new Error('Transaction is ongoing for the item'), { name: 'TransactionConflictException' });

/** The document client with conflicts injected on `fraction` of its writes (transactions and plain updates). */
const conflicting = (doc: DynamoDBDocumentClient, fraction: number, random: () => number) => {
  const stats = { injected: 0, sent: 0 };
  const client = {
    send: async (command: unknown) => {
      const write = command instanceof TransactWriteCommand || command instanceof UpdateCommand;
      if (write && random() < fraction) {
        stats.injected++;
        throw command instanceof TransactWriteCommand ? transactionConflict() : writeConflict();
      }
      stats.sent++;
      return doc.send(command as never);
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, stats };
};

const PRICE = 1;
const MONTH = new Date().toISOString().slice(0, 7);

describe('one hot Pro key, transaction conflicts injected', () => {
  let store: TestStore;
  let admin: DynamoCreditLedger;
  beforeAll(async () => {
    store = await startTestStore({ STORE_TIMEOUT_MS: '20000' });
    admin = new DynamoCreditLedger(store.doc, store.config.CREDITS_TABLE);
  });
  afterAll(() => store?.close());

  const newKey = async (creditsLeft: number) => {
    const key = generateKey();
    await admin.put({ ...newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }), creditsLeft });
    return hashKey(key);
  };
  /** The lane's ledger on the conflicting client; waits are recorded and taken at once (the test is about outcomes, not time). */
  const laneOn = (fraction: number, seed: number, random = seeded(seed)) => {
    const waits: number[] = [];
    const { client, stats } = conflicting(store.doc, fraction, random);
    const retry: Partial<RetryPolicy> = {
      sleep: async (ms) => {
        waits.push(ms);
        await new Promise((r) => setImmediate(r));
      },
      random: seeded(seed + 1),
    };
    return { ledger: new DynamoCreditLedger(client, store.config.CREDITS_TABLE, retry), waits, stats };
  };
  const debitAll = (ledger: DynamoCreditLedger, hash: string, n: number, now = new Date()) =>
    Promise.all(Array.from({ length: n }, () => ledger.debit(hash, PRICE, { callId: randomUUID(), requestId: 'req-shared', route: 'GET /v1/fx/{pair}' }, now)));

  it('200 concurrent calls, a third of the writes conflicting: no false QUOTA_EXCEEDED; credits and usage entries match the debits', async () => {
    const hash = await newKey(3000);
    const { ledger, stats, waits } = laneOn(1 / 3, 26);
    const results = await debitAll(ledger, hash, 200);
    const ok = results.filter((r): r is Extract<DebitResult, { ok: true }> => r.ok);
    const refused = results.filter((r) => !r.ok).map((r) => (r as { reason: string }).reason);
    expect(stats.injected).toBeGreaterThan(50); // the conflicts happened
    expect(waits.length).toBeGreaterThanOrEqual(stats.injected); // each was waited on before the next write
    expect(refused.filter((r) => r !== 'conflict')).toEqual([]);
    expect(ok.length).toBeGreaterThanOrEqual(195); // 8 attempts: a call fails only if 8 writes in a row conflict
    expect((await admin.get(hash))!.creditsLeft).toBe(3000 - ok.length * PRICE);
    const entries = await admin.usage(hash, MONTH);
    expect(entries).toHaveLength(ok.length);
    expect(new Set(entries.map((e) => e.callId))).toEqual(new Set(ok.map((r) => r.usage.callId)));
  }, 60_000);

  it('exactly enough credits for 200 calls: each call either pays or is told to retry; none is told it has no credits', async () => {
    const hash = await newKey(200);
    const { ledger } = laneOn(0.3, 7);
    const results = await debitAll(ledger, hash, 200);
    const ok = results.filter((r) => r.ok).length;
    expect(results.filter((r) => !r.ok && r.reason !== 'conflict')).toEqual([]);
    expect((await admin.get(hash))!.creditsLeft).toBe(200 - ok);
    expect(await admin.usage(hash, MONTH)).toHaveLength(ok);
    // and once the credits are spent, the verdict is quota_exceeded
    await debitAll(new DynamoCreditLedger(store.doc, store.config.CREDITS_TABLE), hash, 200 - ok);
    expect(await ledger.debit(hash, PRICE, { callId: randomUUID(), requestId: 'r', route: 'GET /v1/fx/{pair}' }, new Date())).toMatchObject({
      ok: false,
      reason: 'quota_exceeded',
    });
  }, 60_000);

  it('a conflict that persists: every call answers 503 CREDITS_BUSY (retryable), nothing is taken, after growing jittered waits', async () => {
    const hash = await newKey(3000);
    const { ledger, waits } = laneOn(1, 3);
    const results = await debitAll(ledger, hash, 20);
    expect(results.map((r) => !r.ok && r.reason)).toEqual(Array.from({ length: 20 }, () => 'conflict'));
    expect((await admin.get(hash))!.creditsLeft).toBe(3000);
    expect(await admin.usage(hash, MONTH)).toEqual([]);
    // 7 waits per call (8 writes); the n-th drawn below min(cap, base x 2^n)
    expect(waits).toHaveLength(20 * (DEFAULT_RETRY.attempts - 1));
    const bounds = Array.from({ length: DEFAULT_RETRY.attempts - 1 }, (_, n) => Math.min(DEFAULT_RETRY.capMs, DEFAULT_RETRY.baseMs * 2 ** n));
    expect(bounds).toEqual([10, 20, 40, 80, 160, 320, 400]);
    for (const w of waits) expect(w).toBeGreaterThanOrEqual(0);
    expect(Math.max(...waits)).toBeLessThan(400);
    expect(new Set(waits).size).toBeGreaterThan(20); // jittered, not in step

    // The lane turns it into a retryable 503, not a quota verdict.
    const proKey = generateKey();
    await admin.put({ ...newKeyRecord({ hash: hashKey(proKey), hint: keyHint(proKey), plan: 'monthly', now: new Date() }) });
    const deps = {
      config: loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', X402_ENFORCE: '1', PRO_RATE_LIMIT_PER_SECOND: '1000' }),
      credits: ledger,
      now: () => new Date(),
      log: { info: () => {}, warn: () => {}, error: () => {} },
    } as unknown as PaymentDeps;
    const call = {
      route: findRoute('GET /v1/fx/{pair}')!,
      resource: { path: '/v1/fx/EURUSD', url: 'https://x/v1/fx/EURUSD' },
      callId: 'c1',
      requestId: 'req-1',
      timeLeftMs: () => 25_000,
    };
    const answer = await charge({ kind: 'pro', key: proKey }, call, deps);
    expect(answer.type === 'refused' && answer.refusal.error).toMatchObject({ statusCode: 503, code: 'CREDITS_BUSY', retryable: true });
  }, 60_000);

  it('a refund meeting conflicts is retried and lands once', async () => {
    const hash = await newKey(100);
    const plain = new DynamoCreditLedger(store.doc, store.config.CREDITS_TABLE);
    const debit = await plain.debit(hash, 10, { callId: randomUUID(), requestId: 'r', route: 'GET /v1/fx/{pair}' }, new Date());
    if (!debit.ok) throw new Error('debit refused');
    // every other write conflicts, the first one included
    let n = 0;
    const { ledger, stats } = laneOn(0.5, 11, () => (n++ % 2 === 0 ? 0 : 0.9));
    const refunds = await Promise.all(Array.from({ length: 5 }, () => ledger.refund(debit.usage, new Date())));
    expect(stats.injected).toBeGreaterThan(0);
    expect(refunds.filter(Boolean)).toHaveLength(1);
    expect((await admin.get(hash))!.creditsLeft).toBe(100);
  }, 60_000);
});

describe('backoff', () => {
  it('waits up to base x 2^attempt, capped, drawn uniformly (full jitter)', () => {
    const p = { baseMs: 10, capMs: 400 };
    expect([0, 1, 2, 3, 4, 5, 6, 10].map((n) => backoffMs(n, { ...p, random: () => 0.999999 }))).toEqual([9, 19, 39, 79, 159, 319, 399, 399]);
    expect(backoffMs(5, { ...p, random: () => 0 })).toBe(0);
    expect(backoffMs(5, { ...p, random: () => 0.5 })).toBe(160);
  });
});
