/**
 * Issue 37, the money and delivery rules of a watch delivery, on the embedded store with the real
 * credit ledger (the receiver is a stand-in POST function; test/watches/done-when.test.ts posts for
 * real): charged once, only on 2xx; a retry or a duplicated message never charges again; no credits
 * means no POST and a paused watch that says why; retries with backoff, a dead-letter record, a
 * watch disabled after repeated dead deliveries; the schedule spans about 24 h. And the crash window:
 * an attempt that stops between the debit and the POST (its process dies) leaves its credits held
 * only until its lease ends: the message coming back, or the sweep when the message is gone, gives
 * them back, and the buyer ends charged once for the one delivery the receiver took. (Also here, on the
 * same store: a watch creation cancelled by a transaction conflict is retried, never read as "limit".)
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { DynamoCreditLedger, newKeyRecord } from '../../shared/pro/credit-ledger';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { createDocumentClient } from '../../shared/store/client';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { deliver, sweepStopped, type DeliveryDeps } from '../../shared/watches/deliver';
import { ATTEMPT_LEASE_S, SWEEP_AFTER_S } from '../../shared/watches/lease';
import type { PostFn, PostResult } from '../../shared/watches/post';
import type { DeliveryQueue } from '../../shared/watches/queue';
import { DISABLE_AFTER_DEAD_DELIVERIES, deliveryIdOf, type DeliveryMessage, RETRY_DELAYS_S, type Watch } from '../../shared/watches/watch';
import { WatchStore } from '../../shared/watches/watch-store';
import { startTestStack } from '../helpers/stack';

let stack: LocalStack;
let doc: DynamoDBDocumentClient;
let ledger: DynamoCreditLedger;
let watches: WatchStore;

beforeAll(async () => {
  stack = await startTestStack({}, false);
  doc = createDocumentClient(stack.config);
  ledger = new DynamoCreditLedger(doc, stack.config.CREDITS_TABLE);
  watches = new WatchStore(doc, stack.config.CREDITS_TABLE);
}, 120_000);
afterAll(async () => stack?.close());

/** A queue that keeps what it was given (the test runs the retries itself). */
const recordingQueue = () => {
  const sent: Array<{ m: DeliveryMessage; delayS: number }> = [];
  const queue: DeliveryQueue = { send: async (ms, delayS) => void sent.push(...ms.map((m) => ({ m, delayS }))) };
  return { queue, sent };
};

/** A receiver answering the given statuses in turn (the last one repeats), recording each POST. */
const receiverAnswering = (...statuses: Array<number | null>) => {
  const posts: Array<{ url: string; body: string; headers: Record<string, string> }> = [];
  const post: PostFn = async (url, body, headers) => {
    posts.push({ url, body, headers });
    const s = statuses[Math.min(posts.length - 1, statuses.length - 1)]!;
    return (s === null ? { status: null, error: 'connection refused' } : { status: s, error: null }) as PostResult;
  };
  return { post, posts };
};

const SECRET = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
let key: string;
let hash: string;
let watch: Watch;
let clock: Date;

const newWatch = async (): Promise<Watch> => {
  const w: Watch = {
    id: `w${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    keyHash: hash,
    path: '/v1/inventory/eia',
    routeId: 'GET /v1/inventory/eia',
    url: 'https://agent.example/hook',
    state: 'active',
    reason: null,
    createdAt: clock.toISOString(),
    deliveries: 0,
    failures: 0,
    deadInRow: 0,
    lastDeliveredAt: null,
    lastEtag: '"baseline"',
    creditsCharged: 0,
  };
  expect(await watches.create(w, SECRET, '"baseline"')).toBe(true);
  return w;
};

const messageFor = (w: Watch, etag: string): DeliveryMessage => ({
  deliveryId: deliveryIdOf(w.id, etag),
  watchId: w.id,
  keyHash: w.keyHash,
  etag,
  answer: { series: 'synthetic test answer' },
  release: { source: 'eia-petroleum', series: 'INV#crude_ex_spr', as_of: '2026-02-13', ingested_at: clock.toISOString() },
  credits: 3,
  attempt: 0,
  notBefore: clock.toISOString(),
});

const deps = (post: PostFn, queue: DeliveryQueue, over: Partial<DeliveryDeps> = {}): DeliveryDeps => ({
  watches,
  credits: ledger,
  queue,
  post,
  now: () => clock,
  ...over,
});

const credits = async () => (await ledger.get(hash))!.creditsLeft;

beforeEach(async () => {
  clock = new Date();
  key = generateKey();
  hash = hashKey(key);
  await ledger.put(newKeyRecord({ hash, hint: keyHint(key), plan: 'monthly', now: clock }));
  watch = await newWatch();
});

describe('a delivery is charged once, only when the receiver answers 2xx', () => {
  it('2xx: charged the route price once; the same message again (a queue redelivery) charges and posts nothing', async () => {
    const { post, posts } = receiverAnswering(200);
    const { queue } = recordingQueue();
    const m = messageFor(watch, '"e1"');
    expect(await deliver(m, deps(post, queue))).toBe('delivered');
    expect(await credits()).toBe(3000 - 3);
    // Signed per Standard Webhooks with the watch's secret; webhook-id is the delivery id.
    const payload = new Webhook(SECRET).verify(posts[0]!.body, posts[0]!.headers) as Record<string, unknown>;
    expect(payload).toMatchObject({ etag: '"e1"', credits_charged: 3, data: { series: 'synthetic test answer' } });
    expect(posts[0]!.headers['webhook-id']).toBe(m.deliveryId);

    expect(await deliver(m, deps(post, queue))).toBe('skipped');
    expect(await deliver({ ...m, attempt: 1 }, deps(post, queue))).toBe('skipped');
    expect(posts).toHaveLength(1);
    expect(await credits()).toBe(3000 - 3);
    expect(await watches.get(hash, watch.id)).toMatchObject({ deliveries: 1, creditsCharged: 3, lastEtag: '"e1"' });
  });

  it('a failed attempt gives its hold back and is retried with backoff; the 2xx retry is the one charge', async () => {
    const { post, posts } = receiverAnswering(500, null, 204);
    const { queue, sent } = recordingQueue();
    expect(await deliver(messageFor(watch, '"e2"'), deps(post, queue))).toBe('retrying');
    expect(await credits()).toBe(3000);
    expect(sent[0]).toMatchObject({ delayS: RETRY_DELAYS_S[0], m: { attempt: 1 } });
    // Not due yet: a queue that delivers early gets it back with the rest of the wait.
    expect(await deliver(sent[0]!.m, deps(post, queue))).toBe('deferred');
    clock = new Date(clock.getTime() + RETRY_DELAYS_S[0]! * 1000);
    expect(await deliver(sent[0]!.m, deps(post, queue))).toBe('retrying');
    expect(await credits()).toBe(3000);
    const third = sent.at(-1)!;
    expect(third).toMatchObject({ delayS: RETRY_DELAYS_S[1], m: { attempt: 2 } });
    clock = new Date(clock.getTime() + RETRY_DELAYS_S[1]! * 1000);
    expect(await deliver(third.m, deps(post, queue))).toBe('delivered');
    expect(posts.map((p) => p.headers['webhook-id'])).toEqual(Array(3).fill(deliveryIdOf(watch.id, '"e2"')));
    expect(await credits()).toBe(3000 - 3);
    // The retry of a delivered delivery (a late duplicate) is never charged again.
    expect(await deliver(third.m, deps(post, queue))).toBe('skipped');
    expect(await credits()).toBe(3000 - 3);
    const usage = await ledger.usage(hash, clock.toISOString().slice(0, 7));
    expect(usage.filter((u) => !u.refundedAt).map((u) => u.credits)).toEqual([3]);
    expect(await watches.deliveries(hash, watch.id)).toMatchObject([{ state: 'delivered', attempts: 3, lastStatus: 204, creditsCharged: 3 }]);
  });

  it('no credits: nothing is posted, the delivery is unpaid and the watch paused with the reason; credits back, it resumes', async () => {
    // Spend the key down to 2 credits (the route costs 3).
    const drained = await ledger.debit(hash, 2998, { callId: 'drain', requestId: 'drain', route: 'GET /v1/price/{code}' }, clock);
    expect(drained.ok).toBe(true);
    const { post, posts } = receiverAnswering(200);
    const { queue, sent } = recordingQueue();
    expect(await deliver(messageFor(watch, '"e3"'), deps(post, queue))).toBe('unpaid');
    expect(posts).toHaveLength(0);
    expect(sent).toHaveLength(0);
    expect(await credits()).toBe(2);
    const paused = await watches.get(hash, watch.id);
    expect(paused).toMatchObject({ state: 'paused' });
    expect(paused!.reason).toMatch(/no credits left/);
    expect((await watches.deliveries(hash, watch.id))[0]).toMatchObject({ state: 'unpaid', creditsCharged: 0 });

    if (drained.ok) await ledger.refund(drained.usage, clock);
    expect(await deliver(messageFor(watch, '"e4"'), deps(post, queue))).toBe('delivered');
    expect(await watches.get(hash, watch.id)).toMatchObject({ state: 'active', reason: null });
  });

  it('every retry failing: the delivery is dead-lettered; after repeated dead deliveries the watch is disabled, saying why', async () => {
    const { post, posts } = receiverAnswering(503);
    const { queue, sent } = recordingQueue();
    const short = { retryDelaysS: [1, 2] };
    for (let i = 0; i < DISABLE_AFTER_DEAD_DELIVERIES; i++) {
      let m = messageFor(watch, `"dead${i}"`);
      for (;;) {
        const outcome = await deliver(m, deps(post, queue, short));
        if (outcome === 'dead') break;
        expect(outcome).toBe('retrying');
        m = sent.at(-1)!.m;
        clock = new Date(Date.parse(m.notBefore));
      }
    }
    expect(posts).toHaveLength(DISABLE_AFTER_DEAD_DELIVERIES * 3);
    expect(await credits()).toBe(3000);
    const records = await watches.deliveries(hash, watch.id);
    expect(records.filter((d) => d.state === 'dead')).toHaveLength(DISABLE_AFTER_DEAD_DELIVERIES);
    expect(records[0]).toMatchObject({ attempts: 3, lastStatus: 503, lastError: 'the receiver answered 503' });
    const disabled = await watches.get(hash, watch.id);
    expect(disabled).toMatchObject({ state: 'disabled', failures: DISABLE_AFTER_DEAD_DELIVERIES * 3 });
    expect(disabled!.reason).toMatch(/3 deliveries in a row failed every retry/);
    // A disabled watch gets nothing more.
    expect(await deliver(messageFor(watch, '"after"'), deps(post, queue))).toBe('skipped');
    expect(posts).toHaveLength(DISABLE_AFTER_DEAD_DELIVERIES * 3);
  });

  it('the retry schedule is exponential and spans about 24 h', () => {
    const total = RETRY_DELAYS_S.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(20 * 3600);
    expect(total).toBeLessThanOrEqual(24 * 3600);
    for (let i = 1; i < RETRY_DELAYS_S.length; i++) expect(RETRY_DELAYS_S[i]).toBeGreaterThanOrEqual(RETRY_DELAYS_S[i - 1]!);
  });
});

describe('an attempt that stops between the debit and the POST never leaves the buyer charged for nothing', () => {
  /** The process dies after the debit, before anything is sent (the POST is where it stops). */
  const crashBeforeSending: PostFn = async () => {
    throw new Error('the process stopped here');
  };
  const later = (s: number) => new Date(clock.getTime() + s * 1000);

  it('the message comes back: held while the attempt may still run, then given back and retried; the 2xx retry is the one charge', async () => {
    const { queue, sent } = recordingQueue();
    const m = messageFor(watch, '"c1"');
    await expect(deliver(m, deps(crashBeforeSending, queue))).rejects.toThrow(/stopped here/);
    expect(await credits()).toBe(3000 - 3);

    // Back within the lease (a duplicate, or the attempt is only slow): nothing taken over yet.
    const { post, posts } = receiverAnswering(200);
    expect(await deliver(m, deps(post, queue))).toBe('deferred');
    expect(sent.at(-1)).toMatchObject({ delayS: ATTEMPT_LEASE_S, m: { attempt: 0 } });
    expect(await credits()).toBe(3000 - 3);
    expect(posts).toHaveLength(0);

    // After the lease: given back, and the delivery retried.
    clock = later(ATTEMPT_LEASE_S + 1);
    expect(await deliver(m, deps(post, queue))).toBe('retrying');
    expect(await credits()).toBe(3000);
    expect((await watches.deliveries(hash, watch.id))[0]).toMatchObject({ state: 'pending', lastError: expect.stringMatching(/stopped/) });
    const retry = sent.at(-1)!;
    expect(retry.m.attempt).toBe(1);
    // A second copy of the stopped attempt's message finds nothing more to give back.
    expect(await deliver(m, deps(post, queue))).toBe('skipped');
    expect(await credits()).toBe(3000);

    clock = new Date(Date.parse(retry.m.notBefore));
    expect(await deliver(retry.m, deps(post, queue))).toBe('delivered');
    expect(await credits()).toBe(3000 - 3);
    expect(posts).toHaveLength(1);
    const usage = await ledger.usage(hash, clock.toISOString().slice(0, 7));
    expect(usage.filter((u) => !u.refundedAt).map((u) => u.credits)).toEqual([3]);
  });

  it('the message is gone: the sweep gives the credits back once SQS could no longer redeliver it, and dead-letters the delivery', async () => {
    const { queue } = recordingQueue();
    await expect(deliver(messageFor(watch, '"c2"'), deps(crashBeforeSending, queue))).rejects.toThrow(/stopped here/);
    const start = clock;
    const sweep = () => sweepStopped({ watches, credits: ledger, queue, now: () => clock });
    // Lease just over: the message may still come back and retry it, so the sweep waits.
    clock = new Date(start.getTime() + (ATTEMPT_LEASE_S + 1) * 1000);
    await sweep();
    expect(await credits()).toBe(3000 - 3);
    clock = new Date(start.getTime() + (ATTEMPT_LEASE_S + SWEEP_AFTER_S + 1) * 1000);
    await sweep();
    expect(await credits()).toBe(3000);
    expect((await watches.deliveries(hash, watch.id))[0]).toMatchObject({ state: 'dead', creditsCharged: 0, lastError: expect.stringMatching(/given back/) });
    // Swept twice: given back once.
    await sweep();
    expect(await credits()).toBe(3000);
  });

  it("the debit landed but its answer was lost (the ledger call failed): nothing is sent and the credits are given back by the entry's key", async () => {
    const lostAnswer: DeliveryDeps['credits'] = {
      take: async (...args) => {
        await ledger.take(...args);
        throw new Error('socket hang up');
      },
      refund: (entry, now) => ledger.refund(entry, now),
    };
    const { post, posts } = receiverAnswering(200);
    const { queue } = recordingQueue();
    expect(await deliver(messageFor(watch, '"c3"'), deps(post, queue, { credits: lostAnswer }))).toBe('retrying');
    expect(posts).toHaveLength(0);
    expect(await credits()).toBe(3000);
  });
});

describe('creating a watch while another transaction holds its path (every create on a path updates its entry)', () => {
  /** DynamoDB's answer to a transaction that met another on one of its items: nothing was decided. */
  const conflict = () =>
    Object.assign(new Error('Transaction cancelled [None, None, None, TransactionConflict]'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'None' }, { Code: 'TransactionConflict' }],
    });
  /** The real store, with the first `n` transactions answered by a conflict. */
  const conflicting = (n: number) => {
    let left = n;
    return {
      send: (command: { constructor: { name: string } }) => {
        if (command.constructor.name === 'TransactWriteCommand' && left-- > 0) return Promise.reject(conflict());
        return doc.send(command as never);
      },
    } as unknown as DynamoDBDocumentClient;
  };
  const created = (w: Watch) => ({ ...w, id: `w${randomUUID().replace(/-/g, '').slice(0, 20)}` });

  it('is tried again and lands; a conflict that outlasts the tries is an error, never "the key holds its limit"', async () => {
    const w = created(watch);
    expect(await new WatchStore(conflicting(2), stack.config.CREDITS_TABLE).create(w, SECRET, '"baseline"')).toBe(true);
    expect(await watches.get(hash, w.id)).toMatchObject({ id: w.id, state: 'active' });
    await expect(new WatchStore(conflicting(1000), stack.config.CREDITS_TABLE).create(created(watch), SECRET, '"baseline"')).rejects.toThrow(
      /TransactionConflict/,
    );
  });
});
