/**
 * Who signed an EIP-712 message, from a 65-byte ECDSA signature. viem hashes the typed data and
 * derives the address; @noble/secp256k1 (the small audited curve library by noble-curves' author)
 * recovers the key. viem's own recoverTypedDataAddress pulls all of @noble/curves into each paid
 * function's bundle (about 35 KB of 300) for the same answer, which the tests check against it.
 */
import { Point, recoverPublicKey } from '@noble/secp256k1';
import { getAddress, hashTypedData, hexToBytes, keccak256, type Address, type Hex, type HashTypedDataParameters } from 'viem';

/** Half the secp256k1 group order: a larger `s` is the malleated twin of a valid signature. */
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** Why a signature has no signer: not 65 bytes, a `v` that is not 0/1/27/28, a high `s`, or no point. */
type SignatureProblem = 'malformed' | 'high_s' | 'unrecoverable';

/**
 * The address that signed `typedData`, or why none did. A high-s signature is refused as USDC's
 * own ECRecover refuses it (FiatToken v2.2), so it could never settle.
 * @param signature 0x + 65 bytes: r, s, v
 */
const recoverTypedDataSigner = (typedData: HashTypedDataParameters, signature: Hex): { signer: Address } | { problem: SignatureProblem } => {
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(signature);
  } catch {
    return { problem: 'malformed' };
  }
  const v = bytes[64];
  if (bytes.length !== 65 || v === undefined) return { problem: 'malformed' };
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) return { problem: 'malformed' };
  if (BigInt(`0x${Buffer.from(bytes.subarray(32, 64)).toString('hex')}`) > HALF_N) return { problem: 'high_s' };
  const recovered = new Uint8Array(65);
  recovered[0] = recovery;
  recovered.set(bytes.subarray(0, 64), 1);
  try {
    const key = recoverPublicKey(recovered, hexToBytes(hashTypedData(typedData)), { prehash: false });
    // The address is the last 20 bytes of keccak256 over the uncompressed key without its 0x04 prefix.
    const uncompressed = Point.fromBytes(key).toBytes(false);
    return { signer: getAddress(`0x${keccak256(uncompressed.subarray(1)).slice(-40)}`) };
  } catch {
    return { problem: 'unrecoverable' };
  }
};

export { recoverTypedDataSigner };
export type { SignatureProblem };
