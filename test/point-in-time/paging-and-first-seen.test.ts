/**
 * Two edges of point in time (issues 34 and 39):
 * - paging: the point-in-time store's latest read pages back through figures that were revised after
 *   the instant; one of them is a candidate only when its release came before the instant
 *   (shared/store/point-in-time-store.ts, `candidate`). Figures are synthetic test values.
 * - first_seen_at: a live run records when this service first held each figure, and a past instant
 *   never answers a live figure before the later of its release and that retrieval (through the real
 *   runner on the embedded store; the FRED H.10 figures are the real ones of 2025-11-28, fixtures/fred).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredObservation } from '../../shared/observation/schema';
import { toServed } from '../../shared/observation/serve';
import { knownFrom, rewrite, type StoredVintage } from '../../shared/observation/vintage';
import { fred } from '../../shared/sources/fred';
import { runSource } from '../../shared/sources/runner';
import type { FetchLike } from '../../shared/sources/types';
import { MemoryObservationStore } from '../../shared/store/memory-observation-store';
import { PointInTimeStore } from '../../shared/store/point-in-time-store';
import { startTestStore, type TestStore } from '../helpers/store';
import { syntheticObservation } from '../helpers/synthetic-observation';

const KEY = 'PRICE#TEST';
const day = (n: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + n * 86_400_000).toISOString().slice(0, 10);
const instant = (n: number, hour = 12) => new Date(Date.parse('2026-01-01T00:00:00Z') + n * 86_400_000 + hour * 3_600_000).toISOString();

describe('point-in-time latest read: paging past figures released after the instant', () => {
  // The instant: 2026-03-02 12:00Z (day 60).
  const T = instant(60);
  const store = new MemoryObservationStore();
  const seeded = (async () => {
    // B (day 10): released day 11, revised on day 70; its old value 10 holds at T, from a vintage
    // older than the read's recent span (31 days).
    const b: StoredObservation = syntheticObservation(day(10), 11, { published_at: instant(11), known_from: instant(70), retrieved_at: instant(70) });
    const bOld: StoredVintage = {
      ...syntheticObservation(day(10), 10, { published_at: instant(11), retrieved_at: instant(11) }),
      known_from: instant(11),
      known_to: instant(70),
    };
    // Six later figures (days 50-55), each released after T (day 61) and revised after that (day 65):
    // none was known at T, so none may stand in for the answer.
    const late = [50, 51, 52, 53, 54, 55].map((n) =>
      syntheticObservation(day(n), 100 + n, { published_at: instant(61), known_from: instant(65), retrieved_at: instant(65) }),
    );
    const lateOld: StoredVintage[] = late.map((o) => ({ ...o, value: o.value - 1, known_from: instant(61), known_to: instant(65) }));
    await store.putVintages([bOld, ...lateOld].map((vintage) => ({ seriesKey: KEY, vintage })));
    await store.upsertMany([b, ...late].map((observation) => ({ seriesKey: KEY, observation })));
  })();

  it('answers the old value of the figure released before the instant, found on the second page', async () => {
    await seeded;
    // The first page (n + 4 = 5 figures) holds only figures released after T: none is a candidate,
    // so the read pages on and finds B, whose vintage (10) is the value known at T.
    const latest = await new PointInTimeStore(store, new Date(T)).latest(KEY);
    expect(latest).toMatchObject({ as_of: day(10), value: 10, attributes: { known_from: instant(11) } });
    const recent = await new PointInTimeStore(store, new Date(T)).recent(KEY, 2);
    expect(recent.map((o) => [o.as_of, o.value])).toEqual([[day(10), 10]]);
    // After the late releases, their first prints (vintages) answer.
    expect(await new PointInTimeStore(store, new Date(instant(62))).latest(KEY)).toMatchObject({ as_of: day(55), value: 154 });
  });
});

describe('first_seen_at: a live figure is never known before this service first held it', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await startTestStore();
  });
  afterAll(async () => t.close());

  // The H.10 of Monday 2025-12-01 (16:15 EST = 21:15Z) carries Friday 2025-11-28 (fixtures/fred/*.csv).
  const RELEASE = '2025-12-01T21:15:00.000Z';
  const SEEN = '2025-12-02T03:00:00.000Z';
  const NOV_28: Record<string, string> = { DEXUSEU: '1.1600', DTWEXBGS: '121.0527', DEXCHUS: '7.0751' };
  const fetch: FetchLike = async (url) => {
    const id = /id=(\w+)/.exec(String(url))![1]!;
    return new Response(`observation_date,${id}\n2025-11-28,${NOV_28[id]}\n`);
  };

  it('records the first live retrieval and answers the figure from then on, not from its release', async () => {
    const r = await runSource(fred, { mode: 'live', store: t.store, config: t.config, fetch, now: new Date(SEEN) });
    expect(r.status, r.message).toBe('ok');
    const [stored] = (await t.store.window('PRICE#EURUSD', '2025-11-28', '2025-11-28', 1)).items;
    expect(stored).toMatchObject({ value: 1.16, published_at: RELEASE, first_seen_at: SEEN });
    expect(knownFrom(stored!)).toBe(SEEN);
    // Released at 21:15Z, but this service held it only at 03:00Z: an instant between gets nothing.
    expect(await new PointInTimeStore(t.store, new Date('2025-12-01T23:00:00Z')).latest('PRICE#EURUSD')).toBeNull();
    expect(await new PointInTimeStore(t.store, new Date(SEEN)).latest('PRICE#EURUSD')).toMatchObject({ value: 1.16, attributes: { known_from: SEEN } });
    // A later run keeps the first retrieval.
    await runSource(fred, { mode: 'live', store: t.store, config: t.config, fetch, now: new Date('2025-12-03T03:00:00Z') });
    expect((await t.store.window('PRICE#EURUSD', '2025-11-28', '2025-11-28', 1)).items[0]).toMatchObject({ first_seen_at: SEEN });
    // It is not served (the contract has no such field).
    expect(toServed(stored!, { hit: false, ttlS: 0 })).not.toHaveProperty('first_seen_at');
  });

  it('is recorded by live runs only; a replayed figure is known from its release', () => {
    const o = syntheticObservation('2025-11-28', 1.16, { published_at: RELEASE, retrieved_at: SEEN });
    expect(rewrite(undefined, { ...o, retrieval: 'live' }, SEEN).observation.first_seen_at).toBe(SEEN);
    expect(rewrite(undefined, { ...o, retrieval: 'replay' }, SEEN).observation.first_seen_at).toBeUndefined();
    // Seen before its release (a publisher early, a calendar late): known from the release.
    expect(knownFrom({ ...o, first_seen_at: '2025-12-01T21:00:00.000Z' })).toBe(RELEASE);
    // A known-from stored before a calendar fix moved the release later: never before the release.
    expect(knownFrom({ ...o, known_from: '2025-12-01T20:00:00.000Z' })).toBe(RELEASE);
  });
});
