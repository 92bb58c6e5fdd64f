/**
 * A store as known at a past instant (shared/store/point-in-time-store.ts), over the DynamoDB adapter
 * on the embedded store and over the in-memory store: the same answers. Figures are synthetic test
 * values; their release instants follow EIA's weekly spot release (Wednesdays 10:30 ET).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredObservation } from '../../shared/observation/schema';
import type { StoredVintage } from '../../shared/observation/vintage';
import { MemoryObservationStore } from '../../shared/store/memory-observation-store';
import type { ObservationStore } from '../../shared/store/observation-store';
import { PointInTimeStore } from '../../shared/store/point-in-time-store';
import { startTestStore, type TestStore } from '../helpers/store';
import { syntheticObservation } from '../helpers/synthetic-observation';

const KEY = 'PRICE#CL';
/** Daily figures of one week, all released the next Wednesday at 10:30 ET (15:30Z in winter). */
const WEEK1 = ['2026-01-05', '2026-01-06', '2026-01-07', '2026-01-08', '2026-01-09'];
const WEEK2 = ['2026-01-12', '2026-01-13', '2026-01-14', '2026-01-15', '2026-01-16'];
const RELEASE1 = '2026-01-14T15:30:00.000Z';
const RELEASE2 = '2026-01-21T15:30:00.000Z';
/** A revision of 2026-01-09, seen by a run on 2026-02-01. */
const REVISED_AT = '2026-02-01T00:00:00.000Z';

const obs = (as_of: string, value: number, published_at: string, over: Partial<StoredObservation> = {}): StoredObservation =>
  syntheticObservation(as_of, value, { retrieved_at: '2026-02-01T00:00:00.000Z', published_at, ...over });

const seed = async (store: ObservationStore) => {
  await store.upsertMany([
    ...WEEK1.map((d, i) => ({ seriesKey: KEY, observation: obs(d, 70 + i, RELEASE1) })),
    ...WEEK2.map((d, i) => ({ seriesKey: KEY, observation: obs(d, 80 + i, RELEASE2) })),
  ]);
  // 2026-01-09 was 74 as first published, revised to 74.5.
  const old: StoredVintage = { ...obs('2026-01-09', 74, RELEASE1), known_from: RELEASE1, known_to: REVISED_AT };
  await store.putVintages([{ seriesKey: KEY, vintage: old }]);
  await store.upsertMany([{ seriesKey: KEY, observation: obs('2026-01-09', 74.5, RELEASE1, { known_from: REVISED_AT }) }]);
  await store.putNotes([
    { seriesKey: 'USGS#gold#x', as_of: '2024-12-31', published_value: 'E', note: 'net exporter', unit: 'percent', published_at: '2025-01-31T00:00:00.000Z' },
    {
      seriesKey: 'USGS#gold#x',
      as_of: '2025-12-31',
      published_value: 's',
      note: 'no meaningful figure',
      unit: 'percent',
      published_at: '2026-02-06T00:00:00.000Z',
    },
  ]);
  await store.putRunStatus({
    source: 'eia-spot',
    last_attempt_at: '2026-02-01T00:00:00.000Z',
    last_success_at: '2026-02-01T00:00:00.000Z',
    last_error: null,
    last_items: 10,
    last_mode: 'live',
    quarantined: [],
    data_newest: { as_of: '2026-01-16', freshness_class: 'eod', series: KEY },
  });
};

const at = (store: ObservationStore, iso: string) => new PointInTimeStore(store, new Date(iso));

describe.each([
  ['DynamoDB adapter (embedded store)', 'dynamo'],
  ['in-memory store', 'memory'],
] as const)('PointInTimeStore over the %s', (_name, kind) => {
  let t: TestStore | undefined;
  let store: ObservationStore;
  beforeAll(async () => {
    if (kind === 'dynamo') {
      t = await startTestStore();
      store = t.store;
    } else store = new MemoryObservationStore();
    await seed(store);
  });
  afterAll(async () => t?.close());

  it('answers the latest figure published by the instant: a minute before a release the previous week, at it the new one', async () => {
    expect((await at(store, '2026-01-21T15:29:00Z').latest(KEY))?.as_of).toBe('2026-01-09');
    expect((await at(store, '2026-01-21T15:30:00Z').latest(KEY))?.as_of).toBe('2026-01-16');
    expect(await at(store, '2026-01-14T15:29:59Z').latest(KEY)).toBeNull();
  });

  it('answers a revised figure with its old value inside its old interval, and the revision after it', async () => {
    expect((await at(store, '2026-01-21T15:29:00Z').latest(KEY))?.value).toBe(74);
    expect((await at(store, '2026-01-31T23:59:59Z').recent(KEY, 6)).map((o) => o.value)).toEqual([84, 83, 82, 81, 80, 74]);
    expect((await at(store, REVISED_AT).recent(KEY, 6)).map((o) => o.value)).toEqual([84, 83, 82, 81, 80, 74.5]);
    const w = await at(store, '2026-01-20T00:00:00Z').window(KEY, '2026-01-01', '2026-01-31', 100);
    expect(w.items.map((o) => o.value)).toEqual([70, 71, 72, 73, 74]);
  });

  it('marks every answered figure with the instant asked for and its own known-from, and never its known-to', async () => {
    const [old] = await at(store, '2026-01-20T00:00:00Z').recent(KEY, 1);
    expect(old?.attributes).toEqual({ as_known_at: '2026-01-20T00:00:00.000Z', known_from: RELEASE1 });
    expect(old && 'known_to' in old).toBe(false);
    const [revised] = (await at(store, '2026-02-02T00:00:00Z').window(KEY, '2026-01-09', '2026-01-09', 10)).items;
    expect(revised?.attributes).toEqual({ as_known_at: '2026-02-02T00:00:00.000Z', known_from: REVISED_AT });
  });

  it('pages past figures published after the instant when more are asked for than the first page holds', async () => {
    // A day after RELEASE1, week 2's first days (dated before the instant's date) are not out yet: the
    // first page (n + 4 newest dates) holds one known figure, the next page the other.
    expect((await at(store, '2026-01-15T15:30:00Z').recent(KEY, 2)).map((o) => o.as_of)).toEqual(['2026-01-09', '2026-01-08']);
    expect((await at(store, '2026-01-15T15:30:00Z').recent(KEY, 8)).map((o) => o.as_of)).toEqual([...WEEK1].reverse());
  });

  it('names when a series read empty at the instant was first published', async () => {
    const view = at(store, '2026-01-01T00:00:00Z');
    expect(await view.latest(KEY)).toBeNull();
    expect(await view.latest('PRICE#NONE')).toBeNull();
    expect(await view.firstKnownFrom()).toEqual({ [KEY]: RELEASE1, 'PRICE#NONE': null });
  });

  it('answers value-less figures printed by the instant only', async () => {
    expect((await at(store, '2025-06-01T00:00:00Z').notes('USGS#gold#x', 5)).map((n) => n.published_value)).toEqual(['E']);
    expect((await at(store, '2026-03-01T00:00:00Z').notes('USGS#gold#x', 5)).map((n) => n.published_value)).toEqual(['s', 'E']);
  });

  it("answers a source's status at the instant by its data alone: no runs, its newest figure then", async () => {
    expect(await at(store, '2026-01-15T00:00:00Z').getRunStatus('eia-spot')).toEqual({
      source: 'eia-spot',
      last_attempt_at: null,
      last_success_at: null,
      last_error: null,
      last_items: null,
      last_mode: 'live',
      quarantined: [],
      data_newest: { as_of: '2026-01-09', freshness_class: 'eod', series: KEY },
      as_known_at: '2026-01-15T00:00:00.000Z',
    });
    expect((await at(store, '2026-01-01T00:00:00Z').getRunStatus('eia-spot'))?.data_newest).toBeUndefined();
  });

  it('keeps vintages apart from the series and removes them with an operator repair', async () => {
    expect((await store.range(KEY, { limit: 100 })).items).toHaveLength(10);
    expect(await store.vintages(KEY, '2026-01-09', '2026-01-09')).toEqual([{ ...obs('2026-01-09', 74, RELEASE1), known_from: RELEASE1, known_to: REVISED_AT }]);
    expect(await store.vintages(KEY, '2026-01-10', '2026-01-31')).toEqual([]);
    expect(await store.deleteRange(KEY, '2026-01-09', '2026-01-09')).toBe(1);
    expect(await store.vintages(KEY, '2026-01-01', '2026-01-31')).toEqual([]);
  });
});

describe('PointInTimeStore over a series revised after the instant', () => {
  it('answers the latest figure from its vintage without paging through every revised figure', async () => {
    const store = new MemoryObservationStore();
    const days = Array.from({ length: 40 }, (_, i) => new Date(Date.UTC(2026, 0, 5 + i)).toISOString().slice(0, 10));
    const published = (d: string) => `${d}T23:00:00.000Z`;
    await store.upsertMany(days.map((d, i) => ({ seriesKey: KEY, observation: obs(d, 70 + i, published(d), { known_from: REVISED_AT }) })));
    await store.putVintages(
      days.map((d, i) => ({ seriesKey: KEY, vintage: { ...obs(d, 60 + i, published(d)), known_from: published(d), known_to: REVISED_AT } })),
    );
    let reads = 0;
    const counting = new Proxy(store, {
      get: (target, prop, receiver) => {
        const v = Reflect.get(target, prop, receiver);
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          reads++;
          return v.apply(target, args);
        };
      },
    });
    // Every figure was revised on 2026-02-01: at 2026-01-30 each answers its first print.
    const view = at(counting, '2026-01-30T12:00:00Z');
    expect((await view.recent(KEY, 3)).map((o) => [o.as_of, o.value])).toEqual([
      ['2026-01-29', 84],
      ['2026-01-28', 83],
      ['2026-01-27', 82],
    ]);
    expect(reads).toBe(2); // one page of the series, one of its vintages
  });
});
