/**
 * A loopback webhook receiver for the watch tests: records every POST (headers and raw body) and
 * answers with the status the test sets (200 unless told otherwise).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

interface Receiver {
  url: string;
  received: Received[];
  /** The status of the next answers (a function of the request's index). */
  status: (index: number) => number;
  /** Waits until `n` requests arrived, or fails after `budgetMs`. */
  waitFor(n: number, budgetMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

const startReceiver = async (): Promise<Receiver> => {
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const index = receiver.received.length;
      receiver.received.push({ headers: req.headers, body, at: Date.now() });
      res.writeHead(receiver.status(index));
      res.end();
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const receiver: Receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: [],
    status: () => 200,
    waitFor: async (n, budgetMs = 30_000) => {
      const deadline = Date.now() + budgetMs;
      while (receiver.received.length < n) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`receiver: ${receiver.received.length} of ${n} deliveries within ${budgetMs} ms`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 1000));
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      return receiver.received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
  return receiver;
};

export { startReceiver };
export type { Receiver, Received };
