/**
 * The handler of every ingestion function (entry: functions/ingest.ts). CDK deploys one function
 * per registry source and tells it which one with SOURCE_ID. EventBridge Scheduler invokes it asynchronously with
 * `{"source": "<id>"}` after each release, and with `{"source": "<id>", "until_new": true}` at the
 * release instant (re-polled until the new figure is out); an operator may add `"since": "YYYY-MM-DD"` to backfill by hand.
 *
 * A failed run throws, so Lambda's async retries and the on-failure queue see it (the runner has
 * already recorded the error under META#<source> and kept the last good data). A run skipped for
 * a missing API key is not ok either: nothing arrived, so it counts and throws as a failed run
 * (its two retries are cheap; the failure queue's alarm tells the operator which key is missing).
 */
import type { Context } from 'aws-lambda';
import * as z from '../zod';
import type { Config } from '../config';
import { loadConfigWithSecrets } from '../config/secrets';
import { logger } from '../observability/logger';
import { findAdapter } from './adapters';
import { createMetrics, METRIC, METRIC_SERVICE, type MetricsSink } from '../observability/metrics';
import { redactSecrets, runSource, type RunResult } from './runner';
import type { FetchLike, SourceAdapter } from './types';
import { createDocumentClient } from '../store/client';
import { runAtReleaseInstant, UNTIL_NEW, type UntilNewOptions } from './until-new';
import { DynamoObservationStore, type ObservationStore } from '../store/observation-store';

/** The scheduler's input; a console test event may be `{}` and carry other fields. */
const IngestEventSchema = z.nullish(
  z.looseObject({
    source: z.optional(z.string().check(z.minLength(1))),
    since: z.optional(z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD'))),
    // Issue 37: a run at the release instant re-polls (bounded) until the new figure is out.
    until_new: z.optional(z.boolean()),
  }),
);

/** A run that ended with status "failed"; thrown so that the invocation counts as failed. */
class IngestionFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IngestionFailedError';
  }
}

/** Seams for tests; the deployed handler uses the defaults. */
interface IngestHandlerOptions {
  /** Configuration with the source keys (default: environment + Secrets Manager, once per cold start). */
  loadConfig?: () => Promise<Config>;
  /** The observation store (default: the DynamoDB table of the configuration, built once per cold start). */
  store?: (config: Config) => ObservationStore;
  /** Adapter lookup (default: the ADAPTERS map). */
  findAdapter?: (id: string) => SourceAdapter | undefined;
  fetch?: FetchLike;
  now?: () => Date;
  /** How a release-instant run re-polls (issue 37; default UNTIL_NEW). */
  untilNew?: UntilNewOptions;
}

type IngestHandler = (event: unknown, context?: Context) => Promise<RunResult>;

/**
 * Builds the ingestion handler.
 * @example export const handler = createIngestHandler();
 */
const createIngestHandler = (opts: IngestHandlerOptions = {}): IngestHandler => {
  let config: Promise<Config> | undefined;
  // Once per cold start; a failed load (e.g. Secrets Manager throttled) is retried on the next invocation.
  const configOnce = (): Promise<Config> =>
    (config ??= (opts.loadConfig ?? loadConfigWithSecrets)().catch((err: unknown) => {
      config = undefined;
      throw err;
    }));

  let metrics: MetricsSink | undefined;
  const metricsOf = (cfg: Config): MetricsSink => (metrics ??= createMetrics(cfg.METRICS_NAMESPACE, METRIC_SERVICE.ingest));

  let defaultStore: ObservationStore | undefined;
  const storeOf = (cfg: Config): ObservationStore => {
    if (opts.store) return opts.store(cfg);
    defaultStore ??= new DynamoObservationStore(createDocumentClient(cfg), cfg.OBSERVATIONS_TABLE);
    return defaultStore;
  };

  return async (event, context) => {
    if (context) logger.addContext(context);
    const cfg = await configOnce();
    const id = cfg.SOURCE_ID;
    if (!id) throw new Error('SOURCE_ID is not set: this function does not know which source to run');
    const parsed = IngestEventSchema.safeParse(event);
    if (!parsed.success) {
      throw new Error(`invalid ingestion event: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    }
    if (parsed.data?.source && parsed.data.source !== id) {
      throw new Error(`event names source ${parsed.data.source} but this function runs ${id}`);
    }
    const adapter = (opts.findAdapter ?? findAdapter)(id);
    if (!adapter) throw new Error(`no adapter registered for source ${id} (shared/sources/adapters.ts)`);

    const store = storeOf(cfg);
    const runOnce = () => runSource(adapter, { mode: 'live', store, config: cfg, fetch: opts.fetch, now: opts.now?.(), since: parsed.data?.since });
    // A release-instant run (issue 37) re-polls while its calendar has a release due, inside the invocation's time.
    const untilNew = { ...(opts.untilNew ?? UNTIL_NEW), ...(context ? { timeLeftMs: () => context.getRemainingTimeInMillis() } : {}) };
    const newest = async () => (await store.getRunStatus(id))?.data_newest?.as_of ?? null;
    const raw = parsed.data?.until_new ? await runAtReleaseInstant(id, opts.now?.() ?? new Date(), runOnce, newest, untilNew) : await runOnce();
    const result: RunResult = { ...raw, message: redactSecrets(raw.message, cfg) };
    const fields = { source: result.source, status: result.status, items: result.items, since: parsed.data?.since ?? null };
    // Only an ok run counts as one: a skipped run brought no data (infra/stacks/observability.ts).
    metricsOf(cfg).count(result.status === 'ok' ? METRIC.ingestOk : METRIC.ingestFailed, 1, { source: id });
    if (result.quarantined) metricsOf(cfg).count(METRIC.quarantined, result.quarantined, { source: id });
    metricsOf(cfg).publish();
    if (result.status !== 'ok') {
      logger.error(result.message, fields);
      throw new IngestionFailedError(result.message);
    }
    logger.info(result.message, fields);
    return result;
  };
};

export { createIngestHandler, IngestionFailedError };
export type { IngestHandler, IngestHandlerOptions };
