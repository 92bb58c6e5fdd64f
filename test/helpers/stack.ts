/**
 * Test helpers: the local stack on an embedded store (a copy of the run's seed, or in memory), and small HTTP helpers.
 */
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { startLocalStack, type LocalStack } from '../../infra/local/stack';
import type { ServiceOverrides } from '../../shared/services';
import { copySeededStore, SEEDED_TABLES, seededStore } from './seeded-store';
import { TEST_STORE_TIMEOUT } from './store';

/** The run's folder for the shared seed (global-setup.ts), when this runs under vitest with it. */
const seedRunDir = (): string | undefined => {
  try {
    return inject('seedRunDir');
  } catch {
    return undefined; // not under vitest (a bench script): seed as npm start does
  }
};

/**
 * Starts the whole local stack (its own dynalite: a copy of the run's replay seed, or in memory and empty) for a test file.
 * @param env extra environment such as { X402_ENFORCE: '1' }
 * @param overrides injected parts (a fixed clock …)
 */
/**
 * Exact calls settle first unless a test opts into deferred settlement (X402_DEFER_MAX_USD); the
 * store timeout is a test store's (store.ts: the embedded store shares the loaded test process).
 */
const STACK_DEFAULTS = { X402_DEFER_MAX_USD: '0', ...TEST_STORE_TIMEOUT };

const startTestStack = async (env: Record<string, string | undefined> = {}, seed = true, overrides?: ServiceOverrides): Promise<LocalStack> => {
  const runDir = seed ? seedRunDir() : undefined;
  if (runDir) {
    // A copy of the seed written once for the run: the same data, without seconds of ingestion per stack.
    const copy = copySeededStore(await seededStore(runDir));
    const stack = await startLocalStack({
      env: { ...SEEDED_TABLES, ...STACK_DEFAULTS, ...env },
      seed,
      dataDir: copy.dir,
      ...(overrides ? { overrides } : {}),
    }).catch((err) => {
      copy.remove();
      throw err;
    });
    return {
      ...stack,
      close: async () => {
        await stack.close();
        copy.remove();
      },
    };
  }
  const id = randomUUID().slice(0, 8);
  return startLocalStack({
    env: { OBSERVATIONS_TABLE: `test-obs-${id}`, CREDITS_TABLE: `test-credits-${id}`, ...STACK_DEFAULTS, ...env },
    seed,
    ...(overrides ? { overrides } : {}),
  });
};

interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** GET (or other method) returning the parsed JSON body. */
const getJson = async <T = any>(base: string, path: string, init?: RequestInit): Promise<JsonResponse<T>> => {
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
};

export { startTestStack, getJson };
export type { JsonResponse };
