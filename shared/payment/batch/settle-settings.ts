/**
 * How a batch settlement pass is sized (settle-job.ts): open sales per query, claim transactions in
 * flight, sale-closing transactions in flight, and how long before the Lambda's timeout a pass
 * stops taking new work (it then saves where it stopped; the next pass continues from there). The
 * settler's environment carries them per stage (infra/stacks/capacity-settings.ts); `npm run
 * capacity` reads them from the template, so a pass's time at a rate follows from these numbers.
 */

interface SettlePassSettings {
  /** Open sales per query: what a pass holds in memory at once (per closing in flight). */
  pageSize: number;
  /** Claim transactions in flight at once (each waits for its block). */
  claimConcurrency: number;
  /** Sale-closing work in flight at once (channels' covered sales, or pages' transactions; 50 sales per transaction). */
  closeConcurrency: number;
  /** A pass takes no new work once less than this is left before the function's timeout. */
  stopMarginMs: number;
}

/** The defaults: one claim at a time (the facilitator signs them in turn), closings four at a time. */
const DEFAULT_SETTLE_PASS: Readonly<SettlePassSettings> = Object.freeze({ pageSize: 1_000, claimConcurrency: 1, closeConcurrency: 4, stopMarginMs: 60_000 });

/** The settler's environment variables of each setting (the margin is not a setting of a stage). */
const SETTLE_PASS_ENV = Object.freeze({
  pageSize: 'SETTLE_PAGE_SIZE',
  claimConcurrency: 'SETTLE_CLAIM_CONCURRENCY',
  closeConcurrency: 'SETTLE_CLOSE_CONCURRENCY',
} as const);

/**
 * The settings of a pass from the environment; an unset variable takes its default, a value that is
 * not a whole number from 1 to 10,000 throws (a typo must not run a pass with no bound).
 * @example settlePassSettings({ SETTLE_PAGE_SIZE: '2000' }).pageSize // 2000
 */
const settlePassSettings = (env: Readonly<Record<string, string | undefined>>): SettlePassSettings => {
  const read = (key: keyof typeof SETTLE_PASS_ENV): number => {
    const raw = env[SETTLE_PASS_ENV[key]];
    if (raw === undefined || raw === '') return DEFAULT_SETTLE_PASS[key];
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > 10_000)
      throw new Error(`${SETTLE_PASS_ENV[key]} must be a whole number from 1 to 10000, got ${JSON.stringify(raw)}`);
    return n;
  };
  return {
    pageSize: read('pageSize'),
    claimConcurrency: read('claimConcurrency'),
    closeConcurrency: read('closeConcurrency'),
    stopMarginMs: DEFAULT_SETTLE_PASS.stopMarginMs,
  };
};

export { DEFAULT_SETTLE_PASS, SETTLE_PASS_ENV, settlePassSettings };
export type { SettlePassSettings };
