/**
 * Where the operator CLIs (ingest, keys, usage) read and write: the running `npm start` store when
 * it answers on DYNAMODB_PORT, otherwise the on-disk store under .data/ (the one `npm start` uses).
 */
import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
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

/** The local store's endpoint and how to let go of it. */
const connectLocalStore = async (env: Record<string, string | undefined>): Promise<{ endpoint: string; close: () => Promise<void> }> => {
  if (env.DYNAMODB_ENDPOINT) return { endpoint: env.DYNAMODB_ENDPOINT, close: async () => {} };
  const port = Number(env.DYNAMODB_PORT ?? 8000);
  if (await portOpen(port)) return { endpoint: `http://127.0.0.1:${port}`, close: async () => {} };
  const dataDir = resolve(env.LOCAL_DATA_DIR ?? '.data/dynalite');
  mkdirSync(dataDir, { recursive: true });
  const store = await startEmbeddedStore(0, dataDir);
  return { endpoint: store.endpoint, close: store.close };
};

export { connectLocalStore };
