import { describe, expect, it } from 'vitest';
import { ReadCache } from '../../shared/store/read-cache';

describe('ReadCache', () => {
  it('serves a repeat read from memory until the TTL ends, and says whether it was a hit', async () => {
    let t = 0;
    let loads = 0;
    const cache = new ReadCache(10, () => t);
    const load = async () => ++loads;
    expect(await cache.get('k', 300, load)).toEqual({ value: 1, hit: false, ttlS: 300 });
    t = 299_999;
    expect(await cache.get('k', 300, load)).toEqual({ value: 1, hit: true, ttlS: 300 });
    t = 300_000;
    expect(await cache.get('k', 300, load)).toEqual({ value: 2, hit: false, ttlS: 300 });
  });

  it.each([
    ['null', null],
    ['an empty list', []],
    ['an empty window', { items: [], capped: false }],
  ])('never caches %s, so new data is served as soon as it is stored', async (_n, empty) => {
    const cache = new ReadCache();
    let stored: unknown = empty;
    expect((await cache.get('k', 300, async () => stored)).value).toEqual(empty);
    stored = ['x'];
    expect(await cache.get('k', 300, async () => stored)).toEqual({ value: ['x'], hit: false, ttlS: 300 });
    expect((await cache.get('k', 300, async () => stored)).hit).toBe(true);
  });

  it('does not cache with a TTL of 0 and evicts the oldest entry when full', async () => {
    const cache = new ReadCache(2);
    await cache.get('a', 0, async () => 1);
    expect((await cache.get('a', 0, async () => 1)).hit).toBe(false);
    await cache.get('x', 60, async () => 1);
    await cache.get('y', 60, async () => 2);
    await cache.get('z', 60, async () => 3);
    expect((await cache.get('x', 60, async () => 9)).value).toBe(9); // evicted
    expect((await cache.get('z', 60, async () => 9)).value).toBe(3);
  });

  it('shares one load among concurrent misses of a key, and a failed load with its waiters only', async () => {
    const cache = new ReadCache();
    let loads = 0;
    let release!: (v: string) => void;
    const slow = () => {
      loads++;
      return new Promise<string>((resolve) => (release = resolve));
    };
    const reads = Array.from({ length: 50 }, () => cache.get('k', 60, slow));
    release('v');
    expect((await Promise.all(reads)).map((r) => r.value)).toEqual(Array(50).fill('v'));
    expect(loads).toBe(1);

    let fail = true;
    const flaky = async () => {
      loads++;
      if (fail) throw new Error('store timeout');
      return 'w';
    };
    const failed = await Promise.allSettled([cache.get('f', 60, flaky), cache.get('f', 60, flaky)]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(loads).toBe(2);
    fail = false;
    expect(await cache.get('f', 60, flaky)).toEqual({ value: 'w', hit: false, ttlS: 60 });
  });
});
