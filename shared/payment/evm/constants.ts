/**
 * The EIP-712 types and the escrow address the payment lanes check payments against, as @x402/evm
 * defines them (test/payment/evm.test.ts holds each equal to the library's). Kept here because the
 * library's root module brings viem's encoders into every paid function's bundle for four constants.
 */

/** EIP-3009 TransferWithAuthorization (USDC's `exact` payments). */
const AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** A batch-settlement voucher: the channel and its cumulative ceiling. */
const VOUCHER_TYPES = {
  Voucher: [
    { name: 'channelId', type: 'bytes32' },
    { name: 'maxClaimableAmount', type: 'uint128' },
  ],
} as const;

/** The batch-settlement escrow (the same address on every chain it is deployed to). */
const BATCH_SETTLEMENT_ADDRESS = '0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003' as const;
const BATCH_SETTLEMENT_DOMAIN = { name: 'x402 Batch Settlement', version: '1' } as const;

export { AUTHORIZATION_TYPES, VOUCHER_TYPES, BATCH_SETTLEMENT_ADDRESS, BATCH_SETTLEMENT_DOMAIN };
