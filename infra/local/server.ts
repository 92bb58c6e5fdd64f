/**
 * The local HTTP server: matches each request against the route table like API Gateway,
 * builds the payload-2.0 event and calls the family's Lambda handler: the same middy stack and
 * handler map a Lambda entry (functions/) builds, composed here with the local services.
 */
import { createServer, STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { FAMILY_HANDLERS } from '../../shared/families';
import { createFamilyHandler, createFreeFamilyHandler, type FamilyLambdaHandler } from '../../shared/http/family-handler';
import { FAMILIES, FAMILY_ROUTES, matchRoute, type Family } from '../../shared/routes';
import type { Services } from '../../shared/services';
import { buildContext, buildEventV2, writeResult } from './lambda-event';
import { readBody } from './read-body';

/** One Lambda handler per family, built once over the given services (as each Lambda does at cold start). */
const buildFamilyLambdas = (services: Services): Record<Family, FamilyLambdaHandler> => {
  const provide = () => services;
  const build = <F extends Family>(f: F) => {
    // As the Lambda entries do: a family without a priced route runs without the payment layer.
    const create = FAMILY_ROUTES[f].routes.some((r) => r.priceKey !== null) ? createFamilyHandler : createFreeFamilyHandler;
    return create(FAMILY_ROUTES[f], FAMILY_HANDLERS[f], provide);
  };
  return Object.fromEntries(FAMILIES.map((f) => [f, build(f)])) as Record<Family, FamilyLambdaHandler>;
};

/** Unmatched requests go where API Gateway's `$default` route sends them: the discovery function. */
const DEFAULT_FAMILY: Family = 'discovery';
const MAX_URL_LENGTH = 8192;
/**
 * The request line and headers node:http reads (its own limit is 16 KiB for both together, so a
 * long URL was refused 431 "headers too large" before the 414 below could say what is wrong). The
 * headers alone keep node's 16 KiB: over it they are 431, as before.
 */
const MAX_HEAD_BYTES = 1024 * 1024;
const MAX_HEADER_BYTES = 16 * 1024;
const MAX_BODY_BYTES = 1024 * 1024;

const jsonError = (status: number, code: string, message: string) => ({
  statusCode: status,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  body: JSON.stringify({ error: { code, message, retryable: false, request_id: 'local-edge', details: {} } }),
});

/**
 * The request target as a URL. Origin-form targets are appended to our own origin rather than
 * resolved against it, so `//host/x` stays a path (API Gateway's rawPath) instead of naming a
 * host; absolute-form targets are parsed as they are. Anything else (`*`, authority-form) is null.
 */
const requestUrl = (target: string, host: string): URL | null => {
  try {
    return new URL(target.startsWith('/') ? `http://${host}${target}` : target);
  } catch {
    return null;
  }
};

/** What node's parser refused, answered the way API Gateway answers it: a status and a JSON error body. */
const CLIENT_ERRORS: Record<string, [status: number, code: string, message: string]> = {
  HPE_HEADER_OVERFLOW: [431, 'HEADERS_TOO_LARGE', 'request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'REQUEST_TIMEOUT', 'the request was not received in time'],
  HPE_HEADERS_TIMEOUT: [408, 'REQUEST_TIMEOUT', 'the request headers were not received in time'],
};

/**
 * node:http answers a request its parser refuses (bad request line, header or framing; oversized
 * headers) with a bare status line; API Gateway answers such requests with JSON, so we do too.
 */
const answerClientError = (err: NodeJS.ErrnoException, socket: Socket): void => {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, code, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'BAD_REQUEST', 'malformed HTTP request'];
  const { body } = jsonError(status, code, message);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncache-control: no-store\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
};

/**
 * Keep-alive: what the server advertises, and how long it really keeps an idle socket. A client
 * reuses an idle socket until the advertised timeout less a margin (undici, which fetch uses: 2 s
 * after reading the answer), while node:http counts its own timeout from the moment it wrote the
 * answer. On a loaded machine a loop turn can last seconds, so the two clocks drift apart: the server
 * closed sockets on which the client had just sent the next request (ECONNRESET). Closing an idle
 * socket a minute after the advertised timeout leaves that race to a loop stalled for a minute.
 */
const KEEP_ALIVE_ADVERTISED_S = 5;
const KEEP_ALIVE_IDLE_MS = 65_000;

/**
 * Writes an answer with the Keep-Alive we advertise (node advertises its own keepAliveTimeout unless
 * the answer names one). Among the answer's headers, not set on the response before it: a header set
 * ahead of writeHead sends node down its slower merge of the two (every header validated twice).
 */
const ADVERTISED_KEEP_ALIVE: Readonly<Record<string, string>> = Object.freeze({ 'keep-alive': `timeout=${KEEP_ALIVE_ADVERTISED_S}` });
const answer = (res: ServerResponse, result: Parameters<typeof writeResult>[1]) => writeResult(res, result, ADVERTISED_KEEP_ALIVE);

/**
 * Requests handled at once; the others wait their turn before anything starts (the way a Lambda
 * instance takes one request at a time and API Gateway holds the rest). The handlers, the embedded
 * store and every timeout share this process's event loop: admitting every request of a burst let a
 * loaded machine stretch each store call past its timeout (503 with nothing wrong in the store).
 */
const MAX_IN_FLIGHT = 16;

/** A counting gate: `enter` resolves when a slot is free, `leave` frees it for the next waiter. */
const admission = (limit: number) => {
  let inFlight = 0;
  const waiting: Array<() => void> = [];
  return {
    enter: async (): Promise<void> => {
      if (inFlight < limit) {
        inFlight++;
        return;
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    },
    // The slot passes straight to the next waiter, so a newcomer cannot overtake the queue.
    leave: (): void => {
      const next = waiting.shift();
      if (next) next();
      else inFlight--;
    },
  };
};

interface LocalServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Starts the HTTP server on 127.0.0.1, serving every family over the given services. */
const startLocalServer = async (services: Services, port = 0, host = '127.0.0.1'): Promise<LocalServer> => {
  const lambdas = buildFamilyLambdas(services);
  // The domain every event names: our own address once listening (a Host header is the client's to forge).
  let domainName = host;
  const gate = admission(MAX_IN_FLIGHT);
  const server = createServer({ maxHeaderSize: MAX_HEAD_BYTES }, async (req, res) => {
    try {
      // API Gateway refuses over-long request lines before any Lambda runs.
      if ((req.url ?? '').length > MAX_URL_LENGTH) return answer(res, jsonError(414, 'URI_TOO_LONG', 'request URL is too long'));
      if (req.rawHeaders.reduce((n, h) => n + Buffer.byteLength(h) + 2, 0) > MAX_HEADER_BYTES) {
        return answer(res, jsonError(431, 'HEADERS_TOO_LARGE', 'request headers are too large'));
      }
      const url = requestUrl(req.url ?? '/', host);
      if (!url) return answer(res, jsonError(400, 'BAD_REQUEST', 'the request target is not a path'));
      const method = (req.method ?? 'GET').toUpperCase();
      // HEAD is served by the GET route (API Gateway: a HEAD route beside each GET, same function).
      const head = method === 'HEAD';
      const match = matchRoute(head ? 'GET' : method, url.pathname);
      if (match === 'method') return answer(res, jsonError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on ${url.pathname}`));
      const family = match ? match.route.family : DEFAULT_FAMILY;
      let body: Buffer | undefined;
      if (method !== 'GET' && method !== 'HEAD') {
        // API Gateway refuses payloads over its limit before any Lambda runs.
        body = await readBody(req, MAX_BODY_BYTES).catch(() => undefined);
        if (!body) return answer(res, jsonError(413, 'PAYLOAD_TOO_LARGE', `request body is larger than ${MAX_BODY_BYTES} bytes`));
      }
      await gate.enter();
      let result: Awaited<ReturnType<FamilyLambdaHandler>>;
      try {
        // The event (its time, the deadline of its context) starts when the request is handled, as a Lambda's does.
        const routeKey = match ? (head ? `HEAD ${match.route.path}` : match.route.id) : '$default';
        const event = buildEventV2({ req, url, routeKey, pathParameters: match?.pathParameters, body, domainName });
        result = await lambdas[family](event, buildContext(`local-${family}`, event.requestContext.requestId));
      } finally {
        gate.leave();
      }
      answer(res, result);
    } catch (err) {
      // Handlers map their own errors; reaching here means the runtime itself failed.
      console.error('local server error', err);
      if (!res.headersSent) answer(res, jsonError(500, 'INTERNAL', 'internal error'));
      else res.end();
    }
  });
  server.keepAliveTimeout = KEEP_ALIVE_IDLE_MS;
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  domainName = `${host}:${actual}`;
  return {
    server,
    url: `http://${host}:${actual}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
};

export { startLocalServer };
export type { LocalServer };
