/**
 * Parsing of an x402 payment payload of the `exact` EVM scheme, once a transport has decoded it to
 * JSON (HTTP: the base64 of `PAYMENT-SIGNATURE` / `X-PAYMENT`, shared/http/payment-credentials.ts;
 * MCP: `_meta["x402/payment"]`). The protocol envelope is parsed with @x402/core's own zod schema,
 * the EIP-3009 authorization with ours. Every refusal has a stable reason string (details.reason
 * of the 402 INVALID_PAYMENT body).
 */
import { PaymentPayloadSchema, type PaymentPayload, type PaymentRequirementsV2 } from '@x402/core/schemas';
import type { Address, Hex } from 'viem';
import * as z from '../zod';

/** Longest signature accepted (hex characters): ERC-6492 smart-wallet signatures run to a few KB. */
const MAX_SIGNATURE_CHARS = 8192;

const AddressString = z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 20-byte 0x address'));
const UintString = z.string().check(z.regex(/^\d{1,78}$/, 'expected an unsigned integer as a decimal string'));

/** EIP-3009 TransferWithAuthorization fields, all strings on the wire. */
const Eip3009AuthorizationSchema = z.object({
  from: AddressString,
  to: AddressString,
  value: UintString,
  validAfter: UintString,
  validBefore: UintString,
  nonce: z.string().check(z.regex(/^0x[0-9a-fA-F]{64}$/, 'expected a 32-byte 0x nonce')),
});

/** The `exact` EVM scheme's payload when the asset moves by EIP-3009 (USDC). */
const ExactEip3009PayloadSchema = z.object({
  signature: z.string().check(z.regex(/^0x(?:[0-9a-fA-F]{2})+$/, 'expected a 0x hex signature'), z.maxLength(MAX_SIGNATURE_CHARS)),
  authorization: Eip3009AuthorizationSchema,
});

type PaymentRefusalReason = 'invalid_payload' | 'unsupported_transfer_method';

interface PaymentRefusal {
  ok: false;
  reason: string;
  message: string;
  details?: Record<string, unknown>;
}

/** A decoded payment, the same shape for v1 and v2 payloads. */
interface DecodedPayment {
  ok: true;
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
 * Parses a payment payload (already JSON) and shape-checks it. Does not judge the payment (see checks.ts).
 * @param json the decoded payload: v1 or v2, `exact` scheme with an EIP-3009 authorization
 */
const parsePaymentPayload = (json: unknown): DecodedPayment | PaymentRefusal => {
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

export { parsePaymentPayload };
export type { DecodedPayment, PaymentRefusal, PaymentRefusalReason };
