/**
 * Decoding of the paying retry's header: `PAYMENT-SIGNATURE` (x402 v2) or `X-PAYMENT` (v1, and
 * hybrid clients that send a v2 payload under the v1 name). Both carry base64 JSON of a payment
 * payload; the protocol envelope is parsed with @x402/core's own zod schema, the EIP-3009
 * authorization of the `exact` EVM scheme with ours. Every refusal has a stable reason string
 * (details.reason of the 402 INVALID_PAYMENT body).
 */
import { PaymentPayloadSchema, type PaymentPayload, type PaymentRequirementsV2 } from '@x402/core/schemas';
import type { Address, Hex } from 'viem';
import * as z from 'zod';

/** Longest header accepted: a v2 payload is ~1.3 KB of base64; ERC-6492 smart-wallet signatures add a few KB. */
const MAX_PAYMENT_HEADER_CHARS = 8192;

/** Standard base64 (what the x402 SDKs emit); base64url and whitespace are refused like the SDK does. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const AddressString = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 20-byte 0x address');
const UintString = z.string().regex(/^\d{1,78}$/, 'expected an unsigned integer as a decimal string');

/** EIP-3009 TransferWithAuthorization fields, all strings on the wire. */
const Eip3009AuthorizationSchema = z.object({
  from: AddressString,
  to: AddressString,
  value: UintString,
  validAfter: UintString,
  validBefore: UintString,
  nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected a 32-byte 0x nonce'),
});

/** The `exact` EVM scheme's payload when the asset moves by EIP-3009 (USDC). */
const ExactEip3009PayloadSchema = z.object({
  signature: z
    .string()
    .regex(/^0x(?:[0-9a-fA-F]{2})+$/, 'expected a 0x hex signature')
    .max(MAX_PAYMENT_HEADER_CHARS),
  authorization: Eip3009AuthorizationSchema,
});

type PaymentRefusalReason =
  | 'payment_header_too_large'
  | 'conflicting_payment_headers'
  | 'malformed_base64'
  | 'malformed_json'
  | 'invalid_payload'
  | 'unsupported_transfer_method';

interface PaymentRefusal {
  ok: false;
  reason: string;
  message: string;
  details?: Record<string, unknown>;
}

/** A decoded payment, the same shape for v1 and v2 payloads. */
interface DecodedPayment {
  ok: true;
  /** Which header carried it. */
  header: 'payment-signature' | 'x-payment';
  x402Version: 1 | 2;
  scheme: string;
  /** The network as the payer named it (CAIP-2, or a v1 name such as "base-sepolia"). */
  network: string;
  /** v2 only: the requirements the payer accepted (copied from our challenge). */
  accepted?: PaymentRequirementsV2;
  authorization: {
    from: Address;
    to: Address;
    value: bigint;
    validAfter: bigint;
    validBefore: bigint;
    nonce: Hex;
  };
  /** The authorization exactly as sent (decimal strings), for the facilitator. */
  wireAuthorization: z.infer<typeof Eip3009AuthorizationSchema>;
  signature: Hex;
  /** The envelope as parsed by @x402/core (extensions, resource …). */
  envelope: PaymentPayload;
}

const refuse = (reason: PaymentRefusalReason, message: string, details?: Record<string, unknown>): PaymentRefusal => ({
  ok: false,
  reason,
  message,
  ...(details ? { details } : {}),
});

const issuesOf = (issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>) =>
  issues.slice(0, 10).map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));

/**
 * The payment header of a request, if any.
 * @param headers lower-cased request headers
 * @returns null when neither header is present
 */
const paymentHeaderOf = (
  headers: Readonly<Record<string, string | undefined>>,
): { ok: true; header: DecodedPayment['header']; value: string } | PaymentRefusal | null => {
  const v2 = headers['payment-signature']?.trim();
  const v1 = headers['x-payment']?.trim();
  if (v2 && v1 && v2 !== v1) {
    return refuse('conflicting_payment_headers', 'PAYMENT-SIGNATURE and X-PAYMENT carry different payments; send one');
  }
  if (v2) return { ok: true, header: 'payment-signature', value: v2 };
  if (v1) return { ok: true, header: 'x-payment', value: v1 };
  return null;
};

/**
 * Decodes and shape-checks a payment header value. Does not judge the payment (see checks.ts).
 * @param header which header carried the value
 * @param value the header value: base64 of a JSON payment payload
 */
const decodePaymentHeader = (header: DecodedPayment['header'], value: string): DecodedPayment | PaymentRefusal => {
  if (value.length > MAX_PAYMENT_HEADER_CHARS) {
    return refuse('payment_header_too_large', `payment header is longer than ${MAX_PAYMENT_HEADER_CHARS} characters`, { length: value.length });
  }
  if (!BASE64.test(value)) return refuse('malformed_base64', 'payment header is not standard base64');
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
  } catch {
    return refuse('malformed_json', 'payment header does not decode to JSON');
  }
  const envelope = PaymentPayloadSchema.safeParse(json);
  if (!envelope.success) {
    return refuse('invalid_payload', 'payment header is not an x402 payment payload (v1 or v2)', { issues: issuesOf(envelope.error.issues) });
  }
  const p = envelope.data;
  const inner = p.payload as Record<string, unknown>;
  if (inner && typeof inner === 'object' && 'permit2Authorization' in inner) {
    return refuse('unsupported_transfer_method', 'only EIP-3009 (transferWithAuthorization) payments are accepted for USDC');
  }
  const exact = ExactEip3009PayloadSchema.safeParse(inner);
  if (!exact.success) {
    return refuse('invalid_payload', 'payload is not an EIP-3009 authorization with a signature', { issues: issuesOf(exact.error.issues) });
  }
  const a = exact.data.authorization;
  return {
    ok: true,
    header,
    x402Version: p.x402Version,
    scheme: p.x402Version === 2 ? p.accepted.scheme : p.scheme,
    network: p.x402Version === 2 ? p.accepted.network : p.network,
    ...(p.x402Version === 2 ? { accepted: p.accepted } : {}),
    authorization: {
      from: a.from as Address,
      to: a.to as Address,
      value: BigInt(a.value),
      validAfter: BigInt(a.validAfter),
      validBefore: BigInt(a.validBefore),
      nonce: a.nonce as Hex,
    },
    wireAuthorization: a,
    signature: exact.data.signature as Hex,
    envelope: p,
  };
};

export { decodePaymentHeader, paymentHeaderOf, MAX_PAYMENT_HEADER_CHARS };
export type { DecodedPayment, PaymentRefusal, PaymentRefusalReason };
