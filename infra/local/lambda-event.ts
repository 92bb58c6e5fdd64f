/**
 * node:http <-> API Gateway HTTP API (payload 2.0). Each request becomes the event API Gateway
 * would send, so the local server can call the very handler a Lambda runs.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

/** API Gateway joins repeated headers and query values with commas; so do we. */
const joinHeaders = (req: IncomingMessage): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const k in req.headers) {
    const v = req.headers[k];
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  }
  return out;
};

const queryParams = (url: URL): Record<string, string> | undefined => {
  if (!url.search) return undefined; // most calls: no query, and no URLSearchParams to build
  const search = url.searchParams;
  const out: Record<string, string> = {};
  for (const key of new Set(search.keys())) out[key] = search.getAll(key).join(',');
  return Object.keys(out).length ? out : undefined;
};

interface EventInput {
  req: IncomingMessage;
  url: URL;
  routeKey: string;
  pathParameters?: Record<string, string>;
  body?: Buffer;
  /** The server's own listening address (host:port), as API Gateway states the domain it serves; never the Host header. */
  domainName: string;
}

/** Builds the payload-2.0 event of a request. */
const buildEventV2 = ({ req, url, routeKey, pathParameters, body, domainName }: EventInput): APIGatewayProxyEventV2 => {
  const now = new Date();
  const headers = joinHeaders(req);
  const method = (req.method ?? 'GET').toUpperCase();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    headers,
    queryStringParameters: queryParams(url),
    pathParameters: pathParameters && Object.keys(pathParameters).length ? pathParameters : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName,
      domainPrefix: 'local',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body?.length ? body.toString('base64') : undefined,
    isBase64Encoded: Boolean(body?.length),
  };
};

/** The context's legacy callbacks: nothing to do (one function for every call, not three new ones per request). */
const ignore = (): undefined => undefined;

/** The time left before `deadline` (a function made per request, without a name of its own to set). */
const remainingUntil = (deadline: number) => () => Math.max(0, deadline - Date.now());

/** A Lambda context with API Gateway's 29 s budget. */
const buildContext = (functionName: string, requestId: string): Context => {
  const deadline = Date.now() + 29_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: remainingUntil(deadline),
    done: ignore,
    fail: ignore,
    succeed: ignore,
  };
};

/**
 * Writes a Lambda proxy result back to the node response.
 * @param extra headers of the transport's own (the local server's Keep-Alive), after the result's
 */
const writeResult = (res: ServerResponse, result: APIGatewayProxyStructuredResultV2, extra?: Readonly<Record<string, string>>): void => {
  const body = result.body ?? '';
  const buf = result.isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
  const headers: Record<string, string | number> = { 'content-length': buf.length };
  for (const k in result.headers) headers[k.toLowerCase()] = String(result.headers[k]);
  if (extra) Object.assign(headers, extra);
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(buf);
};

export { buildEventV2, buildContext, writeResult };
