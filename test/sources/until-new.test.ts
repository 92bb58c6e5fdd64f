/**
 * Issue 37: an ingestion run at a release instant ({"until_new": true}) re-polls the publisher,
 * bounded, until the new figure is out; through the real ingestion handler and the embedded store,
 * with a publisher (FRED's fredgraph.csv, synthetic rows) that publishes on a given poll. The run
 * re-polls only when FRED's calendar (the H.10, Mondays 16:15 ET) has a release due.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { createIngestHandler } from '../../shared/sources/ingest-handler';
import type { RunResult } from '../../shared/sources/runner';
import { runUntilNew } from '../../shared/sources/until-new';
import type { FetchLike } from '../../shared/sources/types';
import { startTestStore, type TestStore } from '../helpers/store';

/** Monday 23 November 2026, 16:15:30 EST: half a minute after the H.10's release instant. */
const NOW = new Date('2026-11-23T21:15:30Z');
/** Friday 20 November 2026, 17:00 EST: no H.10 due. */
const NO_RELEASE = new Date('2026-11-20T22:00:00Z');
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

  const handlerWith = (fetch: FetchLike, sleeps: number[], attempts = 5, now = NOW) =>
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
      now: () => now,
      untilNew: { attempts, everyMs: 45_000, sleep: async (ms) => void sleeps.push(ms) },
    });

  it('polls while the publisher still serves the old figure (twice), and stops at the new one', async () => {
    const p = publisher(4);
    const sleeps: number[] = [];
    // The day before is stored first (a regular run: poll 1).
    expect(await handlerWith(p.fetch, [])({ source: 'fred' })).toMatchObject({ status: 'ok' });
    expect(p.polls()).toBe(1);
    const result = await handlerWith(p.fetch, sleeps)({ source: 'fred', until_new: true });
    // Polls 2 and 3 old, poll 4 new: three runs, two waits, and no poll after the new figure.
    expect(result).toMatchObject({ status: 'ok', polls: 3 });
    expect(sleeps).toEqual([45_000, 45_000]);
    expect(p.polls()).toBe(4);
    expect(await t.store.latest('PRICE#EURUSD')).toMatchObject({ as_of: '2026-11-20', value: 1.0842 });
  });

  it('is bounded: a figure that never comes ends after the attempts, without failing', async () => {
    const p = publisher(Number.POSITIVE_INFINITY);
    const sleeps: number[] = [];
    const result = await handlerWith(p.fetch, sleeps, 3)({ source: 'fred', until_new: true });
    expect(result).toMatchObject({ status: 'ok', polls: 3 });
    expect(sleeps).toHaveLength(2);
    expect(p.polls()).toBe(3);
  });

  it('runs once when no release is due (a holiday slot on a regular week)', async () => {
    const p = publisher(Number.POSITIVE_INFINITY);
    const sleeps: number[] = [];
    const result = await handlerWith(p.fetch, sleeps, 5, NO_RELEASE)({ source: 'fred', until_new: true });
    expect(result).toMatchObject({ status: 'ok' });
    expect(sleeps).toEqual([]);
    expect(p.polls()).toBe(1);
  });
});

describe('runUntilNew inside a 5-minute invocation', () => {
  it('starts no wait that another run (twice the slowest) would not finish in time', async () => {
    // SYNTHETIC: a source whose run takes 50 s, in a function with 300 s, polled every 45 s.
    let clock = 0;
    const run = async (): Promise<RunResult> => {
      clock += 50_000;
      return { source: 'slow', status: 'ok', items: 1, message: 'ok' };
    };
    const result = await runUntilNew(run, async () => '2026-11-19', {
      attempts: 5,
      everyMs: 45_000,
      sleep: async (ms) => {
        clock += ms;
      },
      nowMs: () => clock,
      timeLeftMs: () => 300_000 - clock,
    });
    // 50 s, wait, 50 s (145 s), wait, 50 s (240 s): a fourth would end at 335 s, past the timeout.
    expect(result.polls).toBe(3);
    expect(clock).toBe(240_000);
  });
});
