/**
 * The signer of an EIP-3009 authorization, recovered with @noble/secp256k1, against viem's own
 * recoverTypedDataAddress as the reference, on signatures made by viem accounts.
 */
import { authorizationTypes } from '@x402/evm';
import { bytesToHex, hexToBytes, recoverTypedDataAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { recoverTypedDataSigner } from '../../shared/payment/signer';
import { USDC } from './helpers';

/** secp256k1's group order n (SEC 2, section 2.4.1). */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const typedData = (from: Hex, value: bigint) => ({
  domain: { name: USDC.eip712.name, version: USDC.eip712.version, chainId: USDC.chainId, verifyingContract: USDC.address },
  types: authorizationTypes,
  primaryType: 'TransferWithAuthorization' as const,
  message: {
    from,
    to: privateKeyToAccount(generatePrivateKey()).address,
    value,
    validAfter: 0n,
    validBefore: 1_900_000_000n,
    nonce: bytesToHex(crypto.getRandomValues(new Uint8Array(32))),
  },
});

/** The same signature with s' = n - s and the other recovery bit: what viem still recovers, and the token refuses. */
const malleate = (sig: Hex): Hex => {
  const b = hexToBytes(sig);
  const s = BigInt(bytesToHex(b.subarray(32, 64)));
  b.set(hexToBytes(`0x${(N - s).toString(16).padStart(64, '0')}`), 32);
  b[64] = b[64] === 27 ? 28 : 27;
  return bytesToHex(b);
};

describe('recoverTypedDataSigner', () => {
  it('recovers the address viem recovers, for 20 keys', async () => {
    for (let i = 0; i < 20; i++) {
      const account = privateKeyToAccount(generatePrivateKey());
      const td = typedData(account.address, BigInt(1 + i));
      const signature = await account.signTypedData(td);
      expect(recoverTypedDataSigner(td, signature)).toEqual({ signer: account.address });
      expect(await recoverTypedDataAddress({ ...td, signature })).toBe(account.address);
    }
  });

  it('reads v as 27/28 or as 0/1', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const td = typedData(account.address, 10_000n);
    const b = hexToBytes(await account.signTypedData(td));
    b[64] = b[64]! - 27;
    expect(recoverTypedDataSigner(td, bytesToHex(b))).toEqual({ signer: account.address });
  });

  it('another message recovers another address (the caller compares it with authorization.from)', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const td = typedData(account.address, 10_000n);
    const signature = await account.signTypedData(td);
    const r = recoverTypedDataSigner({ ...td, message: { ...td.message, value: 10_001n } }, signature);
    expect('signer' in r && r.signer).not.toBe(account.address);
  });

  it('refuses the high-s twin of a valid signature, which viem still recovers', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const td = typedData(account.address, 10_000n);
    const twin = malleate(await account.signTypedData(td));
    expect(await recoverTypedDataAddress({ ...td, signature: twin })).toBe(account.address);
    expect(recoverTypedDataSigner(td, twin)).toEqual({ problem: 'high_s' });
  });

  it.each([
    ['v = 29', (b: Uint8Array) => (b[64] = 29)],
    ['r = 0', (b: Uint8Array) => b.fill(0, 0, 32)],
    ['s = 0', (b: Uint8Array) => b.fill(0, 32, 64)],
  ])('finds no signer when %s', async (_n, damage) => {
    const account = privateKeyToAccount(generatePrivateKey());
    const td = typedData(account.address, 10_000n);
    const b = hexToBytes(await account.signTypedData(td));
    damage(b);
    expect(recoverTypedDataSigner(td, bytesToHex(b))).toHaveProperty('problem');
  });

  it('finds no signer in 64 bytes or in non-hex text', () => {
    const td = typedData(privateKeyToAccount(generatePrivateKey()).address, 1n);
    expect(recoverTypedDataSigner(td, `0x${'11'.repeat(64)}`)).toEqual({ problem: 'malformed' });
    expect(recoverTypedDataSigner(td, `0x${'zz'.repeat(65)}` as Hex)).toHaveProperty('problem');
  });
});
