/**
 * An HTTP transport for the local chain that asks an eth_estimateGas again when it goes unanswered.
 *
 * ganache (7.x, blocks on a timer) now and then never answers an eth_estimateGas that meets a block
 * being mined (it estimates on the live state trie); the request then waits for viem's 10 s timeout.
 * The local facilitator sends one transaction at a time, so that one estimate held every settlement
 * behind it: the 1,000-call deferred bench's answer-to-chain p95 was 21 s for 2 s blocks, and
 * authorizations expired (test/bench/deferred-1000.ts, measured). A second request is answered at
 * once; an estimate normally takes milliseconds. Every other method goes through unchanged (a
 * broadcast is never sent twice by this).
 */
import { http, type Transport } from 'viem';

/**
 * Each try's wait: short first (an estimate takes ~10 ms; a hung one is answered at once when asked
 * again), the last as long as viem's own 10 s, so a machine under load that is merely slow gets no
 * less time than before (1/2/4 s failed a 3-voucher batch claim beside two CPU hogs: measured).
 */
const ESTIMATE_TRIES_MS = [1_000, 2_000, 10_000] as const;

const timedOut = (err: unknown): boolean => (err as { name?: string })?.name === 'TimeoutError';

/** `http(url, { retryCount: 0 })`, with eth_estimateGas asked up to ESTIMATE_TRIES_MS.length times. */
const httpWithEstimateRetry = (url: string): Transport => {
  const plain = http(url, { retryCount: 0 });
  const tries = ESTIMATE_TRIES_MS.map((timeout) => http(url, { retryCount: 0, timeout }));
  return (params) => {
    const transport = plain(params);
    const estimators = tries.map((t) => t(params));
    const request: typeof transport.request = async (args, options) => {
      if (args.method !== 'eth_estimateGas') return transport.request(args, options);
      for (let i = 0; ; i++) {
        try {
          return await estimators[i]!.request(args, options);
        } catch (err) {
          if (!timedOut(err) || i === estimators.length - 1) throw err;
        }
      }
    };
    return { ...transport, request };
  };
};

export { httpWithEstimateRetry };
