/**
 * A JSON-RPC proxy in front of the local chain that can lose the node's answer to
 * `eth_sendRawTransaction` after passing the transaction on: the transfer is mined, but the sender
 * (the facilitator) sees a 503 or a JSON-RPC error such as "already known", as it does when a
 * hosted node drops a connection or a retry races its own broadcast.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type SendFault = 'none' | 'lose-503' | 'lose-already-known';

interface RpcProxy {
  url: string;
  /** What happens to the next eth_sendRawTransaction answers (until changed). */
  sendFault: SendFault;
  /** Transactions passed on whose answer was lost. */
  lost: number;
  close(): Promise<void>;
}

const readAll = async (req: import('node:http').IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

/**
 * Starts the proxy on a free loopback port.
 * @param target the node's JSON-RPC URL
 */
const startRpcProxy = async (target: string): Promise<RpcProxy> => {
  const proxy: RpcProxy = { url: '', sendFault: 'none', lost: 0, close: async () => undefined };
  const server: Server = createServer(async (req, res) => {
    const body = await readAll(req);
    const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const answer = await upstream.text();
    let request: { id?: unknown; method?: string } | undefined;
    try {
      request = JSON.parse(body) as typeof request;
    } catch {
      request = undefined;
    }
    if (request?.method === 'eth_sendRawTransaction' && proxy.sendFault !== 'none') {
      // The node took the transaction; its answer never reaches the sender.
      proxy.lost++;
      if (proxy.sendFault === 'lose-503') {
        res.writeHead(503, { 'content-type': 'text/plain' });
        return res.end('service unavailable');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ jsonrpc: '2.0', id: request.id ?? null, error: { code: -32000, message: 'already known' } }));
    }
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return proxy;
};

export { startRpcProxy };
export type { RpcProxy, SendFault };
