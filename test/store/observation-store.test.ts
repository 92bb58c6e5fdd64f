import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { StoredObservation } from '../../shared/observation/schema';
import { DynamoObservationStore } from '../../shared/store/observation-store';
import { startTestStore, type TestStore } from '../helpers/store';
import { syntheticObservation } from '../helpers/synthetic-observation';

const obs = (as_of: string, value: number): StoredObservation => syntheticObservation(as_of, value);

const days = (n: number) => Array.from({ length: n }, (_, i) => new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10));

describe('DynamoObservationStore on the embedded store', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await startTestStore();
  });
  afterAll(async () => t.close());

  it('upserts idempotently and lets a revision overwrite', async () => {
    const items = days(3).map((d, i) => ({ seriesKey: 'PRICE#T1', observation: obs(d, 70 + i) }));
    await t.store.upsertMany(items);
    await t.store.upsertMany(items);
    expect((await t.store.range('PRICE#T1', { limit: 10 })).items.map((o) => o.value)).toEqual([70, 71, 72]);
    await t.store.upsertMany([{ seriesKey: 'PRICE#T1', observation: obs('2025-01-02', 99.5) }]);
    const page = await t.store.range('PRICE#T1', { limit: 10 });
    expect(page.items.map((o) => o.value)).toEqual([70, 99.5, 72]);
    expect(page.items[1]).toEqual(obs('2025-01-02', 99.5)); // round-trips every field, nulls included
  });

  it('reads the latest and the n most recent, newest first', async () => {
    await t.store.upsertMany(days(40).map((d, i) => ({ seriesKey: 'PRICE#T2', observation: obs(d, i) })));
    expect((await t.store.latest('PRICE#T2'))?.as_of).toBe('2025-02-09');
    expect((await t.store.recent('PRICE#T2', 3)).map((o) => o.value)).toEqual([39, 38, 37]);
    expect(await t.store.latest('PRICE#NONE')).toBeNull();
  });

  it('pages a date range with an exclusive cursor and reports the end', async () => {
    const first = await t.store.range('PRICE#T2', { start: '2025-01-05', end: '2025-01-20', limit: 10 });
    expect(first.items.map((o) => o.as_of)).toEqual(days(20).slice(4, 14));
    expect(first.next).toBe('2025-01-14');
    const second = await t.store.range('PRICE#T2', { start: '2025-01-05', end: '2025-01-20', limit: 10, after: first.next! });
    expect(second.items.map((o) => o.as_of)).toEqual(days(20).slice(14, 20));
    expect(second.next).toBeNull();
  });

  it('answers an empty window (start after end, or a cursor past the end) with no items, not a DynamoDB error', async () => {
    expect(await t.store.range('PRICE#T2', { start: '2026-01-01', end: '2025-02-09', limit: 10 })).toEqual({ items: [], next: null });
    expect(await t.store.range('PRICE#T2', { end: '2025-01-20', after: '2025-01-21', limit: 10 })).toEqual({ items: [], next: null });
    expect(await t.store.window('PRICE#T2', '2026-01-01', '2025-02-09', 100)).toEqual({ items: [], capped: false });
  });

  it('reads the n newest points before a date, newest first', async () => {
    expect((await t.store.before('PRICE#T2', '2025-01-05', 3)).map((o) => o.as_of)).toEqual(['2025-01-04', '2025-01-03', '2025-01-02']);
    expect(await t.store.before('PRICE#T2', '2025-01-01', 3)).toEqual([]);
  });

  it('keeps value-less figures apart from the series, newest first', async () => {
    const note = (as_of: string, published_value: string) => ({
      seriesKey: 'USGS#gold#net_import_reliance',
      as_of,
      published_value,
      note: 'why',
      unit: 'percent',
    });
    await t.store.putNotes([note('2024-12-31', 'E'), note('2025-12-31', 's')]);
    expect((await t.store.notes('USGS#gold#net_import_reliance', 5)).map((n) => n.published_value)).toEqual(['s', 'E']);
    expect(await t.store.recent('USGS#gold#net_import_reliance', 5)).toEqual([]);
  });

  it('writes more than one BatchWriteItem of 25', async () => {
    const n = await t.store.upsertMany(days(60).map((d) => ({ seriesKey: 'PRICE#T3', observation: obs(d, 1) })));
    expect(n).toBe(60);
    expect((await t.store.range('PRICE#T3', { limit: 100 })).items).toHaveLength(60);
  });

  it('keeps and replaces a source run status', async () => {
    const status = { source: 's1', last_attempt_at: 'a', last_success_at: null, last_error: 'boom', last_items: null };
    await t.store.putRunStatus(status);
    expect(await t.store.getRunStatus('s1')).toEqual(status);
    expect(await t.store.getRunStatus('never')).toBeNull();
  });
});

describe('DynamoObservationStore batch retries', () => {
  it('re-sends unprocessed items until none are left, and gives up after a bounded number of attempts', async () => {
    const sent: number[] = [];
    let calls = 0;
    // A document client that leaves the last item unprocessed on the first two calls (throttling).
    const flaky = {
      send: async (cmd: { input: { RequestItems: Record<string, unknown[]> } }) => {
        const reqs = cmd.input.RequestItems.tbl!;
        sent.push(reqs.length);
        calls++;
        return calls <= 2 ? { UnprocessedItems: { tbl: reqs.slice(-1) } } : { UnprocessedItems: {} };
      },
    } as unknown as DynamoDBDocumentClient;
    const store = new DynamoObservationStore(flaky, 'tbl');
    await store.upsertMany(days(3).map((d) => ({ seriesKey: 'X', observation: obs(d, 1) })));
    expect(sent).toEqual([3, 1, 1]);

    const stuck = { send: async (cmd: any) => ({ UnprocessedItems: cmd.input.RequestItems }) } as unknown as DynamoDBDocumentClient;
    await expect(new DynamoObservationStore(stuck, 'tbl').upsertMany([{ seriesKey: 'X', observation: obs('2025-01-01', 1) }])).rejects.toThrow(/unprocessed/);
  });
});

describe('DynamoObservationStore.window', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await startTestStore();
    await t.store.upsertMany(days(50).map((d, i) => ({ seriesKey: 'PRICE#W', observation: obs(d, i) })));
  });
  afterAll(async () => t.close());

  it('reads a whole window across pages, or stops at maxItems and says so', async () => {
    const all = await t.store.window('PRICE#W', '2025-01-01', '2025-12-31', 1000);
    expect(all.items).toHaveLength(50);
    expect(all.capped).toBe(false);
    const capped = await t.store.window('PRICE#W', '2025-01-01', '2025-12-31', 20);
    expect(capped.items.map((o) => o.value)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(capped.capped).toBe(true);
    const exact = await t.store.window('PRICE#W', '2025-01-11', '2025-01-20', 10);
    expect(exact).toMatchObject({ capped: false });
    expect(exact.items).toHaveLength(10);
  });
});
