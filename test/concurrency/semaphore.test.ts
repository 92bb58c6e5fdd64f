import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../shared/concurrency/semaphore';

describe('Semaphore', () => {
  it('runs at most `limit` tasks at once, starts the rest in order, and is idle when done', async () => {
    const sem = new Semaphore(2);
    let active = 0;
    let most = 0;
    const order: number[] = [];
    const release: Array<() => void> = [];
    const tasks = Array.from({ length: 5 }, (_, i) =>
      sem.run(async () => {
        order.push(i);
        most = Math.max(most, ++active);
        await new Promise<void>((r) => release.push(r));
        active--;
        return i;
      }),
    );
    const tick = () => new Promise((r) => setImmediate(r));
    await tick();
    expect(sem.free).toBe(false);
    expect(order).toEqual([0, 1]);
    // Finish one at a time: each frees a slot for the next waiting task.
    for (let done = 0; done < 5; done++) {
      release.shift()!();
      await tick();
    }
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(sem.idle).toBe(true);
  });

  it('frees the slot of a task that throws', async () => {
    const sem = new Semaphore(1);
    await expect(sem.run(async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(await sem.run(async () => 'next')).toBe('next');
  });
});
