/** Scheduled Lambda: claims batch-settlement vouchers, settles them and refunds idle channels (every few minutes). */
import { batchSettlementDeps, runBatchSettlement } from '../shared/payment/batch/settle-job';
import { servicesFromEnvironment } from '../shared/services';

export const handler = async () => {
  const { config, doc, payment } = servicesFromEnvironment();
  return runBatchSettlement(batchSettlementDeps({ config, doc: doc!, facilitator: payment.facilitator, now: payment.now, log: payment.log }));
};
