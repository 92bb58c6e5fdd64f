/**
 * Typed HTTP errors. Each has a stable `code` (DESIGN.md "Error body"), a status, and whether
 * a retry could succeed. They are turned into responses in exactly one place: error-mapper.ts.
 */
abstract class HttpError extends Error {
  abstract readonly statusCode: number;
  abstract readonly code: string;
  readonly retryable: boolean = false;
  /** Response headers the status requires (e.g. `Allow` on a 405). */
  readonly headers: Readonly<Record<string, string>> = {};
  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** 400 for input that is not a query parameter (a form field, a webhook signature). */
class BadRequestError extends HttpError {
  readonly statusCode = 400;
  constructor(
    readonly code: 'INVALID_PARAMETER' | 'INVALID_SIGNATURE',
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(message, details);
  }
}

/** 401: an Authorization header that names no usable Pro key. */
class UnauthorizedError extends HttpError {
  readonly statusCode = 401;
  readonly code = 'INVALID_API_KEY';
  override readonly headers = { 'www-authenticate': 'Bearer error="invalid_token"' };
}

/** 429: too many calls in a short time; Retry-After says when to come back. */
class RateLimitedError extends HttpError {
  readonly statusCode = 429;
  readonly code = 'RATE_LIMITED';
  override readonly retryable = true;
  override readonly headers: Readonly<Record<string, string>>;
  constructor(message: string, retryAfterS: number) {
    super(message, { retry_after_s: retryAfterS });
    this.headers = { 'retry-after': String(retryAfterS) };
  }
}

/** 402 that is not the x402 challenge itself (that one is built by the payment core). */
class PaymentError extends HttpError {
  readonly statusCode = 402;
  constructor(
    readonly code: 'INVALID_PAYMENT' | 'QUOTA_EXCEEDED' | 'PAYMENT_REQUIRED',
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(message, details);
  }
}

/** 409: the request conflicts with what the caller already holds (issue 37: a key's limit of watches). */
class ConflictError extends HttpError {
  readonly statusCode = 409;
  constructor(
    readonly code: 'WATCH_LIMIT',
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(message, details);
  }
}

class NotFoundError extends HttpError {
  readonly statusCode = 404;
  constructor(
    readonly code: 'NOT_FOUND' | 'UNKNOWN_INSTRUMENT' | 'UNKNOWN_SERIES' | 'UNKNOWN_SECTOR' | 'UNKNOWN_ROOT' | 'NO_DATA',
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(message, details);
  }
}

/** 405: the path exists, the method does not (MCP: GET streams and DELETE sessions in stateless mode). */
class MethodNotAllowedError extends HttpError {
  readonly statusCode = 405;
  readonly code = 'METHOD_NOT_ALLOWED';
  override readonly headers: Readonly<Record<string, string>>;
  constructor(message: string, allow: readonly string[]) {
    super(message, { allow });
    this.headers = { allow: allow.join(', ') };
  }
}

/** An upstream we depend on (the payment facilitator) failed or answered nonsense. */
class BadGatewayError extends HttpError {
  readonly statusCode = 502;
  readonly code: string = 'UPSTREAM_ERROR';
  override readonly retryable = true;
}

/** Data or a dependency is temporarily unavailable (e.g. NO_DATA with staleness). */
class ServiceUnavailableError extends HttpError {
  readonly statusCode = 503;
  override readonly retryable = true;
  constructor(
    readonly code: string,
    message: string,
    details?: Record<string, unknown>,
  ) {
    super(message, details);
  }
}

class GatewayTimeoutError extends HttpError {
  readonly statusCode = 504;
  readonly code: string = 'UPSTREAM_TIMEOUT';
  override readonly retryable = true;
}

export {
  HttpError,
  BadRequestError,
  UnauthorizedError,
  RateLimitedError,
  PaymentError,
  ConflictError,
  NotFoundError,
  MethodNotAllowedError,
  BadGatewayError,
  ServiceUnavailableError,
  GatewayTimeoutError,
};
