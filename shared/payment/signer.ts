/**
 * Who signed an EIP-712 message, from a 65-byte ECDSA signature: the typed data hashed by
 * ./evm/typed-data.ts, the key recovered by @noble/secp256k1 (the small audited curve library by
 * noble-curves' author), the address derived with keccak. viem's recoverTypedDataAddress would pull
 * all of @noble/curves and viem's encoders into each paid function's bundle (about 50 KB of 300) for
 * the same answer, which the tests check against it.
 */
import { Point, recoverPublicKey } from '@noble/secp256k1';
import type { Address, Hex } from 'viem';
import { getAddress } from './evm/address';
import { hashTypedData, keccak256, type TypedData } from './evm/typed-data';

/** Half the secp256k1 group order: a larger `s` is the malleated twin of a valid signature. */
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** Why a signature has no signer: not 65 bytes, a `v` that is not 0/1/27/28, a high `s`, or no point. */
type SignatureProblem = 'malformed' | 'high_s' | 'unrecoverable';

/**
 * Whether a 65-byte ECDSA signature could be USDC's at all, without any curve arithmetic
 * (microseconds): 65 bytes, a `v` of 0/1/27/28, and a low `s`, as USDC's own ECRecover requires
 * (FiatToken v2.2), so a high-s twin could never settle.
 * @param signature 0x + 65 bytes: r, s, v
 * @returns the bytes with the recovery bit, or why the signature can have no signer
 */
const ecdsaSignatureOf = (signature: Hex): { bytes: Uint8Array; recovery: 0 | 1 } | { problem: SignatureProblem } => {
  if (!/^0x(?:[0-9a-fA-F]{2})*$/.test(signature)) return { problem: 'malformed' };
  const bytes = Uint8Array.from(Buffer.from(signature.slice(2), 'hex'));
  const v = bytes[64];
  if (bytes.length !== 65 || v === undefined) return { problem: 'malformed' };
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) return { problem: 'malformed' };
  if (BigInt(`0x${Buffer.from(bytes.subarray(32, 64)).toString('hex')}`) > HALF_N) return { problem: 'high_s' };
  return { bytes, recovery };
};

/**
 * The address that signed `typedData`, or why none did (about 2 ms: one ECDSA recovery).
 * @param signature 0x + 65 bytes: r, s, v
 */
const recoverTypedDataSigner = (typedData: TypedData, signature: Hex): { signer: Address } | { problem: SignatureProblem } => {
  const ecdsa = ecdsaSignatureOf(signature);
  if ('problem' in ecdsa) return ecdsa;
  const recovered = new Uint8Array(65);
  recovered[0] = ecdsa.recovery;
  recovered.set(ecdsa.bytes.subarray(0, 64), 1);
  try {
    const key = recoverPublicKey(recovered, Buffer.from(hashTypedData(typedData).slice(2), 'hex'), { prehash: false });
    // The address is the last 20 bytes of keccak256 over the uncompressed key without its 0x04 prefix.
    const uncompressed = Point.fromBytes(key).toBytes(false);
    return { signer: getAddress(`0x${keccak256(uncompressed.subarray(1)).slice(-40)}`) };
  } catch {
    return { problem: 'unrecoverable' };
  }
};

export { ecdsaSignatureOf, recoverTypedDataSigner };
export type { SignatureProblem };
