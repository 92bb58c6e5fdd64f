/** A counting semaphore: at most `limit` tasks run at once, the others wait their turn in order. */
class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Whether a task would start now. */
  get free(): boolean {
    return this.active < this.limit;
  }

  /** Whether nothing runs or waits (the semaphore can be dropped). */
  get idle(): boolean {
    return this.active === 0 && this.waiting.length === 0;
  }

  /**
   * Runs `fn` once a slot is free.
   * @example await new Semaphore(4).run(() => fetch(url))
   */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

export { Semaphore };
