/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12, its `server`
 * mode) against the local service: every active and pending server scenario at both wires this
 * server speaks, 2026-07-28 (stateless: protocol version and capabilities in each request's `_meta`,
 * server/discover) and 2025-11-25 (the initialize handshake; cumulative, the 2025-06-18 ones too).
 * A scenario emits different checks on each wire, so both runs are needed. Each run has an
 * expected-failures file (conformance/expected-failures-<version>.yml) that lists only scenarios, or
 * single checks of a scenario, needing a feature this server does not offer, each with its reason.
 * The runner itself fails on an unexpected failure and on an entry that passes (a stale baseline).
 *
 * The suite's bundle imports fs.globSync (Node >= 22) for its tier-check command only;
 * conformance/node20-fs-globsync.mjs lets it load on Node 20. The two runs take about 20 s.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { startTestStack } from '../helpers/stack';

const CLI = resolve('node_modules/@modelcontextprotocol/conformance/dist/index.js');
const NODE20_HOOK = resolve('test/mcp/conformance/node20-fs-globsync.mjs');
const baselineFile = (version: string) => resolve(`test/mcp/conformance/expected-failures-${version}.yml`);

interface Revision {
  version: '2026-07-28' | '2025-11-25';
  /** Scenarios of what this server offers: every check passes except the baseline's own `scenario:check` entries. */
  mustPass: string[];
  /** Checks that must have run and passed (the revision's features the issue names). */
  mustSucceed: Array<{ scenario: string; check: string }>;
}

const REVISIONS: Revision[] = [
  {
    version: '2026-07-28',
    mustPass: ['server-stateless', 'tools-list', 'caching', 'http-header-validation', 'dns-rebinding-protection'],
    mustSucceed: [
      { scenario: 'server-stateless', check: 'sep-2575-server-implements-discover' },
      { scenario: 'server-stateless', check: 'sep-2575-discover-capabilities-match-handlers' },
      { scenario: 'server-stateless', check: 'sep-2575-server-unsupported-version-error' },
      // Every result validated against the 2026-07-28 schema (resultType on each answer).
      { scenario: 'tools-list', check: 'wire-schema-valid' },
      { scenario: 'caching', check: 'sep-2549-tools-list-caching-hints' },
      { scenario: 'caching', check: 'sep-2549-ttl-non-negative' },
      { scenario: 'caching', check: 'sep-2549-cache-scope-valid' },
      // Mcp-Method / Mcp-Name checked against the body.
      { scenario: 'http-header-validation', check: 'sep-2243-server-reject-invalid-headers' },
      { scenario: 'http-header-validation', check: 'sep-2243-header-name-case-insensitive' },
    ],
  },
  {
    version: '2025-11-25',
    mustPass: ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'],
    mustSucceed: [{ scenario: 'server-initialize', check: 'server-initialize' }],
  },
];

/**
 * What a missing feature looks like: a method the server lacks (-32601, so no resource error with
 * data.uri), a fixture tool it does not list, no session, no input requests.
 */
const MISSING_FEATURE =
  /Method not found|-32601|data\.uri is undefined|unknown tool|not found\. Available tools|-session|does not list the diagnostic tool|no tool with x-mcp-header|InputRequiredResult/;

/** A baseline's entries (`scenario` or `scenario:check`), each with the reason written beside it. */
const baseline = (version: string): Array<{ scenario: string; check?: string; reason: string }> =>
  readFileSync(baselineFile(version), 'utf8')
    .split('\n')
    .map((line) => /^\s+-\s+([\w-]+)(?::([\w-]+))?\s*(?:#\s*(.*))?$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ scenario: m[1]!, ...(m[2] ? { check: m[2] } : {}), reason: (m[3] ?? '').trim() }));

/** Runs the suite's CLI. */
const runSuite = (args: string[]): Promise<{ code: number | null; output: string }> =>
  new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', NODE20_HOOK, CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => {
      output += c;
    });
    child.stderr.on('data', (c) => {
      output += c;
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, output }));
  });

type Check = { id: string; status: string; errorMessage?: string };

/** Every check the suite recorded, by scenario (its result folders are named server-<scenario>-<time>). */
const checksByScenario = (dir: string): Map<string, Check[]> =>
  new Map(
    readdirSync(dir).map((folder) => [
      folder.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, ''),
      JSON.parse(readFileSync(join(dir, folder, 'checks.json'), 'utf8')),
    ]),
  );

const failed = (c: Check) => c.status === 'FAILURE' || c.status === 'WARNING';

describe('MCP conformance suite, server mode (active and pending scenarios)', () => {
  let stack: LocalStack;
  const runs = new Map<string, { out: string; code: number | null; output: string }>();
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: undefined }, false);
    for (const { version } of REVISIONS) {
      const out = mkdtempSync(join(tmpdir(), `mcp-conformance-${version}-`));
      const run = await runSuite([
        'server',
        '--url',
        `${stack.url}/api/mcp`,
        '--suite',
        'all',
        '--spec-version',
        version,
        '--expected-failures',
        baselineFile(version),
        '-o',
        out,
      ]);
      runs.set(version, { out, ...run });
    }
  }, 240_000);
  afterAll(async () => {
    await stack?.close();
    for (const { out } of runs.values()) rmSync(out, { recursive: true, force: true });
  });

  describe.each(REVISIONS)('spec $version', ({ version, mustPass, mustSucceed }) => {
    it('passes: every failure is in the baseline and every baseline entry still fails', () => {
      const run = runs.get(version)!;
      expect(run.output).toContain('Baseline check passed');
      expect(run.code, run.output.slice(-2000)).toBe(0);
    });

    it("the scenarios of what this server offers pass, check by check (but for the baseline's single-check entries)", () => {
      const checks = checksByScenario(runs.get(version)!.out);
      const entries = baseline(version);
      for (const scenario of mustPass) {
        expect(
          entries.some((e) => e.scenario === scenario && !e.check),
          `${scenario} is not baselined whole`,
        ).toBe(false);
        const excused = new Set(entries.filter((e) => e.scenario === scenario).map((e) => e.check));
        const ran = checks.get(scenario);
        expect(ran?.length, `${scenario} ran`).toBeGreaterThan(0);
        expect(
          ran!.filter((c) => failed(c) && !excused.has(c.id)),
          scenario,
        ).toEqual([]);
        expect(
          ran!.some((c) => c.status === 'SUCCESS'),
          scenario,
        ).toBe(true);
      }
      for (const { scenario, check } of mustSucceed) {
        const ran = (checks.get(scenario) ?? []).filter((c) => c.id === check);
        expect(ran.length, `${scenario}:${check} ran`).toBeGreaterThan(0);
        expect(
          ran.map((c) => c.status),
          `${scenario}:${check}`,
        ).toEqual(ran.map(() => 'SUCCESS'));
      }
    });

    it('the baseline lists only features this server does not offer, each with its reason, and each failed for that reason', () => {
      const checks = checksByScenario(runs.get(version)!.out);
      for (const { scenario, check, reason } of baseline(version)) {
        expect(reason.length, `${scenario} has a reason`).toBeGreaterThan(20);
        const failures = (checks.get(scenario) ?? []).filter((c) => failed(c) && (!check || c.id === check));
        expect(failures.length, `${scenario}${check ? `:${check}` : ''}`).toBeGreaterThan(0);
        for (const f of failures) expect(`${f.id} ${f.errorMessage ?? ''}`, scenario).toMatch(MISSING_FEATURE);
      }
    });
  });
});
