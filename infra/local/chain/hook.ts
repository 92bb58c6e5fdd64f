/**
 * The local stack's hook: with X402_LOCAL_CHAIN on, start the local chain and facilitator before
 * the server; their settings (X402_NETWORK, X402_FACILITATOR_URL, X402_PAY_TO, X402_RPC_URL)
 * are returned for the stack to merge into its configuration.
 */
import type { LocalPaymentNetwork } from './index';

/** `X402_LOCAL_CHAIN` as the config schema reads it. */
const isOn = (v: string | undefined): boolean => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());

/**
 * Starts the local payment network when the settings ask for it.
 * @param env the stack's settings (X402_LOCAL_CHAIN)
 * @returns the running network (its `env` points the configuration at it), or undefined when off
 */
const startLocalPaymentsIfEnabled = async (
  env: Readonly<Record<string, string | undefined>>,
  log: (line: string) => void = () => undefined,
): Promise<LocalPaymentNetwork | undefined> => {
  if (!isOn(env.X402_LOCAL_CHAIN)) return undefined;
  // Loaded only when asked: ganache and solc are heavy, and most local runs never need them.
  const { startLocalPaymentNetwork } = await import('./index');
  const net = await startLocalPaymentNetwork();
  log(`x402 local chain: ganache chain 84532 at ${net.chain.rpcUrl}, USDC look-alike at ${net.chain.asset}`);
  log(`x402 local facilitator at ${net.facilitator.url}; payments go to ${net.payTo}`);
  log(`x402 buyers: development accounts 2-9 of "test test … junk", 1,000 USDC each`);
  return net;
};

export { startLocalPaymentsIfEnabled };
