/**
 * The paid functions' own EIP-55 and EIP-712 code (shared/payment/evm) against viem, the library it
 * stands in for in their bundles: the same answers on random inputs of every struct the lanes hash,
 * and the same refusals.
 */
import { randomBytes } from 'node:crypto';
import { authorizationTypes, BATCH_SETTLEMENT_ADDRESS, BATCH_SETTLEMENT_DOMAIN, voucherTypes } from '@x402/evm';
import * as ours from '../../shared/payment/evm/constants';
import { getAddress as viemGetAddress, hashTypedData as viemHashTypedData, isAddressEqual as viemIsAddressEqual } from 'viem';
import { describe, expect, it } from 'vitest';
import { getAddress, isAddressEqual } from '../../shared/payment/evm/address';
import { hashTypedData } from '../../shared/payment/evm/typed-data';
import { CHANNEL_CONFIG_TYPES } from '../../shared/payment/batch/voucher';

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}` as `0x${string}`;
const uint = (bits: number) => BigInt(hex(Math.ceil(bits / 8))) % (1n << BigInt(bits));

describe('EIP-55 addresses', () => {
  it('checksum as viem does, for 200 random addresses and the edge cases', () => {
    for (const a of [...Array.from({ length: 200 }, () => hex(20)), `0x${'0'.repeat(40)}`, `0x${'f'.repeat(40)}`, `0x${'F'.repeat(40)}`]) {
      expect(getAddress(a)).toBe(viemGetAddress(a));
      expect(getAddress(a.toLowerCase())).toBe(viemGetAddress(a.toLowerCase()));
      expect(isAddressEqual(a, a.toUpperCase().replace('0X', '0x'))).toBe(viemIsAddressEqual(a as never, a.toUpperCase().replace('0X', '0x') as never));
    }
  });

  it('refuses what viem refuses (wrong lengths, non-hex) and normalises a mixed case as viem does', () => {
    const good = viemGetAddress(hex(20));
    for (const bad of [`${good}00`, good.slice(0, 41), `0x${'g'.repeat(40)}`, 'abc']) {
      expect(() => viemGetAddress(bad)).toThrow();
      expect(() => getAddress(bad)).toThrow();
    }
    const flipped = good.replace(/[a-f]/, (c) => c.toUpperCase());
    expect(getAddress(flipped)).toBe(viemGetAddress(flipped));
  });
});

describe('the constants the lanes check against', () => {
  it("are the library's", () => {
    expect(ours.AUTHORIZATION_TYPES).toEqual(authorizationTypes);
    expect(ours.VOUCHER_TYPES).toEqual(voucherTypes);
    expect(ours.BATCH_SETTLEMENT_ADDRESS).toBe(BATCH_SETTLEMENT_ADDRESS);
    expect(ours.BATCH_SETTLEMENT_DOMAIN).toEqual(BATCH_SETTLEMENT_DOMAIN);
  });
});

describe('EIP-712 digests', () => {
  it('TransferWithAuthorization (USDC, EIP-3009) as viem hashes it, 100 random messages', () => {
    for (let i = 0; i < 100; i++) {
      const t = {
        domain: { name: i % 2 ? 'USDC' : 'USD Coin', version: '2', chainId: i % 2 ? 84532 : 8453, verifyingContract: viemGetAddress(hex(20)) },
        types: authorizationTypes,
        primaryType: 'TransferWithAuthorization' as const,
        message: { from: viemGetAddress(hex(20)), to: viemGetAddress(hex(20)), value: uint(256), validAfter: uint(64), validBefore: uint(64), nonce: hex(32) },
      };
      expect(hashTypedData(t)).toBe(viemHashTypedData(t));
    }
  });

  it('the batch-settlement Voucher and ChannelConfig as viem hashes them', () => {
    for (let i = 0; i < 50; i++) {
      const domain = { name: 'x402 Batch Settlement', version: '1', chainId: 84532, verifyingContract: viemGetAddress(hex(20)) };
      const voucher = { domain, types: voucherTypes, primaryType: 'Voucher' as const, message: { channelId: hex(32), maxClaimableAmount: uint(128) } };
      expect(hashTypedData(voucher)).toBe(viemHashTypedData(voucher));
      const channel = {
        domain,
        types: CHANNEL_CONFIG_TYPES,
        primaryType: 'ChannelConfig' as const,
        message: {
          payer: viemGetAddress(hex(20)),
          payerAuthorizer: viemGetAddress(hex(20)),
          receiver: viemGetAddress(hex(20)),
          receiverAuthorizer: viemGetAddress(hex(20)),
          token: viemGetAddress(hex(20)),
          withdrawDelay: Number(uint(40) % 1_000_000n),
          salt: hex(32),
        },
      };
      expect(hashTypedData(channel)).toBe(viemHashTypedData(channel));
    }
  });

  it('refuses values out of their type', () => {
    const domain = { name: 'x', version: '1', chainId: 1, verifyingContract: viemGetAddress(hex(20)) };
    expect(() =>
      hashTypedData({ domain, types: voucherTypes, primaryType: 'Voucher', message: { channelId: hex(32), maxClaimableAmount: 1n << 128n } }),
    ).toThrow();
    expect(() => hashTypedData({ domain, types: voucherTypes, primaryType: 'Voucher', message: { channelId: hex(31), maxClaimableAmount: 1n } })).toThrow();
  });
});
