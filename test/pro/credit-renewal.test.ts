/**
 * The monthly renewal of Pro credits at its edges: the exact instant a credit month or a paid
 * subscription ends, and two calls that both find the month over and renew at once (embedded store,
 * the interleaving forced by holding one renewal's write until the other call is done).
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCreditLedger } from '../../shared/pro/credit-ledger';
import { newKeyRecord, periodContaining, refusalOf, type KeyRecord } from '../../shared/pro/credit-port';
import { startTestStore, type TestStore } from '../helpers/store';

const NOW = new Date('2026-11-20T12:00:00.000Z');
const ISO_NOW = NOW.toISOString();
const DAY = 86_400_000;
const iso = (ms: number) => new Date(NOW.getTime() + ms).toISOString();
const key = (patch: Partial<KeyRecord> = {}): KeyRecord => ({
  ...newKeyRecord({ hash: randomUUID().replace(/-/g, ''), hint: 'cds_live_…abcd', plan: 'monthly', now: new Date('2026-09-20T12:00:00.000Z') }),
  ...patch,
});

describe('credit month boundaries (pure)', () => {
  it('a month that ends at this instant is over: the next one starts now', () => {
    expect(periodContaining('2026-10-20T12:00:00.000Z', NOW)).toEqual({ start: ISO_NOW, end: '2026-12-20T12:00:00.000Z' });
    // One millisecond before its end it is still the month that contains the instant.
    expect(periodContaining('2026-10-20T12:00:00.000Z', new Date(NOW.getTime() - 1))).toEqual({ start: '2026-10-20T12:00:00.000Z', end: ISO_NOW });
  });

  it('a debit at the instant the month ends renews it; at the instant the subscription ends it is expired', () => {
    expect(refusalOf(key({ periodEnd: ISO_NOW, paidUntil: iso(DAY) }), 1, ISO_NOW)).toBe('renew');
    expect(refusalOf(key({ periodEnd: ISO_NOW, paidUntil: iso(1) }), 1, ISO_NOW)).toBe('renew');
    expect(refusalOf(key({ periodEnd: ISO_NOW, paidUntil: ISO_NOW }), 1, ISO_NOW)).toBe('expired');
    expect(refusalOf(key({ periodEnd: iso(1), paidUntil: ISO_NOW, creditsLeft: 1 }), 1, ISO_NOW)).toBeNull();
  });
});

describe('two calls that renew the same key at once (DynamoCreditLedger, embedded store)', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await startTestStore();
  });
  afterAll(() => store?.close());

  it('reset the credits once: the later renewal sees the month already renewed and debits the new month', async () => {
    // The first renewal write waits, once, until a second call has renewed and debited.
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    let held!: () => void;
    const holding = new Promise<void>((r) => {
      held = r;
    });
    let renewals = 0;
    const doc = new Proxy(store.doc, {
      get(target, prop, receiver) {
        if (prop !== 'send') return Reflect.get(target, prop, receiver);
        return async (command: unknown) => {
          const renewal = command instanceof UpdateCommand && String(command.input.UpdateExpression).includes('credits_left = credits_per_period');
          if (renewal && renewals++ === 0) {
            held();
            await released;
          }
          return target.send(command as never);
        };
      },
    });
    const ledger = new DynamoCreditLedger(doc, store.config.CREDITS_TABLE, { sleep: async () => undefined });
    const record = key({ periodEnd: iso(-40 * DAY), periodStart: iso(-70 * DAY), paidUntil: iso(300 * DAY), creditsLeft: 0 });
    await ledger.put(record);
    const call = () => ({ callId: randomUUID(), requestId: randomUUID(), route: 'GET /v1/price/{code}' });

    const first = ledger.debit(record.hash, 3, call(), NOW);
    await holding; // the first call read the ended month and is about to renew it
    const second = await ledger.debit(record.hash, 5, call(), NOW);
    expect(second).toMatchObject({ ok: true, record: { creditsLeft: 3000 - 5 } });
    release();
    expect(await first).toMatchObject({ ok: true, record: { creditsLeft: 3000 - 5 - 3 } });
    const after = (await ledger.get(record.hash))!;
    expect(after.creditsLeft).toBe(3000 - 8);
    expect(after.periodEnd > ISO_NOW && after.periodStart <= ISO_NOW).toBe(true);
    expect(renewals).toBeGreaterThanOrEqual(2);
  });
});
