/**
 * What an HTTP request presents as payment, decoded into the core's `Credentials`:
 * `Authorization: Bearer <key>` (Pro lane; it wins over any x402 header, so nothing is charged
 * twice), else `PAYMENT-SIGNATURE` (x402 v2) or `X-PAYMENT` (v1, and hybrid clients sending a v2
 * payload under the v1 name): standard base64 of the JSON payment payload.
 */
import { bearerOf } from '../pro/keys';
import type { Credentials } from '../payment/lane';

/** Longest payment header accepted: a v2 payload is ~1.3 KB of base64; ERC-6492 smart-wallet signatures add a few KB. */
const MAX_PAYMENT_HEADER_CHARS = 8192;

/** Standard base64 (what the x402 SDKs emit); base64url and whitespace are refused like the SDK does. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes one x402 header value (base64 JSON). */
const decodeX402Header = (value: string): Credentials => {
  if (value.length > MAX_PAYMENT_HEADER_CHARS) {
    return {
      kind: 'unreadable',
      reason: 'payment_header_too_large',
      message: `payment header is longer than ${MAX_PAYMENT_HEADER_CHARS} characters`,
      details: { length: value.length },
    };
  }
  if (!BASE64.test(value)) return { kind: 'unreadable', reason: 'malformed_base64', message: 'payment header is not standard base64' };
  try {
    return { kind: 'x402', payload: JSON.parse(Buffer.from(value, 'base64').toString('utf8')) };
  } catch {
    return { kind: 'unreadable', reason: 'malformed_json', message: 'payment header does not decode to JSON' };
  }
};

/**
 * The credentials of a request.
 * @param headers lower-cased request headers
 * @example credentialsOf({ authorization: 'Bearer cds_live_…' }) // { kind: 'pro', key: 'cds_live_…' }
 */
const credentialsOf = (headers: Readonly<Record<string, string | undefined>>): Credentials => {
  const v2 = headers['payment-signature']?.trim();
  const v1 = headers['x-payment']?.trim();
  const payment: Credentials =
    v2 && v1 && v2 !== v1
      ? { kind: 'unreadable', reason: 'conflicting_payment_headers', message: 'PAYMENT-SIGNATURE and X-PAYMENT carry different payments; send one' }
      : v2 || v1
        ? decodeX402Header((v2 || v1)!)
        : { kind: 'none' };
  const key = bearerOf(headers);
  // A key wins; a payment beside it pays only a call the key's credits cannot (QUOTA_EXCEEDED).
  if (key !== null) return payment.kind === 'x402' ? { kind: 'pro', key, x402: payment.payload } : { kind: 'pro', key };
  return payment;
};

export { credentialsOf, MAX_PAYMENT_HEADER_CHARS };
