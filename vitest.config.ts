import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that run one after another in a worker process they share (isolate: false): the service and
 * its dependencies are imported once per worker instead of once per file. Measured on test/pro and
 * test/mcp (19 files) side by side under load (issue 39): 43 s of CPU shared against 62 s isolated
 * (import 4 % of the run against 25 %). No test configures the service through process.env (each
 * stack gets its settings explicitly); the files that swap process.env or reset the module registry
 * to import a Lambda entry afresh restore both. Left isolated: infra (stubbed globals, module resets
 * and CDK apps, one per synth) and local (the embedded store's shutdown, data-folder locks, CLIs).
 */
const SHARED_WORKER = [
  'analytics',
  'calendar',
  'concurrency',
  'config',
  'docs',
  'e2e',
  'families',
  'helpers',
  'http',
  'mcp',
  'observation',
  'payment',
  'point-in-time',
  'pro',
  'routes',
  'sources',
  'store',
  'watches',
].map((dir) => `test/${dir}/**/*.test.ts`);

export default defineConfig({
  test: {
    // Seeds the replay data once for the run; every seeded test stack starts on a copy of it.
    globalSetup: ['test/helpers/global-setup.ts'],
    // A process per worker keeps native modules (ganache, dynalite's leveldb) out of vitest's own.
    pool: 'forks',
    maxWorkers: 2,
    // Hang detectors, not assertions: a hung test fails either way, while a test doing its work on a
    // busy machine (two CPU hogs beside the run, or eight engineers on two cores: load 30 measured)
    // must not. At 60 s a seeded stack's start timed out under load 30 (issue 39).
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // A file that stubs a global gives it back, even when it fails before it could.
    unstubGlobals: true,
    // The logger and the AWS SDK read these at import; the service's own settings are explicit.
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      { extends: true, test: { name: 'shared-worker', include: SHARED_WORKER, isolate: false } },
      { extends: true, test: { name: 'isolated', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...SHARED_WORKER] } },
    ],
  },
});
