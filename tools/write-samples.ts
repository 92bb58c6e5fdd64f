/**
 * `npm run samples`: rewrites the generated replay samples (shared/sources/samples/<source>/)
 * from the real recorded histories in ../shared/fixtures, in each live endpoint's wire format.
 * Files a generated folder no longer needs are removed; each folder's README.md is kept (it is
 * written by hand and names the fixture, publisher and range). The committed samples are the
 * output: run this after a fixture changes, then re-run the tests.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SAMPLES_DIR } from '../shared/sources/common';
import { GENERATED_SOURCES, buildSamples } from '../infra/local/samples';

// An operator tool, not run-time code: the recorded fixtures stay where they are published (beside the
// project, read in place); FIXTURES_DIR points elsewhere. The service itself reads only the samples.
const FIXTURES = process.env.FIXTURES_DIR ?? fileURLToPath(new URL('../../shared/fixtures/', import.meta.url));
if (!existsSync(FIXTURES)) {
  console.error(`npm run samples: no fixtures at ${FIXTURES} (set FIXTURES_DIR); the committed samples are unchanged`);
  process.exit(2);
}

const files = buildSamples((path) => new Uint8Array(readFileSync(`${FIXTURES.replace(/\/?$/, '/')}${path}`)));
const written = new Set(files.map((f) => f.path));
for (const source of GENERATED_SOURCES) {
  mkdirSync(`${SAMPLES_DIR}${source}`, { recursive: true });
  for (const name of readdirSync(`${SAMPLES_DIR}${source}`)) {
    if (name !== 'README.md' && !written.has(`${source}/${name}`)) {
      rmSync(`${SAMPLES_DIR}${source}/${name}`);
      console.log(`removed ${source}/${name}`);
    }
  }
}
for (const f of files) {
  writeFileSync(`${SAMPLES_DIR}${f.path}`, f.body);
  console.log(`wrote ${f.path} (${f.body.length} bytes)`);
}
