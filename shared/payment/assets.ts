/**
 * USDC per network this service charges on (SPEC.md: Base in production, Base Sepolia in
 * staging). The EIP-712 domain name differs between the two ("USD Coin" vs "USDC"); a wrong
 * name makes every signature invalid, so it lives here once, next to the address.
 */
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

const USDC_BY_NETWORK: Readonly<Record<X402Network, UsdcAsset>> = Object.freeze({
  'eip155:8453': Object.freeze({
    address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    eip712: Object.freeze({ name: 'USD Coin', version: '2' }),
    decimals: 6,
    chainId: 8453,
    v1Name: 'base',
  }),
  'eip155:84532': Object.freeze({
    address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    eip712: Object.freeze({ name: 'USDC', version: '2' }),
    decimals: 6,
    chainId: 84532,
    v1Name: 'base-sepolia',
  }),
});

/** The USDC of a network. */
const usdcFor = (network: X402Network): UsdcAsset => USDC_BY_NETWORK[network];

export { USDC_BY_NETWORK, usdcFor };
export type { UsdcAsset };
