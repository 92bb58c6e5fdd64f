/** Scheduled Lambda: resolves pending x402 settlements against the chain (every 5 minutes). */
import { getDeps } from '../shared/http/deps';
import { runReconciliation } from '../shared/payment/reconcile-job';

export const handler = async () => runReconciliation(getDeps());
