/**
 * The one place that turns an error into an HTTP response body (DESIGN.md "Error body").
 * Unknown errors become a generic 500; their message and stack leave the process only when
 * STAGE=dev, and never in production.
 */
import * as z from '../zod';
import { HttpError } from './errors';

interface ErrorBody {
  error: {
    code: string;
    message: string;
    retryable: boolean;
    request_id: string;
    details: Record<string, unknown>;
  };
}

interface MappedError {
  statusCode: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

/** zod issues as `{path, message}` pairs, the shape clients see under details.issues. */
const zodIssues = (err: z.core.$ZodError): Array<{ path: string; message: string }> => err.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);
const THROTTLING = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ServiceUnavailable',
  'InternalServerError',
  'TimeoutError',
]);

/** How @smithy/node-http-handler (the AWS SDK's transport) begins its timeout messages. */
const SDK_HTTP_HANDLER = '@smithy/node-http-handler';

/** An AWS SDK call (the store) that could not be made or was throttled: the client may retry, it is not our bug. */
const isDependencyOutage = (err: unknown): boolean => {
  for (
    let e = err as { code?: string; name?: string; cause?: unknown; $metadata?: unknown } | undefined, depth = 0;
    e && depth < 4;
    e = e.cause as typeof e, depth++
  ) {
    if (e.code && NETWORK_CODES.has(e.code)) return true;
    if (e.$metadata !== undefined && e.name && THROTTLING.has(e.name)) return true;
    // The SDK's HTTP handler times out a connection or an idle socket with no code and no $metadata.
    if (
      e.name === 'TimeoutError' &&
      typeof (e as { message?: unknown }).message === 'string' &&
      (e as { message: string }).message.startsWith(SDK_HTTP_HANDLER)
    )
      return true;
  }
  return false;
};

/**
 * Maps any thrown value to a status and error body.
 * @param err what was thrown
 * @param requestId the request id to echo in the body
 * @param exposeInternals show the message of unexpected errors (dev only)
 */
const mapError = (err: unknown, requestId: string, exposeInternals = false): MappedError => {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  if (err instanceof HttpError) {
    return {
      statusCode: err.statusCode,
      headers: { ...headers, ...err.headers },
      body: {
        error: {
          code: err.code,
          message: err.message,
          retryable: err.retryable,
          request_id: requestId,
          details: err.details ?? {},
        },
      },
    };
  }
  if (err instanceof z.$ZodError) {
    return {
      statusCode: 400,
      headers,
      body: {
        error: {
          code: 'INVALID_PARAMETER',
          message: 'invalid request parameters',
          retryable: false,
          request_id: requestId,
          details: { issues: zodIssues(err) },
        },
      },
    };
  }
  if (isDependencyOutage(err)) {
    return {
      statusCode: 503,
      headers: { ...headers, 'retry-after': '2' },
      body: {
        error: {
          code: 'STORE_UNAVAILABLE',
          message: 'the data store is not answering; retry shortly',
          retryable: true,
          request_id: requestId,
          details: {},
        },
      },
    };
  }
  const internal = err instanceof Error ? { name: err.name, message: err.message } : { message: String(err) };
  return {
    statusCode: 500,
    headers,
    body: {
      error: {
        code: 'INTERNAL',
        message: 'internal error; it has been logged with the request id',
        retryable: true,
        request_id: requestId,
        details: exposeInternals ? internal : {},
      },
    },
  };
};

export { mapError };
export type { ErrorBody, MappedError };
