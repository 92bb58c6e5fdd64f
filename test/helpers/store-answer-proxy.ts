/**
 * An HTTP proxy that loses answers after the upstream applied the request: in front of the
 * embedded store (operations named by their `X-Amz-Target` suffix, e.g. `TransactWriteItems`) or
 * in front of a facilitator (operations named by the path: `verify`, `settle`, `supported`).
 *
 *   dropping            while it names an operation, each such request is passed on and applied,
 *                       and its answer is held until the client gives up (its socket is then reset)
 *   loseNext(op, n, how) the next n answers of an operation are lost, then it answers again:
 *                       `hold` (held until the client gives up: a timeout) or `reset` (the
 *                       connection drops at once, the way a broken connection looks)
 *
 * Either way the upstream acted and the client does not learn the outcome, the way a write (or a
 * settlement) whose acknowledgement never came back looks to the client. Other operations pass
 * through untouched.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How an answer is lost: held until the client's own timeout, or the connection reset at once. */
type LostAnswer = 'hold' | 'reset';

interface AnswerProxy {
  /** Point the client here (DYNAMODB_ENDPOINT, X402_FACILITATOR_URL). */
  endpoint: string;
  /** Operations whose answers are lost (after the upstream applied them), held; empty: none. */
  dropping: Set<string>;
  /** Loses the answers of the next `count` requests of `operation` (applied upstream), then answers again. */
  loseNext(operation: string, count?: number, how?: LostAnswer): void;
  /** Requests applied upstream whose answer was lost, by operation. */
  lost: Record<string, number>;
  close(): Promise<void>;
}
/** The store's proxy (operations by X-Amz-Target). */
type StoreAnswerProxy = AnswerProxy;

const readAll = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

/** A DynamoDB request's operation: `DynamoDB_20120810.TransactWriteItems` -> `TransactWriteItems`. */
const storeOperation = (req: IncomingMessage): string =>
  String(req.headers['x-amz-target'] ?? '')
    .split('.')
    .pop() ?? '';

/** A facilitator request's operation: `/settle` -> `settle`. */
const pathOperation = (req: IncomingMessage): string => new URL(req.url ?? '/', 'http://127.0.0.1').pathname.replace(/\/+$/, '').split('/').pop() ?? '';

/**
 * Starts the proxy on a free loopback port.
 * @param target the upstream's endpoint (http://127.0.0.1:<port>, a path prefix kept)
 * @param operationOf names a request's operation
 */
const startAnswerProxy = async (target: string, operationOf: (req: IncomingMessage) => string): Promise<AnswerProxy> => {
  const upstream = new URL(target);
  const prefix = upstream.pathname.replace(/\/+$/, '');
  const next = new Map<string, { left: number; how: LostAnswer }>();
  const proxy: AnswerProxy = {
    endpoint: '',
    dropping: new Set(),
    lost: {},
    loseNext: (operation, count = 1, how = 'reset') => {
      next.set(operation, { left: count, how });
    },
    close: async () => undefined,
  };
  /** How this request's answer is lost, if it is (counted down once per request). */
  const lossOf = (operation: string): LostAnswer | null => {
    if (proxy.dropping.has(operation)) return 'hold';
    const rule = next.get(operation);
    if (!rule) return null;
    if (--rule.left <= 0) next.delete(operation);
    return rule.how;
  };
  const server: Server = createServer(async (req, res) => {
    const body = await readAll(req);
    const operation = operationOf(req);
    const loss = lossOf(operation);
    const headers = { ...req.headers, host: upstream.host };
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: `${prefix}${req.url ?? '/'}`, headers },
      async (answer) => {
        const data = await readAll(answer);
        if (loss) {
          // Applied, unanswered: the client gives up (or its connection breaks) without learning the outcome.
          proxy.lost[operation] = (proxy.lost[operation] ?? 0) + 1;
          if (loss === 'reset') res.destroy();
          return;
        }
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        res.end(data);
      },
    );
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

/** A proxy in front of the embedded store. */
const startStoreAnswerProxy = (target: string): Promise<StoreAnswerProxy> => startAnswerProxy(target, storeOperation);

/** A proxy in front of a facilitator (/verify, /settle, /supported). */
const startFacilitatorAnswerProxy = (target: string): Promise<AnswerProxy> => startAnswerProxy(target, pathOperation);

export { startFacilitatorAnswerProxy, startStoreAnswerProxy };
export type { AnswerProxy, StoreAnswerProxy };
