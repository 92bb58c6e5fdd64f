/** One npm start per data folder: a live holder is refused with a clear message, a dead one's claim is taken over. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claimDataDir, DataDirInUseError } from '../../infra/local/data-dir-lock';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'data-dir-lock-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A process that lives until killed, and its pid. */
const liveProcess = () => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });

describe('claimDataDir', () => {
  it('claims a free folder and releases it', () => {
    const dir = tempDir();
    const release = claimDataDir(dir);
    expect(readFileSync(join(dir, 'npm-start.pid'), 'utf8')).toBe(String(process.pid));
    release();
    expect(existsSync(join(dir, 'npm-start.pid'))).toBe(false);
  });

  it('refuses a folder held by a live process, naming it and the way out', () => {
    const dir = tempDir();
    const holder = liveProcess();
    try {
      writeFileSync(join(dir, 'npm-start.pid'), String(holder.pid));
      expect(() => claimDataDir(dir)).toThrow(DataDirInUseError);
      expect(() => claimDataDir(dir)).toThrow(new RegExp(`pid ${holder.pid}\\).*LOCAL_DATA_DIR`));
      // The holder's claim is left alone.
      expect(readFileSync(join(dir, 'npm-start.pid'), 'utf8')).toBe(String(holder.pid));
    } finally {
      holder.kill();
    }
  });

  it('takes over the claim of a process that is gone', async () => {
    const dir = tempDir();
    const gone = liveProcess();
    await new Promise((resolve) => {
      gone.once('exit', resolve);
      gone.kill();
    });
    writeFileSync(join(dir, 'npm-start.pid'), String(gone.pid));
    claimDataDir(dir)();
    expect(existsSync(join(dir, 'npm-start.pid'))).toBe(false);
  });
});
