/**
 * Payment outcomes as HTTP: the 402 (the spec's body and the base64 `PAYMENT-REQUIRED` header),
 * refusals in DESIGN.md's error body through the one error mapper, `PAYMENT-RESPONSE` /
 * `X-PAYMENT-RESPONSE` after a settlement, and a Pro key's budget (`X-Credits-*` and the IETF
 * `RateLimit` fields) on every answer to a keyed request. The core never sees a header.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { mapError } from '../errors/error-mapper';
import { encodeX402Header, toV1Body, type PaymentRequiredBody } from '../payment/challenge';
import type { Budget, Receipt, Refusal, Settlement } from '../payment/lane';
import type { Config } from '../config';

type Result = APIGatewayProxyStructuredResultV2;

/** The Pro lane's budget headers. */
const BUDGET_HEADERS = ['x-credits-charged', 'x-credits-remaining', 'x-credits-limit', 'x-credits-reset'] as const;

/** A Pro-key answer's signed receipt: base64 JSON shaped as a PAYMENT-RESPONSE (shared/payment/delivery-receipt.ts). */
const CREDITS_RECEIPT_HEADER = 'x-credits-receipt';

/** Response headers of the payment lanes, readable by browser clients. */
const EXPOSE_HEADERS = [
  'PAYMENT-REQUIRED',
  'PAYMENT-RESPONSE',
  'X-PAYMENT-RESPONSE',
  ...BUDGET_HEADERS.map((h) => h.toUpperCase()),
  CREDITS_RECEIPT_HEADER.toUpperCase(),
  'RATELIMIT',
  'RATELIMIT-POLICY',
  'RETRY-AFTER',
].join(', ');

/** The budget of a key as headers (draft-ietf-httpapi-ratelimit-headers for the monthly quota). */
const budgetHeaders = (b: Budget, now: Date): Record<string, string> => {
  const resetS = Math.max(0, Math.ceil((Date.parse(b.periodEnd) - now.getTime()) / 1000));
  return {
    'x-credits-charged': String(b.charged),
    'x-credits-remaining': String(b.remaining),
    'x-credits-limit': String(b.limit),
    'x-credits-reset': b.periodEnd,
    'ratelimit-policy': `"credits";q=${b.limit};w=${Math.ceil((Date.parse(b.periodEnd) - Date.parse(b.periodStart)) / 1000)}`,
    ratelimit: `"credits";r=${b.remaining};t=${resetS}`,
  };
};

/** v2 clients read PAYMENT-RESPONSE, v1 clients X-PAYMENT-RESPONSE: both are sent. */
const settlementHeaders = (s: Settlement): Record<string, string> => {
  const value = encodeX402Header(s);
  return { 'payment-response': value, 'x-payment-response': value };
};

/** Encoded challenges, per built document (challenge documents are cached, so this is too). */
const ENCODED = new WeakMap<PaymentRequiredBody, { header: string; v2: string; v1?: string }>();

const encoded = (doc: PaymentRequiredBody, network: Config['X402_NETWORK'], v1: boolean) => {
  let e = ENCODED.get(doc);
  if (!e) {
    e = { header: encodeX402Header(doc), v2: JSON.stringify(doc) };
    ENCODED.set(doc, e);
  }
  if (v1) e.v1 ??= JSON.stringify(toV1Body(doc, network));
  return { header: e.header, body: v1 ? e.v1! : e.v2 };
};

interface RenderContext {
  requestId: string;
  now: Date;
  network: Config['X402_NETWORK'];
  /** The client asked for x402 v1's 402 body (`X402-Version: 1`); the header stays v2. */
  v1Body: boolean;
}

/** Headers every payment answer carries. */
const baseHeaders = (requestId: string) => ({ 'access-control-expose-headers': EXPOSE_HEADERS, 'x-request-id': requestId });

/**
 * A refused call as its HTTP answer.
 * @example return renderRefusal(outcome.refusal, { requestId, now, network, v1Body: false });
 */
const renderRefusal = (refusal: Refusal, ctx: RenderContext): Result => {
  const extra = {
    ...(refusal.budget ? budgetHeaders(refusal.budget, ctx.now) : {}),
    ...(refusal.settlement ? settlementHeaders(refusal.settlement) : {}),
  };
  if (refusal.error.code === 'PAYMENT_REQUIRED' && refusal.required) {
    // The challenge itself: the spec's 402 body is the PaymentRequired document.
    const { header, body } = encoded(refusal.required, ctx.network, ctx.v1Body);
    return {
      statusCode: 402,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'payment-required': header, ...baseHeaders(ctx.requestId), ...extra },
      body,
    };
  }
  const mapped = mapError(refusal.error, ctx.requestId);
  return {
    statusCode: mapped.statusCode,
    headers: {
      ...mapped.headers,
      ...baseHeaders(ctx.requestId),
      ...(refusal.required ? { 'payment-required': encoded(refusal.required, ctx.network, false).header } : {}),
      ...extra,
    },
    body: JSON.stringify(mapped.body),
  };
};

/** The headers a settled call adds to its answer. */
const receiptHeaders = (receipt: Receipt, now: Date): Record<string, string> => ({
  'access-control-expose-headers': EXPOSE_HEADERS,
  ...(receipt.settlement ? settlementHeaders(receipt.settlement) : {}),
  ...(receipt.budget ? budgetHeaders(receipt.budget, now) : {}),
  ...(receipt.credits ? { [CREDITS_RECEIPT_HEADER]: encodeX402Header(receipt.credits) } : {}),
});

/** Headers that are per request and never part of a stored answer. */
const PER_REQUEST = new Set(['x-request-id']);

/** An HTTP answer stored for idempotent replays (status, headers, body), as bytes. */
const serializeAnswer = (res: Result): Uint8Array => {
  const headers = Object.fromEntries(Object.entries(res.headers ?? {}).filter(([k]) => !PER_REQUEST.has(k.toLowerCase())));
  return Buffer.from(
    JSON.stringify({ statusCode: res.statusCode ?? 200, headers, body: res.body ?? '', isBase64Encoded: res.isBase64Encoded ?? false }),
    'utf8',
  );
};

/** A stored answer, replayed byte for byte under this request's id. */
const replayAnswer = (data: Uint8Array, requestId: string): Result => {
  const stored = JSON.parse(Buffer.from(data).toString('utf8')) as Required<Pick<Result, 'statusCode' | 'headers' | 'body' | 'isBase64Encoded'>>;
  return { ...stored, headers: { ...stored.headers, 'x-request-id': requestId } };
};

export { budgetHeaders, receiptHeaders, renderRefusal, replayAnswer, serializeAnswer };
export type { RenderContext };
