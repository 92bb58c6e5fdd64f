/**
 * An HTTP proxy in front of the embedded store that can lose the store's answers after the store
 * applied the request: while `dropping` names an operation (the `X-Amz-Target` suffix, e.g.
 * `TransactWriteItems`), each such request is passed on and applied, and its answer is held until
 * the client gives up (its socket is then reset), the way a write whose acknowledgement never came
 * back looks to the client. Other operations pass through untouched.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface StoreAnswerProxy {
  /** Point DYNAMODB_ENDPOINT here. */
  endpoint: string;
  /** Operations whose answers are lost (after the store applied them); empty: none. */
  dropping: Set<string>;
  /** Requests applied by the store whose answer was lost, by operation. */
  lost: Record<string, number>;
  close(): Promise<void>;
}

const readAll = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

/**
 * Starts the proxy on a free loopback port.
 * @param target the store's endpoint (http://127.0.0.1:<port>)
 */
const startStoreAnswerProxy = async (target: string): Promise<StoreAnswerProxy> => {
  const upstream = new URL(target);
  const proxy: StoreAnswerProxy = { endpoint: '', dropping: new Set(), lost: {}, close: async () => undefined };
  const server: Server = createServer(async (req, res) => {
    const body = await readAll(req);
    const operation =
      String(req.headers['x-amz-target'] ?? '')
        .split('.')
        .pop() ?? '';
    const drop = proxy.dropping.has(operation);
    const headers = { ...req.headers, host: upstream.host };
    const forwarded = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, async (answer) => {
      const data = await readAll(answer);
      if (drop) {
        // Applied, unanswered: the client times out (and may retry) without learning the outcome.
        proxy.lost[operation] = (proxy.lost[operation] ?? 0) + 1;
        return;
      }
      res.writeHead(answer.statusCode ?? 500, answer.headers);
      res.end(data);
    });
    forwarded.on('error', () => res.destroy());
    forwarded.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  proxy.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
};

export { startStoreAnswerProxy };
export type { StoreAnswerProxy };
