/**
 * The replay seed, written once per test run instead of once per stack. Seeding a stack (every
 * source's bundled samples through the real ingestion path, about 12,000 observations) costs
 * seconds of CPU, and some forty test files start a seeded stack. The first seeded stack of a run
 * seeds one on-disk store (dynalite on LevelDB) in the run's folder (global-setup.ts); every seeded
 * stack then starts on its own copy of it, so files still share nothing and may write what they like.
 * A run that starts no seeded stack (one unit test file) seeds nothing.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLocalStack } from '../../infra/local/stack';

/** The tables of the seeded store (one store per stack, so the names need not be unique). */
const SEEDED_TABLES = { OBSERVATIONS_TABLE: 'test-obs-seeded', CREDITS_TABLE: 'test-credits-seeded' } as const;

/** Seeds a store in `dir` and closes it. */
const writeSeededStore = async (dir: string): Promise<void> => {
  const stack = await startLocalStack({ env: { ...SEEDED_TABLES }, seed: true, dataDir: dir });
  const failed = stack.seeded.filter((r) => r.status === 'failed');
  await stack.close();
  if (failed.length > 0) throw new Error(`seeding the shared test store failed: ${failed.map((r) => r.message).join('; ')}`);
};

/** Whether a process is alive (signal 0 only checks). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * The seeded store of the run: written by the first worker that asks (a directory made atomically
 * is its lock, with the writer's pid beside it), waited for by the others however long seeding takes
 * on a busy machine. A writer that died before it finished (its file timed out and its process went)
 * leaves the lock to the next worker that asks.
 * @param runDir the run's folder (global-setup.ts)
 * @returns the folder of the seeded store
 */
const seededStore = async (runDir: string): Promise<string> => {
  const store = join(runDir, 'store');
  const ready = join(runDir, 'ready');
  const failed = join(runDir, 'failed');
  const owner = join(runDir, 'owner');
  for (;;) {
    try {
      mkdirSync(store);
      break;
    } catch {
      // Another worker seeds it: wait for its outcome.
    }
    while (!existsSync(ready)) {
      if (existsSync(failed)) throw new Error(readFileSync(failed, 'utf8'));
      const pid = existsSync(owner) ? Number(readFileSync(owner, 'utf8')) : Number.NaN;
      if (pid > 0 && !alive(pid) && !existsSync(ready)) {
        rmSync(owner, { force: true });
        rmSync(store, { recursive: true, force: true });
        break;
      }
      await sleep(100);
    }
    if (existsSync(ready)) return store;
  }
  writeFileSync(owner, String(process.pid));
  try {
    await writeSeededStore(store);
    writeFileSync(ready, '');
  } catch (err) {
    writeFileSync(failed, err instanceof Error ? err.message : String(err));
    throw err;
  }
  return store;
};

/** A private copy of the seeded store, and how to remove it. */
const copySeededStore = (template: string): { dir: string; remove: () => void } => {
  const dir = mkdtempSync(join(tmpdir(), 'cds-store-'));
  cpSync(template, dir, { recursive: true });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
};

export { SEEDED_TABLES, seededStore, copySeededStore };
