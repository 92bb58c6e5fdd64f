/**
 * The local stack's hook: with X402_LOCAL_CHAIN on, start the local chain and facilitator before
 * the server and point the configuration (X402_NETWORK, X402_FACILITATOR_URL, X402_PAY_TO,
 * X402_RPC_URL) at them. The process environment must already hold the stack's settings.
 */
import { getConfig, resetConfig } from '../../../shared/config';
import type { LocalPaymentNetwork } from './index';

/**
 * Starts the local payment network when the configuration asks for it.
 * @returns the running network, or undefined when X402_LOCAL_CHAIN is off
 */
const startLocalPaymentsIfEnabled = async (log: (line: string) => void = () => undefined): Promise<LocalPaymentNetwork | undefined> => {
  let enabled: boolean;
  try {
    resetConfig();
    enabled = getConfig().X402_LOCAL_CHAIN;
  } catch {
    return undefined; // a bad configuration is reported by the stack's own getConfig, with every problem
  }
  if (!enabled) return undefined;
  // Loaded only when asked: ganache and solc are heavy, and most local runs never need them.
  const { startLocalPaymentNetwork } = await import('./index');
  const net = await startLocalPaymentNetwork();
  Object.assign(process.env, net.env);
  resetConfig();
  log(`x402 local chain: ganache chain 84532 at ${net.chain.rpcUrl}, USDC look-alike at ${net.chain.asset}`);
  log(`x402 local facilitator at ${net.facilitator.url}; payments go to ${net.payTo}`);
  log(`x402 buyers: development accounts 2-9 of "test test … junk", 1,000 USDC each`);
  return net;
};

export { startLocalPaymentsIfEnabled };
