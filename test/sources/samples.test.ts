/**
 * The committed replay samples are what `npm run samples` (tools/write-samples.ts) writes
 * from the recorded fixtures: nothing hand-edited, nothing stale, nothing extra.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_SOURCES, buildSamples } from '../../infra/local/samples';
import { unzipSingle } from '../../shared/sources/cftc-cot';
import { SAMPLES_DIR } from '../../shared/sources/common';
import { fixtureBytes, HAVE_FIXTURES } from '../helpers/fixtures';

/** A zip's member, not its bytes: a zip's timestamps follow the writer's time zone. */
const content = (path: string, body: Uint8Array) => (path.endsWith('.zip') ? unzipSingle(body, path) : body);

describe.skipIf(!HAVE_FIXTURES)('generated replay samples (../shared/fixtures -> shared/sources/samples)', () => {
  // A skipped describe still runs its body to collect tests: read the fixtures only when they exist.
  const files = HAVE_FIXTURES ? buildSamples(fixtureBytes) : [];

  it.each(files.map((f) => [f.path, f] as const))('%s is exactly what the generator writes', (path, f) => {
    const committed = new Uint8Array(readFileSync(`${SAMPLES_DIR}${path}`));
    expect(content(path, committed)).toEqual(content(path, f.body));
  });

  it.each(GENERATED_SOURCES)('%s holds the generated files and its README, nothing else', (source) => {
    const expected = files.filter((f) => f.path.startsWith(`${source}/`)).map((f) => f.path.slice(source.length + 1));
    expect(readdirSync(`${SAMPLES_DIR}${source}`).sort()).toEqual([...expected, 'README.md'].sort());
    expect(readFileSync(`${SAMPLES_DIR}${source}/README.md`, 'utf8')).toMatch(/npm run samples/);
  });

  it('stays compact: a few MB for every sample together', () => {
    const total = files.reduce((n, f) => n + f.body.length, 0);
    expect(total).toBeLessThan(2 * 1024 * 1024);
  });
});
