/**
 * The long runs of the suite's load and property tests, kept out of `npm test` (issue 39: the suite
 * runs the sizes that find the bugs; these run the volumes): the load test at 10,000 requests (issue
 * 14's size) and the fuzzer at 20 times its cases (the same seed, so a superset of the suite's).
 * `npx tsx test/bench/long-runs.ts` (minutes on an idle machine); exits with vitest's status.
 */
import { spawnSync } from 'node:child_process';

const LONG = { LOAD_REQUESTS: '10000', FUZZ_RUNS_SCALE: '20' };

const run = spawnSync('npx', ['vitest', 'run', 'test/e2e/load.test.ts', 'test/e2e/fuzz.test.ts'], {
  stdio: 'inherit',
  env: { ...process.env, ...LONG },
});
process.exit(run.status ?? 1);
