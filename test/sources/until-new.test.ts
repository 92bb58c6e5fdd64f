/**
 * Issue 37: an ingestion run at a release instant ({"until_new": true}) re-polls the publisher,
 * bounded, until the new figure is out; through the real ingestion handler and the embedded store,
 * with a publisher (FRED's fredgraph.csv, synthetic rows) that publishes on its third poll.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { createIngestHandler } from '../../shared/sources/ingest-handler';
import type { FetchLike } from '../../shared/sources/types';
import { startTestStore, type TestStore } from '../helpers/store';

const NOW = new Date('2026-11-20T22:00:00Z');
const SERIES = ['DEXUSEU', 'DEXCHUS', 'DTWEXBGS'];

/** A publisher whose new day (2026-11-20) appears from poll `from` on; before it, the day before only. SYNTHETIC values. */
const publisher = (from: number) => {
  let polls = 0;
  const fetch: FetchLike = async (url) => {
    const id = SERIES.find((s) => String(url).includes(s))!;
    if (id === 'DEXUSEU') polls++;
    const rows = polls >= from ? '2026-11-19,1.0800\n2026-11-20,1.0842\n' : '2026-11-19,1.0800\n';
    return new Response(`observation_date,${id}\n${rows}`);
  };
  return { fetch, polls: () => polls };
};

describe('runUntilNew in the ingestion handler', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await startTestStore();
  });
  afterAll(async () => t.close());

  const handlerWith = (fetch: FetchLike, sleeps: number[], attempts = 5) =>
    createIngestHandler({
      loadConfig: async () =>
        loadConfig({
          OBSERVATIONS_TABLE: t.config.OBSERVATIONS_TABLE,
          CREDITS_TABLE: t.config.CREDITS_TABLE,
          DYNAMODB_ENDPOINT: t.config.DYNAMODB_ENDPOINT!,
          SOURCE_ID: 'fred',
        }),
      store: () => t.store,
      fetch,
      now: () => NOW,
      untilNew: { attempts, everyMs: 45_000, sleep: async (ms) => void sleeps.push(ms) },
    });

  it('polls until the new day is stored, then stops', async () => {
    const p = publisher(3);
    const sleeps: number[] = [];
    // The day before is stored first (a regular run).
    expect(await handlerWith(p.fetch, [])({ source: 'fred' })).toMatchObject({ status: 'ok' });
    expect(sleeps).toEqual([]);
    const result = await handlerWith(p.fetch, sleeps)({ source: 'fred', until_new: true });
    expect(result).toMatchObject({ status: 'ok', polls: 2 });
    expect(sleeps).toEqual([45_000]);
    expect(await t.store.latest('PRICE#EURUSD')).toMatchObject({ as_of: '2026-11-20', value: 1.0842 });
  });

  it('is bounded: a figure that never comes ends after the attempts, without failing', async () => {
    const p = publisher(Number.POSITIVE_INFINITY);
    const sleeps: number[] = [];
    const result = await handlerWith(p.fetch, sleeps, 3)({ source: 'fred', until_new: true });
    expect(result).toMatchObject({ status: 'ok', polls: 3 });
    expect(sleeps).toHaveLength(2);
  });
});
