/** Scheduled Lambda: claims batch-settlement vouchers, settles them and refunds idle channels (every few minutes). */
import { backlogOf, emitSettleMetrics } from '../shared/payment/batch/settle-metrics';
import { assertRpcChain } from '../shared/payment/evm/rpc-chain';
import { batchSettlementDeps, runBatchSettlement, type BatchSettlementReport } from '../shared/payment/batch/settle-job';
import { servicesFromEnvironment } from '../shared/services';

export const handler = async () => {
  const { config, doc, payment, metrics } = servicesFromEnvironment();
  const deps = batchSettlementDeps({ config, doc: doc!, facilitator: payment.facilitator, now: payment.now, log: payment.log });
  let report: BatchSettlementReport | undefined;
  try {
    if (config.X402_RPC_URL) await assertRpcChain(config.X402_RPC_URL, config.X402_NETWORK);
    report = await runBatchSettlement(deps);
    return report;
  } finally {
    // Every pass, failed or not: what it did and the backlog it leaves (a failed pass counts one failure).
    const open = await deps.store.openSales().catch(() => undefined);
    emitSettleMetrics(metrics, report, open && backlogOf(open, payment.now()));
  }
};
