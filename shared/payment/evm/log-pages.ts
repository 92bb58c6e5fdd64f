/**
 * eth_getLogs over a long block span in pages a JSON-RPC provider accepts. Providers cap the range
 * of one query (hosted nodes at a few hundred to 10,000 blocks, some by the number of results)
 * and refuse a larger one with an error, never a partial answer. The search walks back from the
 * newest block (the payment looked for is recent), starting with pages of PAGE_BLOCKS and halving
 * a page the provider refuses, down to a single block.
 */

interface BlockRange {
  fromBlock: bigint;
  toBlock: bigint;
}

/** First page size: Alchemy's documented range for unlimited responses; most providers take it. */
const PAGE_BLOCKS = 2_000n;

/**
 * Messages of a refused range, as hosted providers word them ("… is limited to a 10000 range",
 * "block range too large", "exceed maximum block range: 5000", "query returned more than 10000
 * results", "Log response size exceeded …"). Anything else is an outage and is thrown.
 */
const RANGE_REFUSAL =
  /block range|range (is )?too (large|wide|big)|limited to (a )?\d[\d,]* ?(block )?range|exceeds? (the )?max(imum)? (block )?range|more than \d[\d,]* results|response size (exceeded|too large)|too many (blocks|results|logs)/i;

/** Whether an error (viem wraps the provider's message in details / cause) is a refusal of the range's size. */
const isRangeRefusal = (err: unknown): boolean => {
  for (let e = err as { message?: unknown; details?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 6; e = e.cause as typeof e, depth++) {
    if (RANGE_REFUSAL.test(String(e.details ?? '')) || RANGE_REFUSAL.test(String(e.message ?? ''))) return true;
  }
  return false;
};

/**
 * The first log of the newest page of `span` that has any, or null when none has.
 * @param fetchPage one eth_getLogs over an inclusive block range
 * @param pageBlocks the first page size (halved on each refusal)
 * @throws the provider's error when it is not about the range, or refuses even one block
 * @example await findNewestLog((r) => client.getLogs({ ...filter, ...r }), { fromBlock: latest - 20_000n, toBlock: latest })
 */
const findNewestLog = async <T>(fetchPage: (range: BlockRange) => Promise<T[]>, span: BlockRange, pageBlocks = PAGE_BLOCKS): Promise<T | null> => {
  let page = pageBlocks > 0n ? pageBlocks : 1n;
  let to = span.toBlock;
  while (to >= span.fromBlock) {
    const from = to - page + 1n > span.fromBlock ? to - page + 1n : span.fromBlock;
    let logs: T[];
    try {
      logs = await fetchPage({ fromBlock: from, toBlock: to });
    } catch (err) {
      if (page === 1n || !isRangeRefusal(err)) throw err;
      page /= 2n;
      continue;
    }
    if (logs.length) return logs[0]!;
    to = from - 1n;
  }
  return null;
};

export { findNewestLog, isRangeRefusal };
export type { BlockRange };
