/**
 * The scheduled reconciliation of pending x402 settlements: builds the ledger, a chain reader and
 * the facilitator client from the configuration and resolves every PENDING payment it can.
 * functions/reconcile-payments.ts runs it every few minutes; a buyer's retry of the same header
 * then gets the data of a payment found settled.
 */
import type { Deps } from '../http/deps';
import { logger } from '../observability/logger';
import { createFacilitatorClient } from './facilitator';
import { DynamoPaymentLedger } from './ledger';
import { DEFAULT_RPC_URLS, reconcilePendingPayments, viemChainReader, type ChainReader, type ReconcileReport } from './reconcile';

/**
 * One reconciliation pass.
 * @param chain injectable for tests; default reads X402_RPC_URL or the network's public RPC
 */
const runReconciliation = async (deps: Deps, chain?: ChainReader): Promise<ReconcileReport> => {
  const { config } = deps;
  const report = await reconcilePendingPayments({
    ledger: new DynamoPaymentLedger(deps.doc, config.CREDITS_TABLE, deps.now),
    chain: chain ?? viemChainReader(config.X402_RPC_URL ?? DEFAULT_RPC_URLS[config.X402_NETWORK]),
    facilitator: createFacilitatorClient(config),
    now: deps.now,
    log: {
      info: (m, e) => logger.info(m, e ?? {}),
      warn: (m, e) => logger.warn(m, e ?? {}),
      error: (m, e) => logger.error(m, e ?? {}),
    },
  });
  logger.info('x402 reconciliation pass', {
    checked: report.checked,
    settled: report.settled.length,
    unpaid: report.unpaid.length,
    failed: report.failed.length,
    stillPending: report.stillPending.length,
  });
  return report;
};

export { runReconciliation };
