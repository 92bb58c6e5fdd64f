/**
 * The shared recorded payloads (../shared/fixtures beside the project) for contract tests. They
 * exist in CI and on developer machines; in a clone without them the contract tests skip with
 * a visible note, except under REQUIRE_FIXTURES=1 (set by .ci/run), where the run fails.
 *
 * Every read of a fixture goes through fixtureBytes or fixtureText, under a HAVE_FIXTURES guard
 * (describe.skipIf(!HAVE_FIXTURES), it.skipIf, or `HAVE_FIXTURES ? … : …` where a skipped describe
 * still runs its body): test/helpers/fixture-reads.test.ts checks both.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));
const HAVE_FIXTURES = existsSync(FIXTURES);
// CI sets REQUIRE_FIXTURES=1: there the contract tests must run, never skip quietly.
if (!HAVE_FIXTURES && process.env.REQUIRE_FIXTURES === '1') {
  throw new Error(`REQUIRE_FIXTURES=1 but ${FIXTURES} is absent: the recorded-payload contract tests cannot run`);
}
if (!HAVE_FIXTURES) console.warn(`[contract tests skipped] ${FIXTURES} is absent: recorded-payload contract tests will not run`);

const fixturePath = (rel: string): string => {
  if (!HAVE_FIXTURES) throw new Error(`fixture ${rel} read without the fixtures beside the project: guard the test with HAVE_FIXTURES`);
  return `${FIXTURES}${rel}`;
};

/** A recorded payload's bytes, by its path under ../shared/fixtures. */
const fixtureBytes = (rel: string): Uint8Array => new Uint8Array(readFileSync(fixturePath(rel)));

/** A recorded payload as text (UTF-8 unless told). */
const fixtureText = (rel: string, encoding: BufferEncoding = 'utf8'): string => readFileSync(fixturePath(rel), encoding);

export { HAVE_FIXTURES, fixtureBytes, fixtureText };
