/**
 * An embedded store (in-memory dynalite) with fresh tables, for repository and runner tests.
 */
import { randomUUID } from 'node:crypto';
import { ensureTables, startEmbeddedStore, type EmbeddedStore } from '../../infra/local/embedded-store';
import { loadConfig, type Config } from '../../shared/config';
import { createDocumentClient } from '../../shared/store/client';
import { DynamoObservationStore } from '../../shared/store/observation-store';

interface TestStore {
  embedded: EmbeddedStore;
  config: Config;
  store: DynamoObservationStore;
  doc: ReturnType<typeof createDocumentClient>;
  close(): Promise<void>;
}

/**
 * The store timeout of a test's store: the longest the service allows. The embedded store answers
 * from the test's own process on a shared 2-core machine, so a busy machine delays its answers
 * without anything being wrong (the service's 3 s is for DynamoDB); a test about store timeouts
 * sets its own.
 */
const TEST_STORE_TIMEOUT = { STORE_TIMEOUT_MS: '20000' } as const;

/** Starts dynalite in memory and creates uniquely named tables. */
const startTestStore = async (env: Record<string, string> = {}): Promise<TestStore> => {
  const embedded = await startEmbeddedStore();
  const id = randomUUID().slice(0, 8);
  const config = loadConfig({
    OBSERVATIONS_TABLE: `obs-${id}`,
    CREDITS_TABLE: `credits-${id}`,
    DYNAMODB_ENDPOINT: embedded.endpoint,
    AWS_REGION: 'us-east-1',
    ...TEST_STORE_TIMEOUT,
    ...env,
  });
  await ensureTables(embedded.endpoint, { observations: config.OBSERVATIONS_TABLE, credits: config.CREDITS_TABLE });
  const doc = createDocumentClient(config);
  return {
    embedded,
    config,
    doc,
    store: new DynamoObservationStore(doc, config.OBSERVATIONS_TABLE),
    close: async () => {
      doc.destroy();
      await embedded.close();
    },
  };
};

export { startTestStore, TEST_STORE_TIMEOUT };
export type { TestStore };
