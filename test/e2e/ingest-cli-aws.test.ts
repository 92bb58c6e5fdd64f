/**
 * `npm run ingest -- … --aws`: the backfill and repair of a deployed stage. The embedded store
 * stands in for AWS (AWS_ENDPOINT_URL_DYNAMODB, which the AWS SDK honours, as it does for anyone
 * pointing it elsewhere), and recorded payloads stand in for the publishers
 * (test/helpers/offline-publishers.ts: no internet here). The commands run as an operator types them.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStore, type TestStore } from '../helpers/store';

const PUBLISHERS = fileURLToPath(new URL('../helpers/offline-publishers.ts', import.meta.url));

describe('npm run ingest -- --aws (a deployed stage; the embedded store standing in for DynamoDB)', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await startTestStore();
  });
  afterAll(() => store?.close());

  /** Runs the command (asynchronously: the stand-in store answers from this process). */
  const run = (args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve, reject) => {
      const child = spawn('npm', ['run', '--silent', 'ingest', '--', ...args], {
        env: {
          ...process.env,
          // what an operator's shell has: a region, credentials, the stage's table name …
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'operator',
          AWS_SECRET_ACCESS_KEY: 'operator',
          OBSERVATIONS_TABLE: store.config.OBSERVATIONS_TABLE,
          // … here pointed at the stand-in, and no local store to fall back on
          AWS_ENDPOINT_URL_DYNAMODB: store.config.DYNAMODB_ENDPOINT!,
          DYNAMODB_ENDPOINT: '',
          DYNAMODB_PORT: '1',
          NODE_OPTIONS: `--import tsx --import ${PUBLISHERS}`,
          EIA_API_KEY: '',
          NASS_API_KEY: '',
          FAS_API_KEY: '',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          ...env,
        },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => {
        stdout += c;
      });
      child.stderr.on('data', (c) => {
        stderr += c;
      });
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });

  it('backfills one source from live data into the stage table, and says where it writes', async () => {
    const r = await run(['fred', '--aws', '--since', '2019-01-01']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`into ${store.config.OBSERVATIONS_TABLE} (us-east-1), live from the publishers since 2019-01-01`);
    expect(r.stdout).toContain('ok      fred: 1831 observations written');
    expect(await store.store.latest('PRICE#EURUSD')).toMatchObject({ instrument: 'EURUSD' });
    expect(await store.store.getRunStatus('fred')).toMatchObject({ last_mode: 'live', last_error: null });
  });

  it('all sources: a source without its API key is skipped and the backfill exits 1 (the stage is not filled)', async () => {
    const r = await run(['all', '--aws', '--since', '2019-01-01'], { EIA_API_KEY: 'k-eia', NASS_API_KEY: 'k-nass' });
    expect(r.status, r.stdout + r.stderr).toBe(1);
    const lines = r.stdout.split('\n').filter((l) => /^(ok|skipped|failed) /.test(l));
    expect(lines.filter((l) => !l.startsWith('ok '))).toEqual(['skipped usda-fas-esr: live mode needs FAS_API_KEY; skipped']);
    const again = await run(['usda-fas-esr', '--aws'], { FAS_API_KEY: 'k-fas' });
    expect(again.status, again.stderr).toBe(0);
    // Every source's backfill (about 12,000 observations, the work of seeding a stack) and two process
    // starts: the default 30 s is less than that work takes on a loaded 2-core machine.
  }, 180_000);

  it('repair removes a range of one series in the stage table', async () => {
    expect((await run(['fred', '--aws'])).status).toBe(0);
    const r = await run(['repair', '--aws', '--series', 'PRICE#EURUSD', '--from', '2025-11-24', '--to', '2025-11-30']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`removed 4 observation(s) of PRICE#EURUSD dated 2025-11-24..2025-11-30 in ${store.config.OBSERVATIONS_TABLE}`);
    expect((await store.store.range('PRICE#EURUSD', { start: '2025-11-24', end: '2025-11-30', limit: 10 })).items).toEqual([]);
  });

  it('refuses --aws without the table name', async () => {
    const r = await run(['fred', '--aws'], { OBSERVATIONS_TABLE: '' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--aws needs OBSERVATIONS_TABLE/);
  });
});
