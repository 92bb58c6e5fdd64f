/**
 * `npm run ingest -- <source> --file PATH` (issue 37): payload files in the publisher's wire format
 * stand in for a source's bundled samples, so they go through the same parse, guards, vintages and
 * idempotent writes as every run. Each file keeps its own name (the adapters read the series from
 * it, e.g. PET.WCESTUS1.W.json), and is retrieved now.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { SourceAdapter } from '../../shared/sources/types';

/**
 * The adapter with `files` as its samples (its live fetch unchanged).
 * @example runSource(withPayloadFiles(ADAPTERS['eia-petroleum']!, ['./PET.WCESTUS1.W.json']), { mode: 'replay', store, config })
 */
const withPayloadFiles = (adapter: SourceAdapter, files: readonly string[]): SourceAdapter => ({
  ...adapter,
  samples: async () =>
    Promise.all(files.map(async (path) => ({ name: basename(path), body: new Uint8Array(await readFile(path)), retrievedAt: new Date().toISOString() }))),
});

export { withPayloadFiles };
