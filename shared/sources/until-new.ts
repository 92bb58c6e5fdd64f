/**
 * Issue 37: a run at a release instant may reach the publisher before its figure is out. Re-polled
 * (bounded) until the source's newest figure moves on, so a watch's delivery leaves within a minute
 * of the publisher's release rather than at the next scheduled run.
 */
import { findRelease } from './releases';
import type { RunResult } from './runner';
import { releaseDueAt } from './schedule';

interface UntilNewOptions {
  /** Runs at most, the first included. */
  attempts: number;
  /** Wait between runs. */
  everyMs: number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * Time left to the invocation (Lambda's getRemainingTimeInMillis): no wait starts unless the wait
   * and another run (counted twice the slowest so far) still fit, so a slow source (a workbook that
   * takes a minute) ends its polls with a result instead of a timeout.
   */
  timeLeftMs?: () => number;
  /** The clock the runs are timed with (tests). */
  nowMs?: () => number;
}

/** Five runs 45 s apart: inside an ingestion function's 5 minutes, about 3 minutes of the publisher's delay. */
const UNTIL_NEW: Readonly<UntilNewOptions> = Object.freeze({ attempts: 5, everyMs: 45_000 });

/**
 * Runs `run` until `newest()` (the as_of of the source's newest stored figure) differs from before
 * the first run, a run fails, the attempts are spent or another would not fit the time left.
 * @returns the last run's result and how many runs it took
 */
const runUntilNew = async (
  run: () => Promise<RunResult>,
  newest: () => Promise<string | null>,
  opts: UntilNewOptions = UNTIL_NEW,
): Promise<RunResult & { polls: number }> => {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const nowMs = opts.nowMs ?? Date.now;
  const before = await newest();
  let slowestMs = 0;
  for (let polls = 1; ; polls++) {
    const started = nowMs();
    const result = await run();
    slowestMs = Math.max(slowestMs, nowMs() - started);
    const after = await newest();
    if (result.status !== 'ok' || (after !== null && after !== before) || polls >= opts.attempts) return { ...result, polls };
    if (opts.timeLeftMs && opts.timeLeftMs() < opts.everyMs + 2 * slowestMs) return { ...result, polls };
    await sleep(opts.everyMs);
  }
};

/**
 * A run at a release instant (`until_new`, from the scheduler or `npm run ingest -- <source> --live
 * --until-new`): re-polled when the source's publisher calendar has a release due at `now`, else one
 * run (a holiday slot's run on a regular week has nothing coming).
 */
const runAtReleaseInstant = (
  source: string,
  now: Date,
  run: () => Promise<RunResult>,
  newest: () => Promise<string | null>,
  opts: UntilNewOptions = UNTIL_NEW,
): Promise<RunResult & { polls?: number }> => {
  const schedule = findRelease(source)?.schedule;
  return schedule && releaseDueAt(schedule, now) ? runUntilNew(run, newest, opts) : run();
};

export { runUntilNew, runAtReleaseInstant, UNTIL_NEW };
export type { UntilNewOptions };
