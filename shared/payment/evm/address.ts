/**
 * EVM addresses as the payment lanes need them: EIP-55 checksums and comparison. These few lines
 * stand in for viem's `getAddress` / `isAddressEqual` in the paid functions' bundles (viem's
 * address and typed-data code is about 16 KB of each; test/payment/evm.test.ts holds both modules
 * to viem on random and edge-case inputs).
 */
import { keccak_256 } from '@noble/hashes/sha3';

type Address = `0x${string}`;

const HEX40 = /^0x[0-9a-fA-F]{40}$/;

/**
 * The EIP-55 checksummed form of an address.
 * @throws Error when it is not 20 bytes of hex (a mixed-case input is normalised, as viem's getAddress does)
 * @example getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8') // '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
 */
const getAddress = (address: string): Address => {
  if (!HEX40.test(address)) throw new Error(`not an address: ${address}`);
  const lower = address.slice(2).toLowerCase();
  const hash = Buffer.from(keccak_256(lower)).toString('hex');
  let out = '0x';
  for (let i = 0; i < 40; i++) out += Number.parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  return out as Address;
};

/** Whether two addresses are the same (case-insensitive). @throws Error when either is not an address */
const isAddressEqual = (a: string, b: string): boolean => {
  if (!HEX40.test(a) || !HEX40.test(b)) throw new Error('not an address');
  return a.toLowerCase() === b.toLowerCase();
};

export { getAddress, isAddressEqual };
export type { Address };
