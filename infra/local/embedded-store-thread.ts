/**
 * The embedded store on a thread of its own: the same store (embedded-store.ts), but its request
 * handling (dynalite, the transaction emulation) runs beside this process's event loop instead of
 * on it, so the local runtime's server and watch deliveries get a core of their own on a machine
 * with two. It stays in this process: `process.cpuUsage()` still counts it.
 */
import { Worker } from 'node:worker_threads';
import type { EmbeddedStore } from './embedded-store';

/**
 * Starts the store on a worker thread.
 * @param port 0 picks a free port
 * @param path a folder to keep data in; absent = in memory
 */
const startEmbeddedStoreThread = (port = 0, path?: string): Promise<EmbeddedStore> =>
  new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./embedded-store-worker.mjs', import.meta.url), { workerData: { port, path } });
    worker.once('error', reject);
    worker.once('message', (m: { endpoint: string; port: number } | { error: { message: string; code?: string; port?: number } }) => {
      if ('error' in m) {
        // As the store's own error (npm start names the port in use).
        reject(Object.assign(new Error(m.error.message), { code: m.error.code, port: m.error.port }));
        return;
      }
      resolve({
        endpoint: m.endpoint,
        port: m.port,
        close: () =>
          new Promise<void>((done) => {
            worker.once('exit', () => done());
            worker.once('message', () => void worker.terminate());
            worker.postMessage('close');
          }),
      });
    });
  });

export { startEmbeddedStoreThread };
