/**
 * Process-wide dependencies of the handlers, built once per cold start from the configuration
 * (AWS at the edge; handlers receive them and stay testable).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { getConfig, type Config } from '../config';
import { createDocumentClient } from '../store/client';
import { DynamoObservationStore, type ObservationStore } from '../store/observation-store';
import { ReadCache } from '../store/read-cache';

interface Deps {
  config: Config;
  doc: DynamoDBDocumentClient;
  store: ObservationStore;
  cache: ReadCache;
  /** Clock, injectable so that time-dependent checks are testable. */
  now: () => Date;
}

let deps: Deps | undefined;

/** The dependencies of this process, created on first use. */
const getDeps = (): Deps => {
  if (!deps) {
    const config = getConfig();
    const doc = createDocumentClient(config);
    deps = {
      config,
      doc,
      store: new DynamoObservationStore(doc, config.OBSERVATIONS_TABLE),
      cache: new ReadCache(),
      now: () => new Date(),
    };
  }
  return deps;
};

/** Drop the process dependencies (tests and the local runtime re-read the environment). */
const resetDeps = (): void => {
  deps = undefined;
};

export { getDeps, resetDeps };
export type { Deps };
