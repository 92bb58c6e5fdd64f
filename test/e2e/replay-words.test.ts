/**
 * Words that follow from enough data, and labels that say what is served (issue 34), on the
 * replayed samples: at the audit's instants palladium's balanced book is not "crowded long" and
 * names no price, ten weeks of daily points are not a 1-year history for NG or the crack; crop
 * progress is not labelled "progress and condition" where no condition is served.
 *
 * Figures from the recorded publications (../shared/fixtures): the CFTC report of 2026-02-03
 * (released 2026-02-06) has palladium managed money long 5,815, short 5,364, open interest 17,304.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { HAVE_FIXTURES } from '../helpers/fixtures';
import { getJson, startTestStack } from '../helpers/stack';

type Evaluation = { rule: string; signal: string; fired: boolean; reason: string; values: Record<string, unknown> };
type Signal = { instrument: string; signal: string; score: number; signal_for: string; evaluations: Evaluation[] };

describe.runIf(HAVE_FIXTURES)('words and labels on the replayed samples', () => {
  let stack: LocalStack;
  const pack = async (path: string) => {
    const res = await getJson(stack.url, path);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    return res.body as { signals: Signal[]; summary: { bias: string } };
  };
  const signal = (body: { signals: Signal[] }, code: string) => body.signals.find((s) => s.instrument === code)!;
  beforeAll(async () => {
    stack = await startTestStack();
  }, 300_000);
  afterAll(async () => stack?.close());

  it('metals at 2026-02-11T15:31Z: palladium net long 451 (2.6 % of open interest) is no positioning word, names no price, counts for nothing', async () => {
    const body = await pack('/v1/decision/metals?as_known_at=2026-02-11T15:31:00Z&view=full');
    const pa = signal(body, 'PA');
    expect(pa).toMatchObject({ signal: 'neutral', score: 0 });
    const [cot] = pa.evaluations;
    expect(cot).toMatchObject({ rule: 'managed_money_percentile', signal: 'neutral', fired: false });
    // 5,815 - 5,364 = 451; 100 x 451 / 17,304 = 2.61
    expect(cot!.values).toMatchObject({ net: 451, net_pct_oi: 2.61 });
    expect(cot!.reason).not.toMatch(/crowded/);
    expect(pa.signal_for).not.toMatch(/PA price$/);
    // No instrument without a price read by the pack names a price.
    for (const s of body.signals) {
      if (!s.evaluations.some((e) => e.rule === 'price_range_1y')) expect(s.signal_for, s.instrument).not.toMatch(/ price$/);
    }
  });

  it('energy at 2024-03-15T18:00Z: 49 daily points are insufficient history for NG and the crack, not a word', async () => {
    const body = await pack('/v1/decision/energy?as_known_at=2024-03-15T18:00:00Z&view=full');
    const ng = signal(body, 'NG').evaluations.find((e) => e.rule === 'price_range_1y')!;
    expect(ng).toMatchObject({ signal: 'neutral', fired: false, values: { position_pct: null } });
    expect(ng.reason).toMatch(/^insufficient history for a 1-year range: /);
    expect(ng.reason).not.toMatch(/near the 1-year/);
    const crack = signal(body, 'CRACK_3_2_1').evaluations[0]!;
    expect(crack).toMatchObject({ rule: 'spread_vs_history', signal: 'neutral', fired: false, values: { percentile: null } });
    expect(crack.reason).toMatch(/^insufficient history for a 1-year comparison: /);
    // Every window rule of the pack either covers its year or says so.
    for (const s of body.signals)
      for (const e of s.evaluations.filter((x) => x.rule === 'price_range_1y' || x.rule === 'spread_vs_history')) {
        if (e.fired) expect(e.values.coverage_pct as number, `${s.instrument} ${e.rule}`).toBeGreaterThanOrEqual(90);
      }
  });

  it('crop progress: the replay serves stages and no condition, and /health, the catalog and the route say so', async () => {
    const res = await getJson(stack.url, '/v1/fundamentals/crop-progress?view=full');
    expect(res.status).toBe(200);
    const statistics = res.body.commodities.flatMap((c: { statistics: Array<{ statistic: string }> }) => c.statistics.map((x) => x.statistic));
    expect(statistics.length).toBeGreaterThan(0);
    expect(statistics.filter((x: string) => x.includes('condition'))).toEqual([]);
    const nass = (await getJson(stack.url, '/health')).body.sources.find((s: { id: string }) => s.id === 'usda-nass-crop-progress');
    expect(nass.feeds).not.toMatch(/progress and condition/);
    expect(nass.feeds).toBe('corn, soybeans, wheat progress by stage; condition from live runs only');
    const route = (await getJson(stack.url, '/v1/catalog')).body.routes.find((r: { id: string }) => r.id === 'GET /v1/fundamentals/crop-progress');
    expect(route.summary).toBe('Crop progress by stage (condition from live runs only)');
  });
});
