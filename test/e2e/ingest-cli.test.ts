import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dataDir = mkdtempSync(join(tmpdir(), 'ingest-cli-'));
const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'infra/local/ingest-cli.ts', ...args], {
    encoding: 'utf8',
    // Port 1 is closed, so the CLI opens the on-disk store itself; no keys are set.
    env: {
      ...process.env,
      LOCAL_DATA_DIR: dataDir,
      DYNAMODB_PORT: '1',
      DYNAMODB_ENDPOINT: '',
      EIA_API_KEY: '',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    timeout: 60_000,
  });

/** Non-empty rows of the FRED samples: DTWEXBGS 600, DEXUSEU 580, DEXCHUS 651 (see test/sources/runner.test.ts). */
const FRED_WRITTEN = `ok      fred: ${600 + 580 + 651} observations written`;

describe('npm run ingest', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('replays one source into the on-disk store and re-runs idempotently', () => {
    const first = run('fred');
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain(FRED_WRITTEN);
    const again = run('fred');
    expect(again.stdout).toContain(FRED_WRITTEN);
  });

  it('skips a live source whose API key is not set, without failing', () => {
    const r = run('eia-spot', '--live');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('skipped eia-spot: live mode needs EIA_API_KEY; skipped');
  });

  it('repair removes a bad range of one series and says how many; a re-run writes the good figures back', () => {
    // fred's replay holds EURUSD business days through 2026-04-24, 2025-11-28 among them: the 24th, 25th, 26th and 28th (Thanksgiving, the 27th, has no rate)
    const removed = run('repair', '--series', 'PRICE#EURUSD', '--from', '2025-11-24', '--to', '2025-11-30');
    expect(removed.status, removed.stderr).toBe(0);
    expect(removed.stdout).toContain('removed 4 observation(s) of PRICE#EURUSD dated 2025-11-24..2025-11-30');
    expect(run('repair', '--series', 'PRICE#EURUSD', '--from', '2025-11-24', '--to', '2025-11-30').stdout).toContain('removed 0 observation(s)');
    expect(run('fred').stdout).toContain(FRED_WRITTEN);
    expect(run('repair', '--series', 'PRICE#EURUSD', '--from', '2025-11-24', '--to', '2025-11-30').stdout).toContain('removed 4 observation(s)');
    const bad = run('repair', '--series', 'PRICE#EURUSD', '--from', '2025-12-01', '--to', '2025-11-01');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/repair needs --series and a --from..--to date range/);
  });

  it('explains its usage on bad arguments', () => {
    const none = run();
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/usage: npm run ingest -- <source\|all>/);
    const unknown = run('nope');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown source nope; sources: .*eia-spot/);
    expect(run('fred', '--since', '2025/01/01').stderr).toMatch(/--since must be YYYY-MM-DD/);
  });
});
