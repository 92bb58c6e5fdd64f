/**
 * A loopback port free at the moment of asking, for a process the test starts itself (the local
 * runtime's PORT and DYNAMODB_PORT, Prism, the local chain): listen on port 0, read it, close.
 */
import { createServer } from 'node:net';

/** @example const port = await freePort(); */
const freePort = (): Promise<number> =>
  new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });

export { freePort };
