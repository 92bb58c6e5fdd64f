/**
 * EIP-712 hashes of the flat structs the payment lanes check (EIP-3009 TransferWithAuthorization,
 * the batch-settlement Voucher and ChannelConfig): every field a static type (address, bool,
 * bytes32, uintN), the domain any of name, version, chainId, verifyingContract. It stands in for
 * viem's `hashTypedData` in the paid functions' bundles; test/payment/evm.test.ts holds it to viem.
 */
import { keccak_256 } from '@noble/hashes/sha3';

type Hex = `0x${string}`;
type Field = { readonly name: string; readonly type: string };

interface TypedData {
  domain: { name?: string; version?: string; chainId?: number | bigint; verifyingContract?: string };
  types: Readonly<Record<string, readonly Field[]>>;
  primaryType: string;
  message: Readonly<Record<string, unknown>>;
}

const DOMAIN_FIELDS: readonly Field[] = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
];

const keccak = (data: Uint8Array | string): Uint8Array => keccak_256(data);

const word = (n: bigint): Uint8Array => {
  if (n < 0n || n >= 1n << 256n) throw new Error('EIP-712: value out of range');
  return Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
};

/** One field's 32-byte encoding (EIP-712 encodeData, static and string types). */
const encodeField = (type: string, value: unknown): Uint8Array => {
  if (type === 'string') return keccak(String(value));
  if (type === 'address') {
    if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(value)) throw new Error(`EIP-712: not an address: ${String(value)}`);
    return word(BigInt(value));
  }
  if (type === 'bool') return word(value ? 1n : 0n);
  if (type === 'bytes32') {
    if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value)) throw new Error('EIP-712: not 32 bytes');
    return Buffer.from(value.slice(2), 'hex');
  }
  const uint = /^uint(\d+)$/.exec(type);
  if (uint) {
    const n = BigInt(value as bigint | number | string);
    if (n >= 1n << BigInt(uint[1]!)) throw new Error(`EIP-712: value out of range for ${type}`);
    return word(n);
  }
  throw new Error(`EIP-712: unsupported field type ${type}`);
};

const hashStruct = (name: string, fields: readonly Field[], value: Readonly<Record<string, unknown>>): Uint8Array => {
  const typeHash = keccak(`${name}(${fields.map((f) => `${f.type} ${f.name}`).join(',')})`);
  return keccak(Buffer.concat([typeHash, ...fields.map((f) => encodeField(f.type, value[f.name]))]));
};

/**
 * The EIP-712 digest a signer signs.
 * @example hashTypedData({ domain, types: authorizationTypes, primaryType: 'TransferWithAuthorization', message })
 */
const hashTypedData = (t: TypedData): Hex => {
  const domainFields = DOMAIN_FIELDS.filter((f) => t.domain[f.name as keyof TypedData['domain']] !== undefined);
  const fields = t.types[t.primaryType];
  if (!fields) throw new Error(`EIP-712: no type ${t.primaryType}`);
  const digest = keccak(
    Buffer.concat([Buffer.from([0x19, 0x01]), hashStruct('EIP712Domain', domainFields, t.domain), hashStruct(t.primaryType, fields, t.message)]),
  );
  return `0x${Buffer.from(digest).toString('hex')}`;
};

/** keccak256 of bytes, as 0x hex. */
const keccak256 = (data: Uint8Array): Hex => `0x${Buffer.from(keccak(data)).toString('hex')}`;

export { hashTypedData, keccak256 };
export type { Hex, TypedData };
