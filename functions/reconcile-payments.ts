/** Scheduled Lambda: resolves pending x402 settlements against the chain (every minute). */
import { withRpcUrlFromSecret } from '../shared/config/rpc-secret';
import { assertRpcChain } from '../shared/payment/evm/rpc-chain';
import { DynamoReconcileLedger } from '../shared/payment/ledger';
import { DEFAULT_RPC_URLS } from '../shared/payment/reconcile';
import { runReconciliation } from '../shared/payment/reconcile-job';
import { servicesFromEnvironment } from '../shared/services';

export const handler = async () => {
  const services = servicesFromEnvironment();
  // The RPC URL from its secret when the stage keeps it there (a provider URL carries its key).
  const config = await withRpcUrlFromSecret(services.config);
  const { X402_RPC_URL, X402_NETWORK } = config;
  // Only a configured RPC is checked: the public default is the network's own.
  if (X402_RPC_URL && X402_RPC_URL !== DEFAULT_RPC_URLS[X402_NETWORK]) await assertRpcChain(X402_RPC_URL, X402_NETWORK);
  // The services hold the lane's ledger; the reconciler also reads the pending index and books sales.
  const ledger = new DynamoReconcileLedger(services.doc!, config.CREDITS_TABLE, services.now);
  return runReconciliation({ ...services.payment, config }, ledger, undefined, services.metrics);
};
