/**
 * Starts the service's HTTP server as a second OS process (server-process-entry.ts) over the
 * parent's store, chain and facilitator: the configuration is handed over as the environment a
 * Lambda would get, so the child builds its own services (store client, facilitator client,
 * lanes) from it. Ready when its port answers; its output is kept for a failing test to show.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../shared/config';
import { freePort } from './ports';
import { until } from './until';

const ENTRY = fileURLToPath(new URL('./server-process-entry.ts', import.meta.url));
/** The project root, where node finds tsx. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The end of the child's output is what explains a failure; older output is dropped. */
const OUTPUT_KEPT = 64 * 1024;

interface ServerProcess {
  url: string;
  pid: number;
  /** The child's stdout and stderr, interleaved, its last OUTPUT_KEPT characters. */
  output(): string;
  close(): Promise<void>;
}

/**
 * A parsed configuration back as the environment it parses from (loadConfig(configEnv(c)) equals c):
 * each value as its string ('true'/'false' read as flags, a list as its comma-joined items).
 */
const configEnv = (config: Config): Record<string, string> =>
  Object.fromEntries(Object.entries(config).flatMap(([key, value]) => (value === undefined ? [] : [[key, String(value)]])));

/**
 * @param config the child's whole configuration (its store endpoint, facilitator URL, chain RPC …)
 * @example const second = await startServerProcess({ ...stack.config, DYNAMODB_ENDPOINT: proxy.endpoint });
 */
const startServerProcess = async (config: Config): Promise<ServerProcess> => {
  const port = await freePort();
  // Only the configuration and what node needs to run: nothing of the test's own environment leaks in.
  const env = { PATH: process.env.PATH ?? '', ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}), ...configEnv(config), PORT: String(port) };
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', ENTRY], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-OUTPUT_KEPT);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exit: string | undefined;
  child.once('exit', (code, signal) => {
    exit = `exit ${code ?? signal}`;
  });
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (exit === undefined) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  };
  try {
    await until(async () => {
      if (exit !== undefined) throw new Error(`the server process ended (${exit}) before it answered:\n${out}`);
      // Any answer means it listens (the route does not matter).
      return fetch(`${url}/`).then(
        (r) => r.body?.cancel().then(() => true) ?? true,
        () => false,
      );
    }, 100);
  } catch (err) {
    await close();
    throw err;
  }
  return { url, pid: child.pid!, output: () => out, close };
};

export { configEnv, startServerProcess };
export type { ServerProcess };
