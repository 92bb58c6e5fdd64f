/**
 * Where the operator CLIs (ingest, keys, usage) read and write: the running `npm start` store (on
 * DYNAMODB_PORT, or wherever the `npm start` holding the data folder says its store answers),
 * otherwise the on-disk store under .data/ (the one `npm start` uses), claimed while the CLI runs.
 */
import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { claimDataDir, holderOf } from './data-dir-lock';
import { startEmbeddedStore } from './embedded-store';

const portOpen = (port: number) =>
  new Promise<boolean>((res) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.end();
      res(true);
    });
    s.once('error', () => res(false));
  });

/** A live process holds the data folder and its store cannot be reached: opening the folder too would fail. */
class StoreHeldError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
    readonly endpoint: string | null,
  ) {
    super(
      `the local store in ${dir} is held by npm start (pid ${pid})` +
        (endpoint ? `, whose store at ${endpoint} does not answer` : ', which has not said where its store answers yet') +
        ": run this command with that npm start's DYNAMODB_PORT (e.g. DYNAMODB_PORT=8001 npm run keys -- list), or stop it",
    );
    this.name = 'StoreHeldError';
  }
}

/**
 * The local store's endpoint and how to let go of it.
 * @throws StoreHeldError when a running npm start holds the data folder and its store cannot be reached
 */
const connectLocalStore = async (env: Record<string, string | undefined>): Promise<{ endpoint: string; close: () => Promise<void> }> => {
  if (env.DYNAMODB_ENDPOINT) return { endpoint: env.DYNAMODB_ENDPOINT, close: async () => {} };
  const port = Number(env.DYNAMODB_PORT ?? 8000);
  if (await portOpen(port)) return { endpoint: `http://127.0.0.1:${port}`, close: async () => {} };
  const dataDir = resolve(env.LOCAL_DATA_DIR ?? '.data/dynalite');
  const holder = holderOf(dataDir);
  if (holder) {
    const holderPort = holder.endpoint ? Number(new URL(holder.endpoint).port) : Number.NaN;
    if (Number.isInteger(holderPort) && (await portOpen(holderPort))) return { endpoint: holder.endpoint!, close: async () => {} };
    throw new StoreHeldError(dataDir, holder.pid, holder.endpoint);
  }
  mkdirSync(dataDir, { recursive: true });
  // Held while the command runs: an npm start meanwhile says so instead of failing inside LevelDB.
  const release = claimDataDir(dataDir);
  const store = await startEmbeddedStore(0, dataDir).catch((err: unknown) => {
    release();
    throw err;
  });
  return {
    endpoint: store.endpoint,
    close: async () => {
      await store.close();
      release();
    },
  };
};

export { connectLocalStore, StoreHeldError };
