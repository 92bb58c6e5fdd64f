/**
 * The shared recorded payloads (../shared/fixtures beside the project) for contract tests. They
 * exist in CI and on developer machines; in a clone without them the contract tests skip with
 * a visible note, except under REQUIRE_FIXTURES=1 (set by .ci/run), where the run fails.
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

const fixtureBytes = (rel: string): Uint8Array => new Uint8Array(readFileSync(`${FIXTURES}${rel}`));

export { FIXTURES, HAVE_FIXTURES, fixtureBytes };
