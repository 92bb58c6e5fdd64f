/**
 * Lambda of the webhook deliveries (issue 37), on the delivery queue: one attempt per message
 * (shared/watches/deliver.ts). A message whose attempt throws (the store unreachable) is reported
 * failed and comes back from SQS; a receiver's refusal is not a failure here (its retry is queued).
 * A schedule's event (SWEEP_EVENT) runs the sweep of stopped attempts instead.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../shared/observability/logger';
import { servicesFromEnvironment } from '../shared/services';
import { deliver, sweepStopped } from '../shared/watches/deliver';
import { isSweepEvent, type SweepEvent } from '../shared/watches/lease';
import { createPost } from '../shared/watches/post';
import { sqsQueue } from '../shared/watches/queue';
import type { DeliveryMessage } from '../shared/watches/watch';
import { WatchStore } from '../shared/watches/watch-store';

export const handler = async (event: SQSEvent | SweepEvent): Promise<SQSBatchResponse | { recovered: number }> => {
  const services = servicesFromEnvironment();
  const { config } = services;
  if (!config.WATCH_QUEUE_URL) throw new Error('WATCH_QUEUE_URL is not set');
  const deps = {
    watches: new WatchStore(services.doc!, config.CREDITS_TABLE),
    credits: services.payment.credits,
    queue: sqsQueue(config.WATCH_QUEUE_URL, config.AWS_REGION),
    post: createPost(config.STAGE === 'dev'),
    now: services.now,
    log: { warn: (message: string, extra?: Record<string, unknown>) => logger.warn(message, extra ?? {}) },
  };
  if (isSweepEvent(event)) {
    const recovered = await sweepStopped(deps);
    logger.info('watch delivery sweep', { recovered });
    return { recovered };
  }
  const failed = await Promise.all(
    event.Records.map(async (r) => {
      try {
        const outcome = await deliver(JSON.parse(r.body) as DeliveryMessage, deps);
        logger.info('watch delivery', { messageId: r.messageId, outcome });
        return null;
      } catch (err) {
        logger.error('watch delivery failed', { messageId: r.messageId, error: err as Error });
        return { itemIdentifier: r.messageId };
      }
    }),
  );
  return { batchItemFailures: failed.filter((f): f is { itemIdentifier: string } => f !== null) };
};
