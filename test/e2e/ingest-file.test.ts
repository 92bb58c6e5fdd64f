/**
 * `npm run ingest -- <source> --file PATH` (issue 37): a payload file in the publisher's wire format
 * goes through the real ingestion path into the store; bad combinations are refused with the usage.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { simulatedWpsrRelease } from '../helpers/simulated-release';

const dataDir = mkdtempSync(join(tmpdir(), 'ingest-file-'));
const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'infra/local/ingest-cli.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, LOCAL_DATA_DIR: dataDir, DYNAMODB_PORT: '1', DYNAMODB_ENDPOINT: '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    timeout: 60_000,
  });

describe('npm run ingest -- <source> --file', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('ingests a simulated WPSR file: every week of the file written, the new week among them', () => {
    const release = simulatedWpsrRelease();
    const r = run('eia-petroleum', '--file', release.path);
    expect(r.status, r.stderr).toBe(0);
    // The sample holds 371 weeks of WCESTUS1; the file adds one.
    expect(r.stdout).toContain('ok      eia-petroleum: 372 observations written');
    const removed = run('repair', '--series', 'INV#crude_ex_spr', '--from', release.asOf, '--to', release.asOf);
    expect(removed.stdout).toContain(`removed 1 observation(s) of INV#crude_ex_spr dated ${release.asOf}..${release.asOf}`);
  });

  it('a file that is not the source wire format fails the run and writes nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bad-'));
    const path = join(dir, 'PET.WCESTUS1.W.json');
    writeFileSync(path, '{"response": {"data": [{"period": "2026-02-13", "series": "WCESTUS1", "value": "x", "units": "MBBL"}]}}');
    const r = run('eia-petroleum', '--file', path);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^failed\s+PET.WCESTUS1.W.json: row 0/m);
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses --file with all or --live', () => {
    const r = run('all', '--file', 'x.json');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--file loads one source's payload files/);
    expect(run('fred', '--live', '--file', 'x.json').status).toBe(2);
  });
});
