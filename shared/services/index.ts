/**
 * The composition root: everything a handler needs, built once from a parsed configuration.
 * Lambda entries build it at cold start from the environment ({@link servicesFromEnvironment});
 * the local runtime and tests call {@link createServices} with explicit values, so nothing
 * configures a handler through `process.env`.
 */
import { DynamoCreditLane } from '../pro/credit-ledger';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { loadConfig, type Config } from '../config';
import { logger } from '../observability/logger';
import { createMetrics, METRIC_SERVICE, type MetricsSink } from '../observability/metrics';
import type { SecretReader } from '../config/secret-reader';
import { createFacilitatorClient } from '../payment/facilitator';
import { facilitatorAuth } from '../payment/facilitator-auth';
import { DynamoChannelLane } from '../payment/batch/dynamo-channel-store';
import { DynamoPaymentLedger } from '../payment/ledger';
import { DynamoDeferralLane } from '../payment/exact/deferred-store';
import { jwsReceiptSigner } from '../payment/receipts';
import { receiptSecretLoader } from '../payment/receipt-secret';
import type { PaymentDeps, PaymentLog } from '../payment/lane';
import { createDocumentClient } from '../store/client';
import { ObservationReader, type NextReleaseOf } from '../store/observation-reader';
import { DynamoObservationStore, type ObservationStore } from '../store/observation-store';
import { PointInTimeStore } from '../store/point-in-time-store';
import { ReadCache } from '../store/read-cache';
import { createNextReleaseOf } from '../sources/next-release';
import { etagKeyFromConfig, type EtagKeySource } from '../config/etag-key';

interface Services {
  config: Config;
  /** The DynamoDB document client (null when every store is injected, as in unit tests). */
  doc: DynamoDBDocumentClient | null;
  store: ObservationStore;
  /** Cached, served reads of the store: the only read path of the families. */
  reader: ObservationReader;
  /** The in-Lambda read cache behind the reader (also caches the licensed curve provider's answers). */
  cache: ReadCache;
  /**
   * The cache of reads at past instants (`as_known_at`), apart from `cache` so that a backtest
   * stepping through many instants never evicts the latest figures.
   */
  pointInTimeCache: ReadCache;
  /** Set on the services of a call answered as known at a past instant (ISO instant); absent otherwise. */
  asKnownAt?: string;
  /** The x402 lane: ledger (credit table), facilitator client, clock, log. */
  payment: PaymentDeps;
  /** Clock, injectable so that time-dependent answers are testable. */
  now: () => Date;
  /** Business metrics (dropped unless METRICS_NAMESPACE is set). */
  metrics: MetricsSink;
  /** The server secret of the paid answers' ETags (issue 37). */
  etagKey: EtagKeySource;
}

/** Parts a caller may supply instead of the defaults (in-memory stores, fake facilitator, fixed clock). */
interface ServiceOverrides {
  doc?: DynamoDBDocumentClient;
  store?: ObservationStore;
  cache?: ReadCache;
  pointInTimeCache?: ReadCache;
  payment?: Partial<PaymentDeps>;
  now?: () => Date;
  metrics?: MetricsSink;
  /** How secrets are read (default Secrets Manager): the facilitator's credentials (X402_FACILITATOR_SECRET_ARN). */
  readSecret?: SecretReader;
  /** The ETag secret (the local runtime: the data folder's). */
  etagKey?: EtagKeySource;
}

/** The service logger behind the payment core's small logging port. */
const paymentLog: PaymentLog = {
  info: (message, extra) => logger.info(message, extra ?? {}),
  warn: (message, extra) => logger.warn(message, extra ?? {}),
  error: (message, extra) => logger.error(message, extra ?? {}),
};

/** What every function builds alike: the store, its reader and caches, metrics, the clock. */
const commonServices = (config: Config, overrides: ServiceOverrides, doc: DynamoDBDocumentClient | null, now: () => Date) => {
  const store = overrides.store ?? new DynamoObservationStore(doc!, config.OBSERVATIONS_TABLE);
  const cache = overrides.cache ?? new ReadCache();
  const metrics = overrides.metrics ?? createMetrics(config.METRICS_NAMESPACE, METRIC_SERVICE.api);
  const pointInTimeCache = overrides.pointInTimeCache ?? new ReadCache(POINT_IN_TIME_CACHE_ENTRIES);
  const etagKey = overrides.etagKey ?? etagKeyFromConfig(config, overrides.readSecret);
  return { config, doc, store, reader: new ObservationReader(store, cache, now, createNextReleaseOf()), cache, pointInTimeCache, now, metrics, etagKey };
};

/**
 * The receipt signer, built once per process: from the configured key, or (AWS) read from its
 * secret on the first paid call (`receiptsReady` sets it on these payment services).
 */
const withReceipts = (payment: PaymentDeps, config: Config, overrides: ServiceOverrides): PaymentDeps => {
  const receipts = overrides.payment?.receipts ?? (config.RECEIPT_SIGNING_KEY ? jwsReceiptSigner(config.RECEIPT_SIGNING_KEY) : undefined);
  if (receipts) payment.receipts = receipts;
  payment.previousReceiptKids = config.RECEIPT_PREVIOUS_KIDS;
  const ready = receipts ? undefined : receiptSecretLoader(config, payment, overrides.readSecret);
  if (ready) payment.receiptsReady = ready;
  return payment;
};

const facilitatorOf = (config: Config, overrides: ServiceOverrides) =>
  overrides.payment?.facilitator ?? createFacilitatorClient(config, facilitatorAuth(config, overrides.readSecret));

/**
 * Builds the services of one process.
 * @param config a parsed configuration ({@link loadConfig})
 * @param overrides injected parts; the rest are built from the configuration
 * @example const services = createServices(loadConfig({ OBSERVATIONS_TABLE: 'obs', CREDITS_TABLE: 'credits' }));
 */
const createServices = (config: Config, overrides: ServiceOverrides = {}): Services => {
  const now = overrides.now ?? (() => new Date());
  const needsDoc = !overrides.store || !overrides.payment?.ledger || !overrides.payment?.credits;
  const doc = overrides.doc ?? (needsDoc ? createDocumentClient(config) : null);
  const payment: PaymentDeps = {
    config,
    ledger: overrides.payment?.ledger ?? new DynamoPaymentLedger(doc!, config.CREDITS_TABLE, now),
    credits: overrides.payment?.credits ?? new DynamoCreditLane(doc!, config.CREDITS_TABLE),
    facilitator: facilitatorOf(config, overrides),
    stores: {
      // Deferred settlement needs the claims' own store: with an injected ledger (unit tests) it is off unless injected too.
      'x402-exact': overrides.payment?.stores?.['x402-exact'] ?? {
        deferred: overrides.payment?.ledger ? null : new DynamoDeferralLane(doc!, config.CREDITS_TABLE, now),
      },
      'x402-batch': overrides.payment?.stores?.['x402-batch'] ?? (doc ? new DynamoChannelLane(doc, config.CREDITS_TABLE) : null),
    },
    now: overrides.payment?.now ?? now,
    log: overrides.payment?.log ?? paymentLog,
    ...(overrides.payment?.lanes ? { lanes: overrides.payment.lanes } : {}),
  };
  return { ...commonServices(config, overrides, doc, now), payment: withReceipts(payment, config, overrides) };
};

/** A ledger a free function does not have: any use is a bug (a priced route is refused in a free family at build). */
const noLedger = <T extends object>(what: string): T =>
  new Proxy({} as T, {
    get: (_, prop) => {
      throw new Error(`${what}.${String(prop)}: a free function charges nothing and has no ${what}`);
    },
  });

/**
 * The services of a free function (discovery): the same reads, and of the payment parts only the
 * facilitator (the x402 catalog states the batch terms it advertises), so the function neither
 * builds nor bundles the payment and credit ledgers.
 */
const createFreeServices = (config: Config, overrides: ServiceOverrides = {}): Services => {
  const now = overrides.now ?? (() => new Date());
  const doc = overrides.doc ?? (overrides.store ? null : createDocumentClient(config));
  const payment: PaymentDeps = {
    config,
    ledger: noLedger('payment ledger'),
    credits: noLedger('credit ledger'),
    facilitator: facilitatorOf(config, overrides),
    stores: { 'x402-exact': { deferred: null }, 'x402-batch': null },
    now: overrides.payment?.now ?? now,
    log: overrides.payment?.log ?? paymentLog,
    ...(overrides.payment?.lanes ? { lanes: overrides.payment.lanes } : {}),
  };
  return { ...commonServices(config, overrides, doc, now), payment: withReceipts(payment, config, overrides) };
};

/** Entries of the past-instant cache: a decision pack at one instant reads about 200. */
const POINT_IN_TIME_CACHE_ENTRIES = 2000;

/**
 * The services of a call answered as known at `at`: every read goes through the store's view at
 * that instant, with cache keys of that instant, and the clock stands at it (staleness, alignment
 * and the decision gate are judged then). The returned view names the series read empty there.
 * @example const { services: past } = servicesAsKnownAt(services, new Date('2026-02-11T15:29:00Z'));
 */
const servicesAsKnownAt = (services: Services, at: Date): { services: Services; view: PointInTimeStore } => {
  const view = new PointInTimeStore(services.store, at);
  const cache = services.pointInTimeCache.scoped(`@${view.asKnownAt}|`);
  pastReleases ??= createNextReleaseOf();
  return {
    view,
    services: { ...services, reader: services.reader.at(view, cache, at, pastReleases), cache, now: () => at, asKnownAt: view.asKnownAt },
  };
};
/** Next releases after past instants, memoised apart from the present's (a backtest would keep moving that memo). */
let pastReleases: NextReleaseOf | undefined;

let coldStart: Services | undefined;
/** Lambda: the services of this container, built on first use from the environment. */
const servicesFromEnvironment = (): Services => (coldStart ??= createServices(loadConfig()));
let freeColdStart: Services | undefined;
/** Lambda: a free function's services ({@link createFreeServices}), built on first use from the environment. */
const freeServicesFromEnvironment = (): Services => (freeColdStart ??= createFreeServices(loadConfig()));

export { createServices, createFreeServices, servicesFromEnvironment, freeServicesFromEnvironment, servicesAsKnownAt };
export type { Services, ServiceOverrides };
