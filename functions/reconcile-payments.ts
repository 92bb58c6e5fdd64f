/** Scheduled Lambda: resolves pending x402 settlements against the chain (every minute). */
import { runReconciliation } from '../shared/payment/reconcile-job';
import { servicesFromEnvironment } from '../shared/services';

export const handler = async () => {
  const services = servicesFromEnvironment();
  return runReconciliation(services.payment, undefined, services.metrics);
};
