/**
 * The local HTTP server: matches each request against the route table like API Gateway,
 * builds the payload-2.0 event and calls the family's Lambda handler: the same middy stack and
 * handler map a Lambda entry (functions/) builds, composed here with the local services.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FAMILY_HANDLERS } from '../../shared/families';
import { createFamilyHandler, type FamilyLambdaHandler } from '../../shared/http/family-handler';
import { FAMILIES, matchRoute, type Family } from '../../shared/routes';
import type { Services } from '../../shared/services';
import { buildContext, buildEventV2, writeResult } from './lambda-event';
import { readBody } from './read-body';

/** One Lambda handler per family, built once over the given services (as each Lambda does at cold start). */
const buildFamilyLambdas = (services: Services): Record<Family, FamilyLambdaHandler> => {
  const provide = () => services;
  const build = <F extends Family>(f: F) => createFamilyHandler(f, FAMILY_HANDLERS[f], provide);
  return Object.fromEntries(FAMILIES.map((f) => [f, build(f)])) as Record<Family, FamilyLambdaHandler>;
};

/** Unmatched requests go where API Gateway's `$default` route sends them: the discovery function. */
const DEFAULT_FAMILY: Family = 'discovery';
const MAX_URL_LENGTH = 8192;
const MAX_BODY_BYTES = 1024 * 1024;

const jsonError = (status: number, code: string, message: string) => ({
  statusCode: status,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  body: JSON.stringify({ error: { code, message, retryable: false, request_id: 'local-edge', details: {} } }),
});

interface LocalServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Starts the HTTP server on 127.0.0.1, serving every family over the given services. */
const startLocalServer = async (services: Services, port = 0, host = '127.0.0.1'): Promise<LocalServer> => {
  const lambdas = buildFamilyLambdas(services);
  const server = createServer(async (req, res) => {
    try {
      // API Gateway refuses over-long request lines before any Lambda runs.
      if ((req.url ?? '').length > MAX_URL_LENGTH) return writeResult(res, jsonError(414, 'URI_TOO_LONG', 'request URL is too long'));
      const url = new URL(req.url ?? '/', `http://${host}`);
      const method = (req.method ?? 'GET').toUpperCase();
      const match = matchRoute(method, url.pathname);
      if (match === 'method') return writeResult(res, jsonError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on ${url.pathname}`));
      const family = match ? match.route.family : DEFAULT_FAMILY;
      let body: Buffer | undefined;
      if (method !== 'GET' && method !== 'HEAD') {
        // API Gateway refuses payloads over its limit before any Lambda runs.
        body = await readBody(req, MAX_BODY_BYTES).catch(() => undefined);
        if (!body) return writeResult(res, jsonError(413, 'PAYLOAD_TOO_LARGE', `request body is larger than ${MAX_BODY_BYTES} bytes`));
      }
      const event = buildEventV2({ req, url, routeKey: match ? match.route.id : '$default', pathParameters: match?.pathParameters, body });
      const result = await lambdas[family](event, buildContext(`local-${family}`, event.requestContext.requestId), { signal: AbortSignal.timeout(29_000) });
      writeResult(res, result);
    } catch (err) {
      // Handlers map their own errors; reaching here means the runtime itself failed.
      console.error('local server error', err);
      if (!res.headersSent) writeResult(res, jsonError(500, 'INTERNAL', 'internal error'));
      else res.end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
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
