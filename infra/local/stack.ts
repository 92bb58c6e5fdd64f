/**
 * The whole local stack in one call: embedded store, tables from the shared definitions,
 * replay seeding through the real ingestion path, and the HTTP server. `npm start` and the
 * end-to-end tests both use it.
 */
import { getConfig, resetConfig, type Config } from '../../shared/config';
import { getDeps, resetDeps } from '../../shared/http/deps';
import { ADAPTERS } from '../../shared/sources/adapters';
import { checkCurveConfig } from '../../shared/sources/curve-source';
import { runSource, type RunResult } from '../../shared/sources/runner';
import type { LocalPaymentNetwork } from './chain';
import { startLocalPaymentsIfEnabled } from './chain/hook';
import { ensureTables, startEmbeddedStore, type EmbeddedStore } from './embedded-store';
import { startLocalServer, type LocalServer } from './server';

interface LocalStackOptions {
  port?: number;
  dynamoPort?: number;
  /** Folder for the store's data; absent = in memory. */
  dataDir?: string;
  /** Extra environment (X402_ENFORCE …), applied before configuration is read. */
  env?: Record<string, string | undefined>;
  /** Seed from the bundled samples when a source has never run (default true). */
  seed?: boolean;
  log?: (line: string) => void;
}

interface LocalStack {
  url: string;
  storeEndpoint: string;
  seeded: RunResult[];
  server: LocalServer;
  store: EmbeddedStore;
  /** X402_LOCAL_CHAIN on: the local chain and facilitator the configuration points at. */
  payments?: LocalPaymentNetwork;
  close(): Promise<void>;
}

const DEFAULT_TABLES = { observations: 'observations', credits: 'credits' };

/** Starts store + server; the process environment is set for the handlers. */
const startLocalStack = async (opts: LocalStackOptions = {}): Promise<LocalStack> => {
  const log = opts.log ?? (() => undefined);
  const store = await startEmbeddedStore(opts.dynamoPort ?? 0, opts.dataDir);
  Object.assign(process.env, {
    OBSERVATIONS_TABLE: process.env.OBSERVATIONS_TABLE ?? DEFAULT_TABLES.observations,
    CREDITS_TABLE: process.env.CREDITS_TABLE ?? DEFAULT_TABLES.credits,
    ...opts.env,
    DYNAMODB_ENDPOINT: store.endpoint,
  });
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v === undefined) delete process.env[k];
  const payments = await startLocalPaymentsIfEnabled(log).catch(async (err) => {
    await store.close();
    throw err;
  });
  resetConfig();
  resetDeps();
  let config: Config;
  try {
    config = getConfig();
    checkCurveConfig(config); // the curve Lambda refuses to start the same way
  } catch (err) {
    await store.close();
    await payments?.close();
    throw err;
  }
  await ensureTables(store.endpoint, { observations: config.OBSERVATIONS_TABLE, credits: config.CREDITS_TABLE });

  const seeded: RunResult[] = [];
  if (opts.seed !== false) {
    const deps = getDeps();
    for (const adapter of Object.values(ADAPTERS)) {
      if (await deps.store.getRunStatus(adapter.def.id)) continue;
      const r = await runSource(adapter, { mode: 'replay', store: deps.store, config });
      seeded.push(r);
      log(`seed ${r.status.padEnd(6)} ${r.message}`);
    }
  }
  const server = await startLocalServer(opts.port ?? 0);
  return {
    url: server.url,
    storeEndpoint: store.endpoint,
    seeded,
    server,
    store,
    payments,
    close: async () => {
      await server.close();
      await store.close();
      await payments?.close();
      resetDeps();
      resetConfig();
    },
  };
};

export { startLocalStack };
export type { LocalStack, LocalStackOptions };
