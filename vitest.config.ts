import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Seeds the replay data once for the run; every seeded test stack starts on a copy of it.
    globalSetup: ['test/helpers/global-setup.ts'],
    // A process per file keeps native modules (ganache, dynalite's leveldb) apart; no test
    // configures the service through process.env, so files could share one.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The logger and the AWS SDK read these at import; the service's own settings are explicit.
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
