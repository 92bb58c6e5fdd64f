/** Scheduled Lambda: resolves pending x402 settlements against the chain (every minute). */
import { DynamoReconcileLedger } from '../shared/payment/ledger';
import { runReconciliation } from '../shared/payment/reconcile-job';
import { servicesFromEnvironment } from '../shared/services';

export const handler = async () => {
  const services = servicesFromEnvironment();
  // The services hold the lane's ledger; the reconciler also reads the pending index and books sales.
  const ledger = new DynamoReconcileLedger(services.doc!, services.config.CREDITS_TABLE, services.now);
  return runReconciliation(services.payment, ledger, undefined, services.metrics);
};
