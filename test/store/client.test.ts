/**
 * The store client of the local runtime, shared by every request: calls that wait for the store are
 * not failed as unreachable. The SDK counts the wait for a free socket of its pool as connecting, and
 * its pool held 50: under load (the local runtime's many requests on one client) the 51st call timed
 * out "connecting" while the store was merely busy, and the request answered 503.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTables, startEmbeddedStore, type EmbeddedStore } from '../../infra/local/embedded-store';
import { createDocumentClient } from '../../shared/store/client';
import { startPausableProxy, type PausableProxy } from '../helpers/pausable-proxy';

const TableName = 'client-pool-obs';
const TIMEOUT_MS = 6_000; // connecting gets a third: 2 s

describe('store client on the embedded store: more calls in flight than the SDK pool holds', () => {
  let store: EmbeddedStore;
  let proxy: PausableProxy;
  beforeAll(async () => {
    store = await startEmbeddedStore();
    await ensureTables(store.endpoint, { observations: TableName, credits: 'client-pool-credits' });
    proxy = await startPausableProxy(store.port);
  });
  afterAll(async () => {
    await proxy?.close();
    await store?.close();
  });

  it('80 calls while the store holds its answers longer than the connect timeout (shorter than the request timeout): all answered, none retried', async () => {
    const doc = createDocumentClient({ DYNAMODB_ENDPOINT: `http://127.0.0.1:${proxy.port}`, AWS_REGION: 'us-east-1', STORE_TIMEOUT_MS: TIMEOUT_MS });
    await doc.send(new PutCommand({ TableName, Item: { pk: 'PRICE#CL', sk: '2026-01-02', value: 1 } }));
    proxy.pause();
    const calls = Array.from({ length: 80 }, () => doc.send(new GetCommand({ TableName, Key: { pk: 'PRICE#CL', sk: '2026-01-02' } })));
    // Held past the 2 s connect timeout, well inside the 6 s request timeout.
    await new Promise((r) => setTimeout(r, 3_000));
    proxy.resume();
    const results = await Promise.allSettled(calls);
    const failed = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
    expect(failed).toEqual([]);
    const attempts = results.map((r) => (r as PromiseFulfilledResult<{ $metadata: { attempts?: number } }>).value.$metadata.attempts);
    expect(attempts.filter((a) => a !== 1)).toEqual([]);
    doc.destroy();
  }, 30_000);
});
