/**
 * vitest global setup: the run's folder for the replay seed that seeded test stacks copy
 * (seeded-store.ts) and for every temporary file of the run, removed after the last file.
 *
 * vitest calls it once per project (vitest.config.ts has two: isolated files and files sharing a
 * worker): the projects share one folder, so the seed is written once for the run.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's folder: the seeded store is written there once, by the first stack that needs it. */
    seedRunDir: string;
  }
}

interface RunFolder {
  dir: string;
  users: number;
  previousTmp: string | undefined;
}

/** On globalThis: each project may load this file as a module of its own, but all run in this process. */
const KEY = Symbol.for('commodity-data-service.test-run-folder');
const shared = globalThis as { [KEY]?: RunFolder };

export default function setup(project: TestProject): () => void {
  let run = shared[KEY];
  if (!run) {
    const dir = mkdtempSync(join(tmpdir(), 'cds-test-run-'));
    // The workers (forked after this runs, with this process's environment) and what they spawn make
    // their temporary files under the run's folder (os.tmpdir() reads TMPDIR), so a test that forgets
    // to remove one, or fails before it can, leaves nothing in /tmp once the run ends.
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    run = { dir, users: 0, previousTmp: process.env.TMPDIR };
    process.env.TMPDIR = tmp;
    shared[KEY] = run;
  }
  run.users++;
  project.provide('seedRunDir', run.dir);
  const mine = run;
  return () => {
    if (--mine.users > 0) return;
    delete shared[KEY];
    if (mine.previousTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = mine.previousTmp;
    rmSync(mine.dir, { recursive: true, force: true });
  };
}
