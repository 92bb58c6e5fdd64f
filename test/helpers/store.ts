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

/** Starts dynalite in memory and creates uniquely named tables. */
const startTestStore = async (env: Record<string, string> = {}): Promise<TestStore> => {
  const embedded = await startEmbeddedStore();
  const id = randomUUID().slice(0, 8);
  const config = loadConfig({
    OBSERVATIONS_TABLE: `obs-${id}`,
    CREDITS_TABLE: `credits-${id}`,
    DYNAMODB_ENDPOINT: embedded.endpoint,
    AWS_REGION: 'us-east-1',
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

export { startTestStore };
export type { TestStore };
