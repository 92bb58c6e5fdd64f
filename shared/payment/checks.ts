/**
 * Local checks of a decoded payment against what the route costs, done before the nonce is
 * claimed: scheme, network, asset, pay-to, exact amount, validity window and the form of the
 * signature. They are pure (a clock is passed in) and cheap, so a foreign or malformed payment never
 * costs a facilitator round trip or a store write. Who signed is the facilitator's /verify to say
 * (as in x402's reference server); `checkSignature` recovers the signer here for the answers that
 * are given without asking it (exact-lane.ts: data owed to an earlier payment).
 */
import { AUTHORIZATION_TYPES } from './evm/constants';
import type { Address } from 'viem';
import { getAddress, isAddressEqual } from './evm/address';
import type { UsdcAsset } from './assets';
import type { DecodedPayment, PaymentRefusal } from './payload';
import { ecdsaSignatureOf, recoverTypedDataSigner } from './signer';

/** What the route's payment must be. */
interface ExpectedPayment {
  network: string;
  asset: UsdcAsset;
  payTo: Address;
  /** Price in USDC atomic units. */
  amount: bigint;
  /** The resource being bought (absolute URL, or mcp://tool/<name>): a payload naming another is refused. */
  resource: string;
  /** The challenge's maxTimeoutSeconds: an authorization valid for much longer is refused. */
  maxTimeoutSeconds: number;
}

/** Slack on top of maxTimeoutSeconds for a client's clock and signing time. */
const VALIDITY_ALLOWANCE_S = 120n;

/** Suffix of ERC-6492 signatures (counterfactual wallets): not verifiable before deployment, refused here. */
const ERC6492_MAGIC = '6492649264926492649264926492649264926492649264926492649264926492';

/** What a resource names, for comparing: an http(s) URL by its path (hosts differ behind proxies), anything else as written. */
const resourceKey = (r: string): string => {
  try {
    const u = new URL(r);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.pathname : r;
  } catch {
    return r.split('?')[0]!;
  }
};

/**
 * Seconds of validity an authorization must have left when it arrives: the facilitator refuses
 * to settle with less than 6 s, and verify + handler + settle run in between.
 */
const MIN_REMAINING_VALIDITY_S = 15n;

/** Signatures of externally owned accounts are 65 bytes; longer ones are smart-wallet (ERC-1271/6492) signatures. */
const ECDSA_SIGNATURE_HEX_LENGTH = 2 + 65 * 2;

const refuse = (reason: string, message: string, details?: Record<string, unknown>): PaymentRefusal => ({
  ok: false,
  reason,
  message,
  ...(details ? { details } : {}),
});

/** The EIP-712 typed data a payer signs for this authorization (the token's own domain). */
const typedDataOf = (p: DecodedPayment, asset: UsdcAsset) => ({
  domain: { name: asset.eip712.name, version: asset.eip712.version, chainId: asset.chainId, verifyingContract: asset.address },
  types: AUTHORIZATION_TYPES,
  primaryType: 'TransferWithAuthorization' as const,
  message: {
    from: getAddress(p.authorization.from),
    to: getAddress(p.authorization.to),
    value: p.authorization.value,
    validAfter: p.authorization.validAfter,
    validBefore: p.authorization.validBefore,
    nonce: p.authorization.nonce,
  },
});

/**
 * Checks a decoded payment's terms: everything but the signature. Pure and cheap.
 * @param p the decoded payment
 * @param expected what the route costs and where it is paid
 * @param nowS the current unix time in seconds
 * @returns null when the terms are right
 */
const checkTerms = (p: DecodedPayment, expected: ExpectedPayment, nowS: bigint): PaymentRefusal | null => {
  if (p.scheme !== 'exact') return refuse('scheme_mismatch', `scheme must be "exact", got "${p.scheme}"`);
  // v1 payers name the network ("base-sepolia"), v2 payers use CAIP-2; both mean the same chain.
  if (p.network !== expected.network && p.network !== expected.asset.v1Name) {
    return refuse('network_mismatch', `network must be ${expected.network}`, { expected: expected.network, got: p.network });
  }
  if (p.accepted) {
    if (!isSameAddress(p.accepted.asset, expected.asset.address)) {
      return refuse('asset_mismatch', `asset must be USDC ${expected.asset.address}`, { expected: expected.asset.address, got: p.accepted.asset });
    }
    if (!isSameAddress(p.accepted.payTo, expected.payTo)) {
      return refuse('pay_to_mismatch', `payTo must be ${expected.payTo}`, { expected: expected.payTo, got: p.accepted.payTo });
    }
  }
  const paidFor = (p.envelope as { resource?: { url?: unknown } }).resource?.url;
  if (typeof paidFor === 'string' && resourceKey(paidFor) !== resourceKey(expected.resource)) {
    return refuse('resource_mismatch', 'the payment names another resource; pay for this one', { expected: expected.resource, got: paidFor });
  }
  const a = p.authorization;
  if (!isSameAddress(a.to, expected.payTo)) {
    return refuse('pay_to_mismatch', `authorization.to must be ${expected.payTo}`, { expected: expected.payTo, got: a.to });
  }
  const accepted = p.accepted ? safeBigInt(p.accepted.amount) : a.value;
  for (const [what, value] of [
    ['authorization.value', a.value],
    ['accepted.amount', accepted],
  ] as const) {
    if (value === null || value < expected.amount) {
      return refuse('amount_below_price', `${what} is below the price of ${expected.amount} atomic units`, {
        expected: expected.amount.toString(),
        got: String(value),
      });
    }
    // The exact scheme moves exactly the price; the facilitator refuses any other value too.
    if (value > expected.amount) {
      return refuse('amount_above_price', `${what} must equal the price of ${expected.amount} atomic units`, {
        expected: expected.amount.toString(),
        got: value.toString(),
      });
    }
  }
  if (a.validAfter > nowS) {
    return refuse('authorization_not_yet_valid', 'authorization.validAfter is in the future', { valid_after: a.validAfter.toString(), now: nowS.toString() });
  }
  if (a.validBefore < nowS + MIN_REMAINING_VALIDITY_S) {
    return refuse('authorization_expired', `authorization.validBefore must be at least ${MIN_REMAINING_VALIDITY_S} s ahead`, {
      valid_before: a.validBefore.toString(),
      now: nowS.toString(),
    });
  }
  if (a.validBefore > nowS + BigInt(expected.maxTimeoutSeconds) + VALIDITY_ALLOWANCE_S) {
    return refuse(
      'authorization_window_too_long',
      `authorization.validBefore may be at most ${expected.maxTimeoutSeconds} s (+${VALIDITY_ALLOWANCE_S} s) ahead`,
      {
        valid_before: a.validBefore.toString(),
        now: nowS.toString(),
      },
    );
  }
  return null;
};

/**
 * Checks the signature's form without recovering its signer (microseconds): hex, not ERC-6492
 * wrapped, and a 65-byte ECDSA signature with a valid `v` and a low `s`. Longer signatures belong
 * to deployed smart wallets (ERC-1271); only the chain can check them, which the facilitator's
 * verify does.
 */
const checkSignatureForm = (p: DecodedPayment): PaymentRefusal | null => {
  if (!/^0x(?:[0-9a-fA-F]{2})+$/.test(p.signature) || p.signature.toLowerCase().endsWith(ERC6492_MAGIC)) {
    return refuse('invalid_signature', 'the signature is not a verifiable EIP-712 or ERC-1271 signature (ERC-6492 wrapped signatures are not accepted)');
  }
  if (p.signature.length === ECDSA_SIGNATURE_HEX_LENGTH) {
    const ecdsa = ecdsaSignatureOf(p.signature);
    if ('problem' in ecdsa && ecdsa.problem === 'high_s') {
      return refuse('invalid_signature', "the signature's s is in the upper half of the curve order; USDC accepts only low-s signatures (re-sign)");
    }
    if ('problem' in ecdsa) return refuse('invalid_signature', 'the signature is not a 65-byte ECDSA signature with a v of 27 or 28 (or 0 or 1)');
  }
  return null;
};

/**
 * Checks the EIP-712 signature itself (its form, then one ECDSA recovery, about 2 ms): made by
 * authorization.from over these terms for this token. ERC-1271 signatures are left to the facilitator.
 */
const checkSignature = (p: DecodedPayment, asset: UsdcAsset): PaymentRefusal | null => {
  const form = checkSignatureForm(p);
  if (form || p.signature.length !== ECDSA_SIGNATURE_HEX_LENGTH) return form;
  const recovered = recoverTypedDataSigner(typedDataOf(p, asset), p.signature);
  if (!('signer' in recovered) || !isSameAddress(recovered.signer, p.authorization.from)) {
    return refuse('invalid_signature', 'the EIP-712 signature was not made by authorization.from for this token, amount and window');
  }
  return null;
};

/**
 * Checks a decoded payment: its terms, then its signature.
 * @returns null when the payment may go on to the facilitator
 */
const checkPayment = (p: DecodedPayment, expected: ExpectedPayment, nowS: bigint): PaymentRefusal | null =>
  checkTerms(p, expected, nowS) ?? checkSignature(p, expected.asset);

const isSameAddress = (a: string, b: string): boolean => {
  try {
    return isAddressEqual(a as Address, b as Address);
  } catch {
    return false;
  }
};

const safeBigInt = (s: string): bigint | null => (/^\d{1,78}$/.test(s) ? BigInt(s) : null);

export { checkPayment, checkSignature, checkSignatureForm, checkTerms };
export type { ExpectedPayment };
