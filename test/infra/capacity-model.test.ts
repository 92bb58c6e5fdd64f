/**
 * `npm run capacity` on its own model: the prod template's settings and the measured item sizes
 * hold 1,000 paid calls/s in each lane (and the three at once) with no limit of the template or of
 * DynamoDB's partitions reached, once the named account quotas are raised; 10,000 reaches the
 * stage throttle. Write units per call are worked out here by hand from the measured sizes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rowsOf, settingsFromTemplates, sizes, TARGET } from '../../tools/capacity';
import { laneLoad, writesPerCall } from '../../tools/capacity/model';

describe('capacity model (npm run capacity)', () => {
  const s = settingsFromTemplates();
  const z = sizes();
  const rows = rowsOf(s, z);

  it('reads the prod template: stage throttle, projections, the settler and the edge', () => {
    expect(s).toMatchObject({ stageRateLimit: 5_000, watchIndexProjection: 'INCLUDE', salesIndexProjection: 'INCLUDE', edge: true });
    expect(s.settler).toEqual({ everyMinutes: 10, timeoutSeconds: 540, memoryMb: 2048 });
  });

  it('counts the write units of an exact call from the measured sizes: 7 with projected indexes, 10 with whole-item copies', () => {
    // claim 1,541 B: 2 units; settle billed on the larger of before and after: 2; watch copy
    // (398 B) written and deleted: 1 + 1; sales copy (858 B): 1.
    expect(z.exactClaim).toBeGreaterThan(1024);
    const w = writesPerCall('x402-exact', s, z) as { table: number; watch: number; sales: number };
    expect(w.table + w.watch + w.sales).toBe(2 + 2 + 1 + 1 + 1);
    const all = writesPerCall('x402-exact', { ...s, watchIndexProjection: 'ALL', salesIndexProjection: 'ALL' }, z) as typeof w;
    expect(all.table + all.watch + all.sales).toBe(2 + 2 + 2 + 2 + 1);
    // the watch index's 16 shards: 8,000 exact calls/s projected, 4,000 with whole items
    expect(laneLoad('x402-exact', 8_000, s, z).hottest.wcu).toBe(1_000);
    expect(laneLoad('x402-exact', 4_000, { ...s, watchIndexProjection: 'ALL' }, z).hottest.wcu).toBe(1_000);
  });

  it(`meets ${TARGET} paid calls/s per lane and all three at once with no template or partition limit hit; names the quotas to raise`, () => {
    const target = rows.filter((r) => r.rate === TARGET);
    expect(target.map((r) => [r.lane, r.firstHardLimit])).toEqual([
      ['x402-exact', null],
      ['x402-batch', null],
      ['pro', null],
      ['all three', null],
    ]);
    const quotas = new Set(target.flatMap((r) => r.quotasToRaise.map((q) => q.name)));
    expect([...quotas].sort()).toEqual(['AWS Lambda: Concurrent executions', expect.stringMatching(/^DynamoDB: warm throughput of the Credits table/)]);
  });

  it('at 10,000 paid calls/s the exact and Pro lanes reach the stage throttle, the batch lane the settler pass', () => {
    const at = (lane: string) => rows.find((r) => r.rate === 10_000 && r.lane === lane)!.firstHardLimit;
    expect(at('x402-exact')).toMatch(/^stage throttle/);
    expect(at('pro')).toMatch(/^stage throttle/);
    expect(at('x402-batch')).toMatch(/^settler pass time/);
  });

  it("the README's scale table states the write units the model computes from the measured sizes", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const scale = readme.slice(readme.indexOf('\n## Scale'));
    const per = (lane: 'x402-exact' | 'x402-batch' | 'pro') => {
      const w = writesPerCall(lane, s, z) as unknown as Record<string, number>;
      return lane === 'x402-exact' ? w.table! + w.watch! + w.sales! : w.table!;
    };
    expect(scale).toContain(`| x402 exact | ${per('x402-exact')} WCU`);
    expect(scale).toContain(`| x402 batch | ${per('x402-batch')} WCU`);
    expect(scale).toContain(`| Pro | ${per('pro')} WCU`);
    for (const [k, v] of Object.entries(z)) expect(scale, k).toContain(`${k} ${v}`);
  });
});
