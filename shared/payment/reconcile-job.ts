/**
 * The scheduled reconciliation of x402 settlements: builds the ledger, a chain reader and the
 * facilitator client from the configuration and resolves every watched claim it can.
 * functions/reconcile-payments.ts runs it every few minutes; a buyer's retry of the same header
 * then gets the data of a payment found settled.
 */
import { logger } from '../observability/logger';
import { METRIC, type MetricsSink } from '../observability/metrics';
import { deferredWorkerDeps } from './exact/deferred-job';
import { settleDeferred } from './exact/deferred-worker';
import type { PaymentDeps } from './lane';
import type { ReconcileLedger } from './ledger';
import { DEFAULT_RPC_URLS, reconcilePendingPayments, viemChainReader, type ChainReader, type ReconcileReport } from './reconcile';

/**
 * One reconciliation pass over the process's payment services (facilitator, clock) with the reconciler's ledger.
 * @param chain injectable for tests; default reads X402_RPC_URL or the network's public RPC
 */
const runReconciliation = async (payment: PaymentDeps, ledger: ReconcileLedger, chain?: ChainReader, metrics?: MetricsSink): Promise<ReconcileReport> => {
  const { config } = payment;
  const reader = chain ?? viemChainReader(config.X402_RPC_URL ?? DEFAULT_RPC_URLS[config.X402_NETWORK]);
  const worker = deferredWorkerDeps(payment, reader, metrics);
  const report = await reconcilePendingPayments({
    ledger,
    chain: reader,
    facilitator: payment.facilitator,
    now: payment.now,
    log: payment.log,
    ...(worker ? { settleDeferred: (key) => settleDeferred(key, worker) } : {}),
  });
  // Open after the pass: an alarm fires when payments stay unresolved (infra/stacks/observability.ts).
  metrics?.count(METRIC.pendingAfterReconcile, report.stillPending.length);
  metrics?.publish();
  logger.info('x402 reconciliation pass', {
    checked: report.checked,
    settled: report.settled.length,
    unpaid: report.unpaid.length,
    closed: report.closed.length,
    stillPending: report.stillPending.length,
  });
  return report;
};

export { runReconciliation };
