/**
 * `npm run capacity` on its own model: the prod template's settings and the measured item sizes
 * hold 1,000 paid calls/s in each lane (and the three at once) with no limit of the template or of
 * DynamoDB's partitions reached, once the named account quotas are raised; 10,000 reaches the
 * stage throttle (and the batch lane its channel shards: the settler's pass fits its settings). Write units per call are worked out here by hand from the measured sizes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rowsOf, settingsFromTemplates, sizes, TARGET } from '../../tools/capacity';
import { laneLoad, settlerPass, writesPerCall } from '../../tools/capacity/model';

describe('capacity model (npm run capacity)', () => {
  const s = settingsFromTemplates();
  const z = sizes();
  const rows = rowsOf(s, z);

  it('reads the prod template: stage throttle, projections, the settler and the edge', () => {
    expect(s).toMatchObject({ stageRateLimit: 5_000, watchIndexProjection: 'INCLUDE', salesIndexProjection: 'INCLUDE', edge: true });
    expect(s.settler).toEqual({ everyMinutes: 10, timeoutSeconds: 540, memoryMb: 2048, pageSize: 2_000, claimConcurrency: 4, closeConcurrency: 32 });
    expect(s.deferred).toMatchObject({ batchSize: 10, parallelizationFactor: 10 });
  });

  it("restates the exact lane with issue 38's deferral: cheap calls hold their function 79.5 ms, the stream worker settles them in batches", () => {
    // 1,000 exact calls/s: the 402 (10 ms) and the paid call, 90% deferred (79.5 ms) and 10% settled
    // first (1,710 ms): 1,000 x (10 + 71.55 + 171) ms = 252.55 executions; the worker settles 900
    // claims/s, 10 per execution of 2.06 s: 185.4 executions.
    const l = laneLoad('x402-exact', 1_000, s, z);
    expect(l.deferredConcurrency).toBeCloseTo(185.4, 6);
    expect(l.concurrency).toBeCloseTo(252.55 + 185.4, 6);
    // its stream: 10 executions per shard x 10 claims / 2.06 s = 48.5 claims/s per shard, 19 shards for 900/s
    expect(l.deferredShardsNeeded).toBe(19);
  });

  it('the settler pass scales with its settings: 10,000 batch calls/s fits the prod settings, not the defaults', () => {
    const budget = Math.min(s.settler.everyMinutes * 60, s.settler.timeoutSeconds - 60);
    expect(budget).toBe(480);
    // 10,000 calls/s at 1 call/s per channel: 10,000 channels, 100 claim transactions of 2.06 s, 4 at once
    const prod = settlerPass(10_000, s);
    expect(prod.parts.claimS).toBeCloseTo((100 * 2.06) / 4, 6);
    expect(prod.seconds).toBeLessThan(budget);
    // twice the closings in flight: the closing part halves
    expect(settlerPass(10_000, { ...s, settler: { ...s.settler, closeConcurrency: 64 } }).parts.closeS).toBeCloseTo(prod.parts.closeS / 2, 6);
    // the defaults (one claim at a time, four closings) take over the budget at 10,000/s and fit at 1,000/s
    const defaults = { ...s, settler: { ...s.settler, pageSize: 1_000, claimConcurrency: 1, closeConcurrency: 4 } };
    expect(settlerPass(10_000, defaults).seconds).toBeGreaterThan(budget);
    expect(settlerPass(1_000, defaults).seconds).toBeLessThan(budget);
    // memory: pages in flight, not the open sales (6 million at 10,000/s)
    expect(prod.heldMb).toBeLessThan(s.settler.memoryMb / 10);
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
    // With deferral the three lanes keep about 460 executions busy: the default 1,000 holds them.
    expect([...quotas].sort()).toEqual([expect.stringMatching(/^DynamoDB: warm throughput of the Credits table/)]);
  });

  it('at 10,000 paid calls/s the exact and Pro lanes reach the stage throttle, the batch lane its channel shards (not the settler)', () => {
    const at = (lane: string) => rows.find((r) => r.rate === 10_000 && r.lane === lane)!.firstHardLimit;
    expect(at('x402-exact')).toMatch(/^stage throttle/);
    expect(at('pro')).toMatch(/^stage throttle/);
    expect(at('x402-batch')).toMatch(/^partition write units .*X402CHANNEL/);
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
