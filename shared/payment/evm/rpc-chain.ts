/**
 * The chain an RPC URL serves, checked against the network the stage charges on before a job trusts
 * its answers: a Base Sepolia URL in prod would report every mainnet payment as unused (and the
 * reconciler would mark paid claims UNPAID). Synth refuses URLs whose host names the wrong network
 * (infra/stacks/deploy-config.ts); this catches the rest, once per process.
 */
import type { X402Network } from '../../config';

const checked = new Map<string, Promise<void>>();

/**
 * Resolves when `rpcUrl` answers eth_chainId with the network's chain id.
 * @throws Error naming both chains when they differ (or the RPC's error)
 * @example await assertRpcChain(config.X402_RPC_URL, config.X402_NETWORK)
 */
const assertRpcChain = (rpcUrl: string, network: X402Network, fetchImpl: typeof fetch = fetch): Promise<void> => {
  const key = `${network} ${rpcUrl}`;
  let done = checked.get(key);
  if (!done) {
    done = (async () => {
      const res = await fetchImpl(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      const body = (await res.json()) as { result?: string; error?: { message?: string } };
      if (!body.result) throw new Error(`X402_RPC_URL: eth_chainId failed (${body.error?.message ?? `HTTP ${res.status}`})`);
      const served = Number(BigInt(body.result));
      const wanted = Number(network.split(':')[1]);
      if (served !== wanted) {
        throw new Error(`X402_RPC_URL serves chain ${served}, but this stage charges on ${network} (chain ${wanted}): set rpcUrl to an RPC of chain ${wanted}`);
      }
    })();
    // A failed check is tried again on the next run (the RPC may have been down).
    done.catch(() => checked.delete(key));
    checked.set(key, done);
  }
  return done;
};

export { assertRpcChain };
