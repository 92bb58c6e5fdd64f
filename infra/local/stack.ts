/**
 * The whole local stack in one call: embedded store, tables from the shared definitions,
 * replay seeding through the real ingestion path, and the HTTP server. `npm start` and the
 * end-to-end tests both use it. Settings come in as an explicit map (npm start passes the
 * process environment once); nothing here writes `process.env`.
 */
import { loadConfig, type Config } from '../../shared/config';
import { createServices, type ServiceOverrides, type Services } from '../../shared/services';
import { ADAPTERS } from '../../shared/sources/adapters';
import { checkCurveConfig } from '../../shared/sources/curve-source';
import { runSource, type RunResult } from '../../shared/sources/runner';
import type { LocalPaymentNetwork } from './chain';
import { startLocalPaymentsIfEnabled } from './chain/hook';
import { ensureTables, startEmbeddedStore, type EmbeddedStore } from './embedded-store';
import { startEmbeddedStoreThread } from './embedded-store-thread';
import { localEtagKey } from './etag-secret';
import { receiptKeyOf } from './receipt-key';
import { startLocalSchedules } from './schedules';
import { type LocalWatches, type LocalWatchOptions, startLocalWatches } from './watches';
import { startLocalServer, type LocalServer } from './server';

interface LocalStackOptions {
  port?: number;
  dynamoPort?: number;
  /** Folder for the store's data; absent = in memory. */
  dataDir?: string;
  /** The store on a thread of its own (npm start, benches: the server and deliveries keep this thread); tests start faster without. */
  storeThread?: boolean;
  /** Settings (X402_ENFORCE …) parsed by the config schema; table names default to observations/credits. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Parts to inject instead of the defaults (a fake facilitator, a fixed clock …). */
  overrides?: ServiceOverrides;
  /** Seed from the bundled samples when a source has never run (default true). */
  seed?: boolean;
  /** Run the reconciler and the batch settlement on timers, as EventBridge does (npm start with the local chain; tests run them themselves). */
  schedules?: boolean;
  /** Webhook watches in-process (issue 37): fan-out after each ingestion run, deliveries (npm start: on). */
  watches?: boolean | LocalWatchOptions;
  log?: (line: string) => void;
}

interface LocalStack {
  url: string;
  storeEndpoint: string;
  config: Config;
  services: Services;
  seeded: RunResult[];
  server: LocalServer;
  store: EmbeddedStore;
  /** X402_LOCAL_CHAIN on: the local chain and facilitator the configuration points at. */
  payments?: LocalPaymentNetwork;
  /** The in-process watch fan-out and deliveries, when started. */
  watches?: LocalWatches;
  close(): Promise<void>;
}

/**
 * Local defaults: the table names, and a longer store timeout, because the embedded store shares
 * this process's event loop with the server: under a load test a busy loop delays its answers
 * without anything being wrong. (On AWS the default is 3 s; the fault tests set it explicitly.)
 */
const DEFAULT_TABLES = { OBSERVATIONS_TABLE: 'observations', CREDITS_TABLE: 'credits', STORE_TIMEOUT_MS: '10000' };

/** Starts store + server over services built from the given settings. */
const startLocalStack = async (opts: LocalStackOptions = {}): Promise<LocalStack> => {
  const log = opts.log ?? (() => undefined);
  const store = await (opts.storeThread ? startEmbeddedStoreThread : startEmbeddedStore)(opts.dynamoPort ?? 0, opts.dataDir);
  let payments: LocalPaymentNetwork | undefined;
  let config: Config;
  try {
    payments = await startLocalPaymentsIfEnabled(opts.env ?? {}, log);
    config = loadConfig({
      ...DEFAULT_TABLES,
      // Receipts signed locally too: with the data folder's own key (kept across restarts), or a key for this run.
      RECEIPT_SIGNING_KEY: opts.env?.RECEIPT_SIGNING_KEY ?? receiptKeyOf(opts.dataDir),
      ...opts.env,
      ...payments?.env,
      DYNAMODB_ENDPOINT: store.endpoint,
    });
    checkCurveConfig(config); // the curve Lambda refuses to start the same way
  } catch (err) {
    await store.close();
    await payments?.close();
    throw err;
  }
  await ensureTables(store.endpoint, { observations: config.OBSERVATIONS_TABLE, credits: config.CREDITS_TABLE });
  const services = createServices(config, { etagKey: localEtagKey(opts.dataDir), ...opts.overrides });

  const seeded: RunResult[] = [];
  if (opts.seed !== false) {
    for (const adapter of Object.values(ADAPTERS)) {
      if (await services.store.getRunStatus(adapter.def.id)) continue;
      const r = await runSource(adapter, { mode: 'replay', store: services.store, config });
      seeded.push(r);
      log(`seed ${r.status.padEnd(6)} ${r.message}`);
    }
  }
  const server = await startLocalServer(services, opts.port ?? 0);
  const stopSchedules = opts.schedules && payments ? startLocalSchedules(services, log) : () => undefined;
  const watches = opts.watches ? startLocalWatches(services, { log, ...(typeof opts.watches === 'object' ? opts.watches : {}) }) : undefined;
  return {
    url: server.url,
    storeEndpoint: store.endpoint,
    config,
    services,
    seeded,
    server,
    store,
    payments,
    watches,
    close: async () => {
      watches?.close();
      stopSchedules();
      await server.close();
      services.doc?.destroy();
      await store.close();
      await payments?.close();
    },
  };
};

export { startLocalStack };
export type { LocalStack, LocalStackOptions };
