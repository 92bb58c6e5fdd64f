/**
 * The batch-settlement payload (x402 `batch-settlement` on EVM) parsed with zod, and the pure
 * checks of a voucher: the channel it names is the one its config hashes to and it pays this
 * service in this asset; the payer authorizer signed it. No I/O, no clock: the lane calls these
 * before it touches the store or the facilitator, so a foreign or forged voucher costs nothing.
 *
 * The channel id and the voucher digest are EIP-712 hashes under the escrow's domain
 * ("x402 Batch Settlement", "1", chain id, BATCH_SETTLEMENT_ADDRESS): the same hashes the official
 * client signs, the facilitator checks and the escrow contract recomputes.
 */
import { BATCH_SETTLEMENT_ADDRESS, BATCH_SETTLEMENT_DOMAIN, VOUCHER_TYPES } from '../evm/constants';
import { MAX_WITHDRAW_DELAY_S, MIN_WITHDRAW_DELAY_S } from './config';
import type { Address, Hex } from 'viem';
import { getAddress, isAddressEqual } from '../evm/address';
import { hashTypedData } from '../evm/typed-data';
import * as z from '../../zod';
import { recoverTypedDataSigner } from '../signer';

const AddressString = z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 20-byte 0x address'));
const Bytes32 = z.string().check(z.regex(/^0x[0-9a-fA-F]{64}$/, 'expected 32 bytes of 0x hex'));
/** uint128 fits in 39 decimal digits. */
const Uint128String = z.string().check(z.regex(/^\d{1,39}$/, 'expected an unsigned integer as a decimal string'));
const SignatureHex = z.string().check(z.regex(/^0x(?:[0-9a-fA-F]{2}){1,4096}$/, 'expected a 0x hex signature'));

const ChannelConfigSchema = z.object({
  payer: AddressString,
  payerAuthorizer: AddressString,
  receiver: AddressString,
  receiverAuthorizer: AddressString,
  token: AddressString,
  withdrawDelay: z.int().check(z.minimum(0), z.maximum(2 ** 40 - 1)),
  salt: Bytes32,
});

const VoucherSchema = z.object({ channelId: Bytes32, maxClaimableAmount: Uint128String, signature: SignatureHex });

const VoucherPayloadSchema = z.object({ type: z.literal('voucher'), channelConfig: ChannelConfigSchema, voucher: VoucherSchema });

const DepositPayloadSchema = z.object({
  type: z.literal('deposit'),
  channelConfig: ChannelConfigSchema,
  voucher: VoucherSchema,
  deposit: z.object({
    amount: Uint128String,
    // ERC-3009 only: the service offers `assetTransferMethod: eip3009` (USDC), so no Permit2 deposit.
    authorization: z.object({
      erc3009Authorization: z.object({ validAfter: Uint128String, validBefore: Uint128String, salt: Bytes32, signature: SignatureHex }),
    }),
  }),
});

const BatchPayloadSchema = z.discriminatedUnion('type', [VoucherPayloadSchema, DepositPayloadSchema]);

type ChannelConfig = z.infer<typeof ChannelConfigSchema>;
type VoucherFields = z.infer<typeof VoucherSchema>;
type BatchPayload = z.infer<typeof BatchPayloadSchema>;

/** EIP-712 type of the channel config (its hash is the channel id), as the escrow defines it. */
const CHANNEL_CONFIG_TYPES = {
  ChannelConfig: [
    { name: 'payer', type: 'address' },
    { name: 'payerAuthorizer', type: 'address' },
    { name: 'receiver', type: 'address' },
    { name: 'receiverAuthorizer', type: 'address' },
    { name: 'token', type: 'address' },
    { name: 'withdrawDelay', type: 'uint40' },
    { name: 'salt', type: 'bytes32' },
  ],
} as const;

/** The escrow's EIP-712 domain on a chain. */
const escrowDomain = (chainId: number) => ({ ...BATCH_SETTLEMENT_DOMAIN, chainId, verifyingContract: getAddress(BATCH_SETTLEMENT_ADDRESS) });

/** A channel's id: the EIP-712 hash of its config, bound to the chain and the escrow. */
const channelIdOf = (config: ChannelConfig, chainId: number): Hex =>
  hashTypedData({
    domain: escrowDomain(chainId),
    types: CHANNEL_CONFIG_TYPES,
    primaryType: 'ChannelConfig',
    message: {
      payer: getAddress(config.payer),
      payerAuthorizer: getAddress(config.payerAuthorizer),
      receiver: getAddress(config.receiver),
      receiverAuthorizer: getAddress(config.receiverAuthorizer),
      token: getAddress(config.token),
      withdrawDelay: config.withdrawDelay,
      salt: config.salt as Hex,
    },
  });

/** What the channel must be for this service: paid to us, in our asset, under our authorizer and delay. */
interface ChannelTerms {
  chainId: number;
  payTo: Address;
  asset: Address;
  receiverAuthorizer: Address;
  withdrawDelay: number;
}

type VoucherRefusal = { ok: false; reason: string; message: string };

const ZERO: Address = '0x0000000000000000000000000000000000000000';

/**
 * Checks that a voucher's channel is the one its config hashes to and pays this service.
 * @returns the lower-case channel id, or why not (reasons are x402's batch-settlement error codes)
 */
const checkChannel = (config: ChannelConfig, voucher: VoucherFields, terms: ChannelTerms): { ok: true; channelId: string } | VoucherRefusal => {
  if (channelIdOf(config, terms.chainId).toLowerCase() !== voucher.channelId.toLowerCase()) {
    return { ok: false, reason: 'invalid_batch_settlement_evm_channel_id_mismatch', message: 'the channel id is not the hash of the channel config' };
  }
  if (!isAddressEqual(config.receiver as Address, terms.payTo)) {
    return { ok: false, reason: 'invalid_batch_settlement_evm_receiver_mismatch', message: 'the channel does not pay this service' };
  }
  if (!isAddressEqual(config.receiverAuthorizer as Address, terms.receiverAuthorizer)) {
    return {
      ok: false,
      reason: 'invalid_batch_settlement_evm_receiver_authorizer_mismatch',
      message: "the channel names another receiver authorizer than this service's",
    };
  }
  if (!isAddressEqual(config.token as Address, terms.asset)) {
    return { ok: false, reason: 'invalid_batch_settlement_evm_token_mismatch', message: 'the channel holds another token than the one this service charges' };
  }
  if (config.withdrawDelay !== terms.withdrawDelay) {
    return {
      ok: false,
      reason: 'invalid_batch_settlement_evm_withdraw_delay_mismatch',
      message: `the channel's withdrawal delay must be ${terms.withdrawDelay} s`,
    };
  }
  if (config.withdrawDelay < MIN_WITHDRAW_DELAY_S || config.withdrawDelay > MAX_WITHDRAW_DELAY_S) {
    return { ok: false, reason: 'invalid_batch_settlement_evm_withdraw_delay_out_of_range', message: 'withdrawal delay outside 15 minutes to 30 days' };
  }
  return { ok: true, channelId: voucher.channelId.toLowerCase() };
};

/**
 * Whether the channel's payer authorizer signed the voucher (ECDSA, as the escrow checks it when
 * the authorizer is set). A zero authorizer means a smart-wallet payer (EIP-1271): only the chain
 * can tell, so the answer is `undefined` and the facilitator must verify.
 */
const voucherSignedByAuthorizer = (config: ChannelConfig, voucher: VoucherFields, chainId: number): boolean | undefined => {
  if (isAddressEqual(config.payerAuthorizer as Address, ZERO)) return undefined;
  const recovered = recoverTypedDataSigner(
    {
      domain: escrowDomain(chainId),
      types: VOUCHER_TYPES,
      primaryType: 'Voucher',
      message: { channelId: voucher.channelId as Hex, maxClaimableAmount: BigInt(voucher.maxClaimableAmount) },
    },
    voucher.signature as Hex,
  );
  return 'signer' in recovered && isAddressEqual(recovered.signer, config.payerAuthorizer as Address);
};

export { BatchPayloadSchema, channelIdOf, checkChannel, escrowDomain, voucherSignedByAuthorizer, CHANNEL_CONFIG_TYPES };
export type { BatchPayload, ChannelConfig, ChannelTerms, VoucherFields };
