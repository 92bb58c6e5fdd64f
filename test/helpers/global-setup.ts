/**
 * vitest global setup: the run's folder for the replay seed that seeded test stacks copy
 * (seeded-store.ts), removed after the last file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's folder: the seeded store is written there once, by the first stack that needs it. */
    seedRunDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'cds-test-run-'));
  project.provide('seedRunDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
