/**
 * Which store the operator CLIs (keys, usage, ingest) use while `npm start` runs with its own
 * DYNAMODB_PORT. The folder's LevelDB can be opened by one process only: a CLI that opened it too died
 * with dynalite's uncaught "Database is closed". It now uses the running store, which `npm start`
 * records in the folder it holds, or says which process holds the folder.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectLocalStore, StoreHeldError } from '../../infra/local/store-connection';

const CLOSED_PORT = '9'; // discard: nothing listens there on loopback

/** A separate process that holds `dir` as npm start does: the pid file, the store opened on the folder, and where it answers. */
const holdFolder = async (dir: string, record: boolean): Promise<{ child: ChildProcess; endpoint: string }> => {
  const script = `
    const { claimDataDir, recordStoreEndpoint } = await import('./infra/local/data-dir-lock.ts');
    const { startEmbeddedStore } = await import('./infra/local/embedded-store.ts');
    claimDataDir(${JSON.stringify(dir)});
    const store = await startEmbeddedStore(0, ${JSON.stringify(dir)});
    if (${record}) recordStoreEndpoint(${JSON.stringify(dir)}, store.endpoint);
    console.log(store.endpoint);
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const endpoint = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (b: Buffer) => resolve(b.toString().trim()));
    child.once('exit', (code) => reject(new Error(`holder exited with ${code}`)));
  });
  return { child, endpoint };
};

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'store-connection-'));
  dirs.push(d);
  return d;
};

describe('connectLocalStore while npm start holds the data folder on another DYNAMODB_PORT', () => {
  it('uses the running store that npm start recorded in the folder', async () => {
    const dir = tempDir();
    const holder = await holdFolder(dir, true);
    children.push(holder.child);
    const local = await connectLocalStore({ LOCAL_DATA_DIR: dir, DYNAMODB_PORT: CLOSED_PORT });
    expect(local.endpoint).toBe(holder.endpoint);
    await local.close();
  }, 30_000);

  it('says which process holds the folder when its store cannot be reached, instead of opening the folder too', async () => {
    const dir = tempDir();
    const holder = await holdFolder(dir, false);
    children.push(holder.child);
    const err = await connectLocalStore({ LOCAL_DATA_DIR: dir, DYNAMODB_PORT: CLOSED_PORT }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreHeldError);
    expect((err as Error).message).toContain(`held by npm start (pid ${holder.child.pid})`);
    expect((err as Error).message).toContain('DYNAMODB_PORT');
  }, 30_000);

  it('opens the folder itself when nobody holds it, and holds it while it does', async () => {
    const dir = tempDir();
    const local = await connectLocalStore({ LOCAL_DATA_DIR: dir, DYNAMODB_PORT: CLOSED_PORT });
    expect(readFileSync(join(dir, 'npm-start.pid'), 'utf8')).toBe(String(process.pid));
    await local.close();
    expect(existsSync(join(dir, 'npm-start.pid'))).toBe(false);
  });
});
