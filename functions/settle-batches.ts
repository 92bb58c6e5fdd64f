/** Scheduled Lambda: claims batch-settlement vouchers, settles them and refunds idle channels (every few minutes). */
import type { Context } from 'aws-lambda';
import { backlogOfScan, emitSettleMetrics } from '../shared/payment/batch/settle-metrics';
import { settlePassSettings } from '../shared/payment/batch/settle-settings';
import { assertRpcChain } from '../shared/payment/evm/rpc-chain';
import { batchSettlementDeps, runBatchSettlement, type BatchSettlementReport } from '../shared/payment/batch/settle-job';
import { withRpcUrlFromSecret } from '../shared/config/rpc-secret';
import { servicesFromEnvironment } from '../shared/services';

export const handler = async (_event?: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
  const services = servicesFromEnvironment();
  const { doc, payment, metrics } = services;
  const config = await withRpcUrlFromSecret(services.config);
  const settings = settlePassSettings(process.env);
  // A pass near its timeout stops taking work and saves where it stopped; the next pass continues.
  const shouldStop = context ? () => context.getRemainingTimeInMillis() < settings.stopMarginMs : undefined;
  const deps = batchSettlementDeps({
    config,
    doc: doc!,
    facilitator: payment.facilitator,
    now: payment.now,
    log: payment.log,
    settings,
    ...(shouldStop ? { shouldStop } : {}),
  });
  let report: BatchSettlementReport | undefined;
  try {
    if (config.X402_RPC_URL) await assertRpcChain(config.X402_RPC_URL, config.X402_NETWORK);
    report = await runBatchSettlement(deps);
    return report;
  } finally {
    // Every pass, failed or not: what it did, and the backlog its stamp scan measured (none while a
    // scan runs across passes; a failed pass counts one failure).
    emitSettleMetrics(metrics, report, report?.backlog && backlogOfScan(report.backlog, payment.now()));
  }
};
