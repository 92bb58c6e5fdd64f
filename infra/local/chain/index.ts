/**
 * The whole paid flow on one machine: the local chain plus the local facilitator, and the
 * configuration that points the service at them. `X402_LOCAL_CHAIN=1 npm start` and the x402
 * end-to-end tests both use it.
 */
import type { Address } from 'viem';
import { startLocalChain, type LocalChain } from './chain';
import { startLocalFacilitator, type LocalFacilitator, type LocalFacilitatorOptions } from './facilitator';

interface LocalPaymentNetwork {
  chain: LocalChain;
  facilitator: LocalFacilitator;
  /** The service's pay-to address (development account 1). */
  payTo: Address;
  /** Environment that points the service at this chain and facilitator. */
  env: Record<string, string>;
  close(): Promise<void>;
}

interface LocalPaymentNetworkOptions {
  chainPort?: number;
  /** Seconds between blocks (X402_LOCAL_BLOCK_TIME); default 0, a block per transaction at once. */
  blockTime?: number;
  facilitatorPort?: number;
  facilitator?: Omit<LocalFacilitatorOptions, 'port'>;
}

/**
 * Starts ganache (chain id 84532, Base Sepolia USDC look-alike, Multicall3, the x402 batch-settlement
 * escrow and its deposit collector) and the facilitator (exact and batch-settlement schemes).
 * Development account 0 settles (pays gas), account 1 receives payments, accounts 2-9 are buyers.
 */
const startLocalPaymentNetwork = async (opts: LocalPaymentNetworkOptions = {}): Promise<LocalPaymentNetwork> => {
  const chain = await startLocalChain({ port: opts.chainPort, blockTime: opts.blockTime });
  let facilitator: LocalFacilitator;
  try {
    facilitator = await startLocalFacilitator(chain, { ...opts.facilitator, port: opts.facilitatorPort });
  } catch (err) {
    await chain.close();
    throw err;
  }
  const payTo = chain.accounts[1]!.address;
  return {
    chain,
    facilitator,
    payTo,
    env: {
      X402_NETWORK: chain.network,
      X402_FACILITATOR_URL: facilitator.url,
      X402_PAY_TO: payTo,
      X402_RPC_URL: chain.rpcUrl,
    },
    close: async () => {
      await facilitator.close();
      await chain.close();
    },
  };
};

export { startLocalPaymentNetwork };
export type { LocalPaymentNetwork, LocalPaymentNetworkOptions };
