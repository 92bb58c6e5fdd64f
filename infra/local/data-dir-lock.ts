/**
 * One `npm start` per data folder. The embedded store keeps its data in LevelDB, which one process may
 * open at a time; a second dynalite on the same folder dies with an uncaught "Database is closed". A pid
 * file claims the folder first, so the second start says what is wrong instead. The holder also writes
 * where its store answers, so the operator CLIs use that store whatever port it was given.
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The folder is held by a live process. */
class DataDirInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`${dir} is in use by another npm start (pid ${pid}): stop it, or give this one its own folder with LOCAL_DATA_DIR=<folder>`);
    this.name = 'DataDirInUseError';
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Claims `dir` for this process (a pid file inside it). A file left by a process that is gone is taken over.
 * @returns the release, which removes the file if this process still holds it
 * @throws DataDirInUseError when a live process holds the folder
 */
const claimDataDir = (dir: string): (() => void) => {
  const file = join(dir, 'npm-start.pid');
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const holder = Number(readFileSync(file, 'utf8'));
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) throw new DataDirInUseError(dir, holder);
      unlinkSync(file);
    }
  }
  return () => {
    try {
      if (readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file);
    } catch {
      // Already gone.
    }
  };
};

const STORE_FILE = 'npm-start.store';

/**
 * Records where the store of the process holding `dir` answers (its endpoint URL).
 * @returns the removal, for when the process stops
 */
const recordStoreEndpoint = (dir: string, endpoint: string): (() => void) => {
  const file = join(dir, STORE_FILE);
  writeFileSync(file, endpoint);
  return () => {
    try {
      unlinkSync(file);
    } catch {
      // Already gone.
    }
  };
};

/** The live process holding `dir` and where its store answers (null until it says), or null when none does. */
const holderOf = (dir: string): { pid: number; endpoint: string | null } | null => {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dir, 'npm-start.pid'), 'utf8'));
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || !isAlive(pid)) return null;
  try {
    return { pid, endpoint: readFileSync(join(dir, STORE_FILE), 'utf8').trim() || null };
  } catch {
    return { pid, endpoint: null };
  }
};

export { claimDataDir, recordStoreEndpoint, holderOf, DataDirInUseError };
