/** Scheduled Lambda: resolves pending x402 settlements against the chain (every 5 minutes). */
import { runReconciliation } from '../shared/payment/reconcile-job';
import { servicesFromEnvironment } from '../shared/services';

export const handler = async () => runReconciliation(servicesFromEnvironment().payment);
