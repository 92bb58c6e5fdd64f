/**
 * Stream Lambda: settles deferred x402 exact payments (answered before settlement) as the credit
 * table's stream delivers their CLAIMED -> DEFERRED move (infra/constructs/deferred-settlement.ts).
 * A record whose settlement could not be decided is reported as failed, so the stream retries it; a
 * claim held by another worker is that worker's. The reconciler settles whatever is left (backstop).
 */
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { deferredWorkerDeps } from '../shared/payment/exact/deferred-job';
import { settleDeferred } from '../shared/payment/exact/deferred-worker';
import { withRpcUrlFromSecret } from '../shared/config/rpc-secret';
import { servicesFromEnvironment } from '../shared/services';

export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const services = servicesFromEnvironment();
  // The RPC URL from its secret when the stage keeps it there (a provider URL carries its key).
  const config = await withRpcUrlFromSecret(services.config);
  const worker = deferredWorkerDeps({ ...services.payment, config }, undefined, services.metrics);
  if (!worker) throw new Error('settle-deferred: no deferred store in this function');
  const failed = await Promise.all(
    event.Records.map(async (r) => {
      const image = r.dynamodb?.NewImage;
      const key = { payer: image?.payer?.S ?? '', nonce: image?.nonce?.S ?? '' };
      try {
        return key.payer && (await settleDeferred(key, worker)) !== 'retry' ? null : (r.dynamodb?.SequenceNumber ?? null);
      } catch (err) {
        worker.log.error('settle-deferred: record failed', { ...key, error: err instanceof Error ? err.message : String(err) });
        return r.dynamodb?.SequenceNumber ?? null;
      }
    }),
  );
  services.metrics.publish();
  return { batchItemFailures: failed.filter((s): s is string => s !== null).map((itemIdentifier) => ({ itemIdentifier })) };
};
