/**
 * USDC per network this service charges on (SPEC.md: Base in production, Base Sepolia in
 * staging), read from @x402/evm's default-asset table, the one its clients and facilitator
 * use. The EIP-712 domain name differs between the two ("USD Coin" vs "USDC"); a wrong name
 * makes every signature invalid, so it is taken from the library rather than copied.
 */
import { getDefaultAsset } from '@x402/evm';
import { EVM_NETWORK_CHAIN_ID_MAP } from '@x402/evm/v1';
import type { Address } from 'viem';
import type { X402Network } from '../config';

interface UsdcAsset {
  /** Token contract (the EIP-712 verifyingContract). */
  readonly address: Address;
  /** EIP-712 domain name and version of the token, sent to payers as accepts[].extra. */
  readonly eip712: { readonly name: string; readonly version: string };
  readonly decimals: 6;
  /** Chain id of the CAIP-2 network. */
  readonly chainId: number;
  /** The network's v1 name (x402 v1 clients send `"base"` / `"base-sepolia"`). */
  readonly v1Name: string;
}

/** The library's USDC entry for a network, checked to be what the lane assumes: an upgrade that breaks one fails at start-up. */
const fromLibrary = (network: X402Network): UsdcAsset => {
  const entry = getDefaultAsset(network, 'USDC');
  const chainId = Number(network.slice('eip155:'.length));
  const v1Name = Object.entries(EVM_NETWORK_CHAIN_ID_MAP).find(([, id]) => id === chainId)?.[0];
  // A permit2 asset or another precision would need another payload and other prices.
  if (entry.decimals !== 6 || entry.assetTransferMethod !== undefined || v1Name === undefined) {
    throw new Error(`@x402/evm: USDC on ${network} is not a 6-decimal EIP-3009 token with a v1 name`);
  }
  return Object.freeze({
    // Checksummed in the table already (viem's getAddress would add keccak to bundles that lack it).
    address: entry.asset as Address,
    eip712: Object.freeze({ name: entry.name, version: entry.version }),
    decimals: 6,
    chainId,
    v1Name,
  });
};

const USDC_BY_NETWORK: Readonly<Record<X402Network, UsdcAsset>> = Object.freeze({
  'eip155:8453': fromLibrary('eip155:8453'),
  'eip155:84532': fromLibrary('eip155:84532'),
});

/** The USDC of a network. */
const usdcFor = (network: X402Network): UsdcAsset => USDC_BY_NETWORK[network];

export { USDC_BY_NETWORK, usdcFor };
export type { UsdcAsset };
