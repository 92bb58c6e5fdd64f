/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, its `server` mode) against
 * the local service: every active and pending server scenario of spec 2025-11-25 (cumulative: the
 * 2025-06-18 ones too), with an expected-failures file that lists only scenarios needing a feature
 * this server does not offer, each with its reason (conformance/expected-failures.yml). The runner
 * itself fails on an unexpected failure and on an entry that passes (a stale baseline).
 *
 * The installed suite (0.1.16, the registry's latest) has no 2026-07-28 scenarios: `--spec-version`
 * knows 2025-03-26, 2025-06-18, 2025-11-25, draft (no server scenarios) and extension. What the
 * 2026-07-28 revision adds (server/discover, resultType, ttlMs/cacheScope, Mcp-Method/Mcp-Name) is
 * checked by test/mcp/protocol-eras.test.ts with the SDK's v2 client. The suite takes about 3 s.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { startTestStack } from '../helpers/stack';

const CLI = resolve('node_modules/@modelcontextprotocol/conformance/dist/index.js');
const BASELINE = resolve('test/mcp/conformance/expected-failures.yml');

/** Scenarios that exercise what this server does offer: each must pass, none may be in the baseline. */
const MUST_PASS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

/** The baseline's entries, each with the reason written beside it. */
const baseline = (): Array<{ scenario: string; reason: string }> =>
  readFileSync(BASELINE, 'utf8')
    .split('\n')
    .map((line) => /^\s+-\s+([\w-]+)\s*(?:#\s*(.*))?$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ scenario: m[1]!, reason: (m[2] ?? '').trim() }));

/** Runs the suite's CLI (Node 24: the suite uses fs.globSync). */
const runSuite = (args: string[]): Promise<{ code: number | null; output: string }> =>
  new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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

/** Every check the suite recorded, by scenario (its result folders are named server-<scenario>-<time>). */
const checksByScenario = (dir: string): Map<string, Array<{ id: string; status: string; errorMessage?: string }>> =>
  new Map(
    readdirSync(dir).map((folder) => [
      folder.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, ''),
      JSON.parse(readFileSync(join(dir, folder, 'checks.json'), 'utf8')),
    ]),
  );

describe('MCP conformance suite, server mode, spec 2025-11-25 (active and pending scenarios)', () => {
  let stack: LocalStack;
  let out: string;
  let run: { code: number | null; output: string };
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: undefined }, false);
    out = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
    run = await runSuite([
      'server',
      '--url',
      `${stack.url}/api/mcp`,
      '--suite',
      'all',
      '--spec-version',
      '2025-11-25',
      '--expected-failures',
      BASELINE,
      '-o',
      out,
    ]);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('passes: every failure is in the baseline and every baseline entry still fails', () => {
    expect(run.output).toContain('Baseline check passed');
    expect(run.code, run.output.slice(-2000)).toBe(0);
  });

  it('the scenarios of what this server offers pass, check by check, and are not in the baseline', () => {
    const checks = checksByScenario(out);
    const listed = new Set(baseline().map((e) => e.scenario));
    for (const scenario of MUST_PASS) {
      expect(listed.has(scenario), scenario).toBe(false);
      const ran = checks.get(scenario);
      expect(ran?.length, `${scenario} ran`).toBeGreaterThan(0);
      expect(
        ran!.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING'),
        scenario,
      ).toEqual([]);
      expect(
        ran!.some((c) => c.status === 'SUCCESS'),
        scenario,
      ).toBe(true);
    }
  });

  it('the baseline lists only features this server does not offer, each with its reason, and each failed for that reason', () => {
    const checks = checksByScenario(out);
    for (const { scenario, reason } of baseline()) {
      expect(reason.length, `${scenario} has a reason`).toBeGreaterThan(20);
      const failures = (checks.get(scenario) ?? []).filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      expect(failures.length, scenario).toBeGreaterThan(0);
      // What a missing feature looks like: a method the server does not have, a fixture tool it does not list, or no session.
      for (const f of failures) {
        expect(`${f.id} ${f.errorMessage ?? ''}`, scenario).toMatch(/Method not found|unknown tool|not found\. Available tools|-session/);
      }
    }
  });
});
