/**
 * Test helpers: the local stack on an in-memory embedded store, and small HTTP helpers.
 */
import { randomUUID } from 'node:crypto';
import { startLocalStack, type LocalStack } from '../../infra/local/stack';
import type { ServiceOverrides } from '../../shared/services';

/**
 * Starts the whole local stack (in-memory dynalite, unique table names, replay seed) for a test file.
 * @param env extra environment such as { X402_ENFORCE: '1' }
 * @param overrides injected parts (a fixed clock …)
 */
const startTestStack = async (env: Record<string, string | undefined> = {}, seed = true, overrides?: ServiceOverrides): Promise<LocalStack> => {
  const id = randomUUID().slice(0, 8);
  return startLocalStack({
    // Exact calls settle first unless a test opts into deferred settlement (X402_DEFER_MAX_USD).
    env: { OBSERVATIONS_TABLE: `test-obs-${id}`, CREDITS_TABLE: `test-credits-${id}`, X402_DEFER_MAX_USD: '0', ...env },
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
