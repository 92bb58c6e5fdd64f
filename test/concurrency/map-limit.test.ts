import { describe, expect, it } from 'vitest';
import { mapLimit } from '../../shared/concurrency/map-limit';

describe('mapLimit', () => {
  it('keeps the input order and never has more than `limit` calls in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapLimit([30, 5, 20, 1, 10, 2], 3, async (ms, i) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, ms));
      inFlight--;
      return `${i}:${ms}`;
    });
    expect(out).toEqual(['0:30', '1:5', '2:20', '3:1', '4:10', '5:2']);
    expect(most).toBe(3);
  });

  it('answers [] for no input and stops at the first failure', async () => {
    expect(await mapLimit([], 4, async () => 1)).toEqual([]);
    await expect(mapLimit([1, 2], 2, async (x) => (x === 2 ? Promise.reject(new Error('boom')) : x))).rejects.toThrow('boom');
  });
});
