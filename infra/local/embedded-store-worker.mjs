// The embedded store's thread (embedded-store-thread.ts): loads the TypeScript store through tsx's
// API (a thread does not inherit a loader that vitest or plain node did not register), starts it,
// says where it answers, and closes it when told.
import { parentPort, workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

const { startEmbeddedStore } = await tsImport('./embedded-store.ts', import.meta.url);
try {
  const store = await startEmbeddedStore(workerData.port, workerData.path);
  parentPort.on('message', async (m) => {
    if (m !== 'close') return;
    await store.close();
    parentPort.postMessage({ closed: true });
    parentPort.close();
  });
  parentPort.postMessage({ endpoint: store.endpoint, port: store.port });
} catch (err) {
  parentPort.postMessage({ error: { message: err.message, code: err.code, port: err.port } });
  parentPort.close();
}
