import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIngestHandler, IngestionFailedError } from '../../shared/sources/ingest-handler';
import { loadConfig, type Config } from '../../shared/config';
import { loadConfigWithSecrets } from '../../shared/config/secrets';
import { eiaSpot } from '../../shared/sources/eia-spot';
import { fred } from '../../shared/sources/fred';
import type { FetchLike, SourceAdapter } from '../../shared/sources/types';
import { startTestStore, type TestStore } from '../helpers/store';

const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:commodity-data-dev/source-keys-AbCdEf';
const NOW = new Date('2026-11-20T22:00:00Z');

/** fredgraph.csv for whichever series the URL asks, with one row. */
const fredCsv =
  (value: string): FetchLike =>
  async (url) => {
    const id = ['DEXUSEU', 'DEXCHUS', 'DTWEXBGS'].find((s) => String(url).includes(s))!;
    return new Response(`observation_date,${id}\n2026-11-20,${value}\n`);
  };

describe('ingestion handler (functions/ingest.ts)', () => {
  let t: TestStore;
  /** The environment a deployed ingestion function would have, pointed at the embedded store. */
  let baseEnv: Record<string, string>;
  const withSource = (id: string): Config => loadConfig({ ...baseEnv, SOURCE_ID: id });

  beforeAll(async () => {
    t = await startTestStore();
    baseEnv = {
      OBSERVATIONS_TABLE: t.config.OBSERVATIONS_TABLE,
      CREDITS_TABLE: t.config.CREDITS_TABLE,
      DYNAMODB_ENDPOINT: t.config.DYNAMODB_ENDPOINT!,
      AWS_REGION: 'us-east-1',
    };
  });
  afterAll(async () => t.close());

  it('runs its source live, writes the observations and returns the result', async () => {
    const urls: string[] = [];
    const fetch: FetchLike = async (url, init) => {
      urls.push(String(url));
      return fredCsv('1.0842')(url, init);
    };
    const handler = createIngestHandler({ loadConfig: async () => withSource('fred'), store: () => t.store, fetch, now: () => NOW });

    const result = await handler({ source: 'fred', since: '2026-11-01' });

    expect(result).toEqual({ source: 'fred', status: 'ok', items: 3, message: 'fred: 3 observations written', quarantined: 0 });
    expect(await t.store.latest('PRICE#EURUSD')).toMatchObject({ as_of: '2026-11-20', value: 1.0842, retrieved_at: NOW.toISOString() });
    expect(urls).toHaveLength(3);
    for (const u of urls) expect(u).toContain('cosd=2026-11-01'); // the event's backfill start reached the adapter
  });

  it('throws when the run fails, after the runner recorded the error and kept the last good data', async () => {
    const fetch: FetchLike = async () => new Response('upstream down', { status: 502 });
    const handler = createIngestHandler({ loadConfig: async () => withSource('fred'), store: () => t.store, fetch, now: () => NOW });

    await expect(handler({ source: 'fred' })).rejects.toThrow(IngestionFailedError);
    await expect(handler({})).rejects.toThrow(/HTTP 502/);
    expect((await t.store.getRunStatus('fred'))?.last_error).toMatch(/HTTP 502/);
    expect(await t.store.latest('PRICE#EURUSD')).toMatchObject({ as_of: '2026-11-20', value: 1.0842 });
  });

  it('counts a run skipped for a missing key as not ok: it throws (failure queue, alarm) and /health shows why', async () => {
    const handler = createIngestHandler({ loadConfig: async () => withSource('eia-spot'), store: () => t.store, now: () => NOW });
    await expect(handler(undefined)).rejects.toThrow(new IngestionFailedError('eia-spot: live mode needs EIA_API_KEY; skipped'));
    expect(await t.store.getRunStatus('eia-spot')).toMatchObject({
      last_attempt_at: NOW.toISOString(),
      last_outcome: 'skipped',
      last_success_at: null,
      last_error: 'eia-spot: live mode needs EIA_API_KEY; skipped',
    });
  });

  it('reads the source keys from the secret and keeps them out of the error it throws', async () => {
    const key = 'sekrit-eia-123';
    // An adapter that leaks its key into an error message, as a careless one might.
    const leaky: SourceAdapter = {
      ...eiaSpot,
      live: async (ctx) => {
        throw new Error(`GET https://api.eia.gov/v2/seriesid/PET.RWTC.D?api_key=${ctx.config.EIA_API_KEY} refused`);
      },
    };
    const env = { ...baseEnv, SOURCE_ID: 'eia-spot', SOURCE_KEYS_SECRET_ARN: SECRET_ARN };
    const reads: string[] = [];
    const handler = createIngestHandler({
      loadConfig: () =>
        loadConfigWithSecrets(env, async (id) => {
          reads.push(id);
          return JSON.stringify({ EIA_API_KEY: key });
        }),
      store: () => t.store,
      findAdapter: (id) => (id === 'eia-spot' ? leaky : undefined),
      now: () => NOW,
    });

    const err = await handler({ source: 'eia-spot' }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(IngestionFailedError);
    expect((err as Error).message).toContain('api_key=*** refused'); // not skipped: the key arrived
    expect((err as Error).message).not.toContain(key);
    await handler({ source: 'eia-spot' }).catch(() => undefined);
    expect(reads).toEqual([SECRET_ARN]); // once per cold start, not per invocation
  });

  it('refuses to run when misconfigured or misaddressed', async () => {
    const handlerFor = (config: () => Promise<Config>, adapters: Record<string, SourceAdapter> = { fred }) =>
      createIngestHandler({ loadConfig: config, store: () => t.store, findAdapter: (id) => adapters[id], fetch: fredCsv('1.1'), now: () => NOW });

    await expect(handlerFor(async () => loadConfig(baseEnv))({})).rejects.toThrow(/SOURCE_ID is not set/);
    await expect(handlerFor(async () => withSource('fred'))({ source: 'eia-spot' })).rejects.toThrow(/names source eia-spot but this function runs fred/);
    await expect(handlerFor(async () => withSource('fred'))({ since: '01/11/2026' })).rejects.toThrow(/since: expected YYYY-MM-DD/);
    await expect(handlerFor(async () => withSource('worldbank'), {})({})).rejects.toThrow(/no adapter registered for source worldbank/);
  });

  it('loads the configuration again after a failed cold start instead of caching the failure', async () => {
    let calls = 0;
    const handler = createIngestHandler({
      loadConfig: async () => {
        calls += 1;
        if (calls === 1) throw new Error('ThrottlingException');
        return withSource('fred');
      },
      store: () => t.store,
      fetch: fredCsv('1.2'),
      now: () => NOW,
    });
    await expect(handler({})).rejects.toThrow('ThrottlingException');
    await expect(handler({})).resolves.toMatchObject({ status: 'ok', items: 3 });
    expect(calls).toBe(2);
  });
});
