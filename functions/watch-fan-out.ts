/**
 * Lambda of the webhook watches' fan-out (issue 37), on the observation table's stream: after a
 * batch of observation writes, finds the watched paths whose answer changed and queues one delivery
 * per watch (shared/watches/fan-out.ts).
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../shared/observability/logger';
import { servicesFromEnvironment } from '../shared/services';
import { fanOut } from '../shared/watches/fan-out';
import { sqsQueue } from '../shared/watches/queue';
import { runDataRoute } from '../shared/families/run-route';
import { releaseOfStream } from '../shared/watches/stream-release';
import { WatchStore } from '../shared/watches/watch-store';

export const handler = async (event: DynamoDBStreamEvent) => {
  const release = releaseOfStream(event.Records);
  // Run records and notes alone change no answer.
  if (!release) return { paths: 0, changed: [], enqueued: 0 };
  const services = servicesFromEnvironment();
  // Read what was just written, not what this container read before.
  services.cache.clear();
  const { config } = services;
  if (!config.WATCH_QUEUE_URL) throw new Error('WATCH_QUEUE_URL is not set');
  const result = await fanOut(release, {
    watches: new WatchStore(services.doc!, config.CREDITS_TABLE),
    queue: sqsQueue(config.WATCH_QUEUE_URL, config.AWS_REGION),
    services,
    run: runDataRoute,
    log: { warn: (message, extra) => logger.warn(message, extra ?? {}) },
  });
  logger.info('watch fan-out', { release, ...result });
  return result;
};
