/**
 * Issue 37: a run at a release instant may reach the publisher before its figure is out. Re-polled
 * (bounded) until the source's newest figure moves on, so a watch's delivery leaves within a minute
 * of the publisher's release rather than at the next scheduled run.
 */
import type { RunResult } from './runner';

interface UntilNewOptions {
  /** Runs at most, the first included. */
  attempts: number;
  /** Wait between runs. */
  everyMs: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Five runs 45 s apart: inside an ingestion function's 5 minutes, about 3 minutes of the publisher's delay. */
const UNTIL_NEW: Readonly<UntilNewOptions> = Object.freeze({ attempts: 5, everyMs: 45_000 });

/**
 * Runs `run` until `newest()` (the as_of of the source's newest stored figure) differs from before
 * the first run, a run fails, or the attempts are spent.
 * @returns the last run's result and how many runs it took
 */
const runUntilNew = async (
  run: () => Promise<RunResult>,
  newest: () => Promise<string | null>,
  opts: UntilNewOptions = UNTIL_NEW,
): Promise<RunResult & { polls: number }> => {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const before = await newest();
  for (let polls = 1; ; polls++) {
    const result = await run();
    const after = await newest();
    if (result.status !== 'ok' || (after !== null && after !== before) || polls >= opts.attempts) return { ...result, polls };
    await sleep(opts.everyMs);
  }
};

export { runUntilNew };
export type { UntilNewOptions };
