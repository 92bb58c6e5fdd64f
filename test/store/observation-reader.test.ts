import { describe, expect, it } from 'vitest';
import { seriesKey } from '../../shared/catalog/series-keys';
import { MemoryObservationStore } from '../../shared/store/memory-observation-store';
import { ObservationReader } from '../../shared/store/observation-reader';
import { ReadCache } from '../../shared/store/read-cache';
import { priceObs } from '../helpers/seed-observations';

const setup = async () => {
  let t = 0;
  const store = new MemoryObservationStore();
  await store.upsertMany([priceObs('CL', '2025-06-16', 71.5), priceObs('CL', '2025-06-17', 74.84)]);
  const cache = new ReadCache(100, () => t);
  return { store, reader: new ObservationReader(store, cache), advance: (ms: number) => (t += ms) };
};

describe('ObservationReader', () => {
  it('serves one frozen copy to every cache hit, and a fresh unfrozen copy on a miss', async () => {
    const { reader } = await setup();
    const miss = await reader.window(seriesKey.price('CL'), '2025-06-01', '2025-06-30', 'eod', 100);
    expect(miss.observations.map((o) => o.provenance?.cache_hit)).toEqual([false, false]);
    expect(Object.isFrozen(miss.observations)).toBe(false);

    const hit1 = await reader.window(seriesKey.price('CL'), '2025-06-01', '2025-06-30', 'eod', 100);
    const hit2 = await reader.window(seriesKey.price('CL'), '2025-06-01', '2025-06-30', 'eod', 100);
    expect(hit2.observations).toBe(hit1.observations);
    expect(hit1.observations.map((o) => [o.as_of, o.value, o.provenance?.cache_hit, o.provenance?.cache_ttl_s])).toEqual([
      ['2025-06-16', 71.5, true, 300],
      ['2025-06-17', 74.84, true, 300],
    ]);
    // Shared by every caller, so nobody may change it.
    expect(() => {
      (hit1.observations[0] as { value: number }).value = 0;
    }).toThrow(TypeError);
    expect(() => {
      (hit1.observations[0]!.provenance! as { cache_hit: boolean }).cache_hit = false;
    }).toThrow(TypeError);
  });

  it('reuses a latest() answer on a hit and reloads it when the TTL ends', async () => {
    const { store, reader, advance } = await setup();
    await reader.latest(seriesKey.price('CL'), 'eod');
    const a = await reader.latest(seriesKey.price('CL'), 'eod');
    expect(await reader.latest(seriesKey.price('CL'), 'eod')).toBe(a);
    await store.upsertMany([priceObs('CL', '2025-06-18', 75.14)]);
    advance(300_000);
    const fresh = await reader.latest(seriesKey.price('CL'), 'eod');
    expect([fresh?.as_of, fresh?.value, fresh?.provenance?.cache_hit]).toEqual(['2025-06-18', 75.14, false]);
  });

  it('reuses a source run status for 10 s', async () => {
    const { store, reader, advance } = await setup();
    await store.putRunStatus({
      source: 'eia-spot',
      last_attempt_at: '2026-11-25T10:00:00.000Z',
      last_success_at: '2026-11-25T10:00:00.000Z',
      last_error: null,
      last_items: 1,
    });
    expect((await reader.runStatus('eia-spot'))?.last_success_at).toBe('2026-11-25T10:00:00.000Z');
    await store.putRunStatus({
      source: 'eia-spot',
      last_attempt_at: '2026-11-25T10:05:00.000Z',
      last_success_at: '2026-11-25T10:05:00.000Z',
      last_error: null,
      last_items: 1,
    });
    advance(9_999);
    expect((await reader.runStatus('eia-spot'))?.last_success_at).toBe('2026-11-25T10:00:00.000Z');
    advance(1);
    expect((await reader.runStatus('eia-spot'))?.last_success_at).toBe('2026-11-25T10:05:00.000Z');
  });
});

describe('ObservationReader.latest: staleness judged per UTC day', () => {
  it('a cached latest figure turns stale at the day its cadence runs out, without a reload', async () => {
    let now = new Date('2025-06-27T23:59:00Z');
    const store = new MemoryObservationStore();
    await store.upsertMany([priceObs('CL', '2025-06-17', 74.84)]);
    const reader = new ObservationReader(store, new ReadCache(100, () => 0), () => now);
    await reader.latest(seriesKey.price('CL'), 'eod');
    // 2025-06-17 + 10 days = 06-27: still fresh on the 27th, from the cache
    const hit = await reader.latest(seriesKey.price('CL'), 'eod');
    expect(hit?.provenance).toMatchObject({ cache_hit: true, stale: false, expected_next_as_of: '2025-06-18' });
    expect(await reader.latest(seriesKey.price('CL'), 'eod')).toBe(hit);
    now = new Date('2025-06-28T00:00:01Z');
    const later = await reader.latest(seriesKey.price('CL'), 'eod');
    expect(later?.provenance).toMatchObject({ cache_hit: true, stale: true, expected_next_as_of: '2025-06-18' });
    expect(Object.isFrozen(later)).toBe(true);
  });

  it('history reads carry no staleness: each point is the figure of its own date', async () => {
    const { reader } = await setup();
    const w = await reader.window(seriesKey.price('CL'), '2025-06-01', '2025-06-30', 'eod', 100);
    expect(w.observations.map((o) => o.provenance && 'stale' in o.provenance)).toEqual([false, false]);
  });
});
