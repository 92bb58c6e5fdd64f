import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Seeds the replay data once for the run; every seeded test stack starts on a copy of it.
    globalSetup: ['test/helpers/global-setup.ts'],
    // A process per file keeps native modules (ganache, dynalite's leveldb) apart; no test
    // configures the service through process.env, so files could share one. Measured on 12 stack
    // files (e2e, pro) under load: --no-isolate 140 s against 175 s, all passing (the import of the
    // service, about 3 s a file under load, is paid once per worker); not switched on until a full run
    // shows every file passes that way.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The logger and the AWS SDK read these at import; the service's own settings are explicit.
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
