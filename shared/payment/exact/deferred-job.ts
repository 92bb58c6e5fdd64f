/**
 * The deferred settle worker built from a process's payment services: what the stream function
 * (functions/settle-deferred.ts), the reconciler's backstop and the local timer of `npm start` run.
 */
import { randomUUID } from 'node:crypto';
import type { MetricsSink } from '../../observability/metrics';
import type { PaymentDeps } from '../lane';
import { DEFAULT_RPC_URLS, viemChainReader, type ChainReader } from '../reconcile';
import { leaseMsFor, type DeferredWorkerDeps } from './deferred-worker';
import { settleSideOf } from './deferred-store';

/** This process's name in its leases. */
const OWNER = `worker-${randomUUID().slice(0, 8)}`;

/**
 * The worker's dependencies; null when the process has no deferred store.
 * @param chain injectable for tests; default reads X402_RPC_URL or the network's public RPC
 */
const deferredWorkerDeps = (payment: PaymentDeps, chain?: ChainReader, metrics?: MetricsSink): DeferredWorkerDeps | null => {
  const requestSide = payment.stores['x402-exact'].deferred;
  const deferred = requestSide && settleSideOf(requestSide);
  return deferred
    ? {
        deferred,
        facilitator: payment.facilitator,
        chain: chain ?? viemChainReader(payment.config.X402_RPC_URL ?? DEFAULT_RPC_URLS[payment.config.X402_NETWORK]),
        now: payment.now,
        log: payment.log,
        ...(metrics ? { metrics } : {}),
        owner: OWNER,
        leaseMs: leaseMsFor(payment.config.X402_FACILITATOR_TIMEOUT_MS),
      }
    : null;
};

export { deferredWorkerDeps };
