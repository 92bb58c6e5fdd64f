/**
 * The local stack's hook: with X402_LOCAL_CHAIN on, start the local chain (a block every
 * X402_LOCAL_BLOCK_TIME seconds, or one per transaction, RPC on X402_LOCAL_CHAIN_PORT) and facilitator
 * (on X402_LOCAL_FACILITATOR_PORT)
 * before the server; their settings (X402_NETWORK, X402_FACILITATOR_URL, X402_PAY_TO, X402_RPC_URL) are returned for the
 * stack to merge into its configuration.
 */
import type { LocalPaymentNetwork } from './index';

/** `X402_LOCAL_CHAIN` as the config schema reads it. */
const isOn = (v: string | undefined): boolean => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());

/**
 * `X402_LOCAL_BLOCK_TIME`: seconds between blocks of the local chain (2 reproduces Base); unset or
 * empty: 0, each transaction mined at once.
 * @throws Error on anything but a number of seconds from 0 to 60
 */
const blockTimeOf = (v: string | undefined): number => {
  if (v === undefined || v.trim() === '') return 0;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 60) throw new Error(`X402_LOCAL_BLOCK_TIME must be seconds between 0 and 60, got "${v}"`);
  return n;
};

/**
 * A port setting on 127.0.0.1: `X402_LOCAL_CHAIN_PORT`, the chain's JSON-RPC (npm start: 8545, so a
 * buyer's script can read the chain), or `X402_LOCAL_FACILITATOR_PORT`, the facilitator's (npm
 * start: 8402, so that a firewall rule or a second tool can name it); unset or empty: 0, a free one.
 * @throws Error on anything but a port number
 */
const portOf = (name: string, v: string | undefined): number => {
  if (v === undefined || v.trim() === '') return 0;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new Error(`${name} must be a port number, got "${v}"`);
  return n;
};

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
  const blockTime = blockTimeOf(env.X402_LOCAL_BLOCK_TIME);
  const net = await startLocalPaymentNetwork({
    blockTime,
    chainPort: portOf('X402_LOCAL_CHAIN_PORT', env.X402_LOCAL_CHAIN_PORT),
    facilitatorPort: portOf('X402_LOCAL_FACILITATOR_PORT', env.X402_LOCAL_FACILITATOR_PORT),
  });
  log(
    `x402 local chain: ganache chain 84532 at ${net.chain.rpcUrl}, USDC look-alike at ${net.chain.asset}, ` +
      (blockTime > 0 ? `a block every ${blockTime} s` : 'a block per transaction'),
  );
  log(`x402 local facilitator at ${net.facilitator.url}; payments go to ${net.payTo}`);
  log(`x402 buyers: development accounts 2-9 of "test test … junk", 1,000 USDC each`);
  return net;
};

export { startLocalPaymentsIfEnabled, blockTimeOf, portOf };
