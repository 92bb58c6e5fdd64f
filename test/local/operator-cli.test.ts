/**
 * Every operator CLI (infra/local/*-cli.ts) answers `--help` with its usage (exit 0) and an option
 * it does not know with what was wrong and its usage (exit 2), never a Node stack trace. Both exit
 * before opening any store, so nothing here needs one.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const CLIS = readdirSync('infra/local').filter((f) => f.endsWith('-cli.ts'));

const run = (file: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> =>
  new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `infra/local/${file}`, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b;
    });
    child.stderr.on('data', (b: Buffer) => {
      err += b;
    });
    child.once('exit', (code) => done({ code, out, err }));
  });

describe('operator CLIs', () => {
  it('are the ingest and keys CLIs (a new one is checked too)', () => {
    expect(CLIS).toEqual(expect.arrayContaining(['ingest-cli.ts', 'keys-cli.ts']));
  });

  it.each(CLIS)(
    '%s --help and -h: the usage on stdout, exit 0',
    async (file) => {
      for (const flag of ['--help', '-h']) {
        const r = await run(file, [flag]);
        expect({ code: r.code, err: r.err }, `${file} ${flag}`).toEqual({ code: 0, err: '' });
        expect(r.out).toMatch(/^usage: npm run \w+ -- /);
      }
    },
    60_000,
  );

  it.each(CLIS)(
    '%s --no-such-option: what was wrong and the usage on stderr, exit 2, no stack trace',
    async (file) => {
      const r = await run(file, ['--no-such-option']);
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toContain("Unknown option '--no-such-option'");
      expect(r.err).toMatch(/\nusage: npm run \w+ -- /);
      expect(r.err).not.toMatch(/ERR_PARSE_ARGS|\n\s+at /);
    },
    60_000,
  );
});
