/** Bounded concurrency for batches of I/O (source backfills, store batch writes). */

/**
 * Runs `fn` over `inputs` with at most `limit` calls in flight; results keep the input order.
 * @example await mapLimit(['a', 'b', 'c'], 2, async (x) => x.toUpperCase()) // ['A', 'B', 'C']
 */
const mapLimit = async <T, R>(inputs: readonly T[], limit: number, fn: (x: T, i: number) => Promise<R>): Promise<R[]> => {
  const out = new Array<R>(inputs.length);
  let next = 0;
  const worker = async () => {
    while (next < inputs.length) {
      const i = next++;
      out[i] = await fn(inputs[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, inputs.length)) }, worker));
  return out;
};

export { mapLimit };
