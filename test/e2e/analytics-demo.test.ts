/**
 * Demo mode (enforcement off, every source replayed from its bundled samples): every spreads,
 * curve, snapshot and decision route answers, and every observation in every body passes the
 * contract. Values other engineers' samples decide are checked for shape, not for figures;
 * the figures are hand-checked in the seeded tests (spreads, snapshot, decision).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { ROUTES } from '../../shared/routes';
import { expectObservation } from '../helpers/contract';
import { getJson, startTestStack } from '../helpers/stack';
import { walkObservations } from '../helpers/walk-observations';

const PATHS = [
  '/v1/spreads/crack',
  '/v1/spreads/crush',
  '/v1/spreads/basis',
  '/v1/curve/CL',
  '/v1/spreads/calendar/NG',
  '/v1/snapshot/energy?view=full',
  '/v1/snapshot/metals?view=full',
  '/v1/snapshot/ags?view=full',
  '/v1/snapshot/all?view=full',
  '/v1/decision/energy?view=full',
  '/v1/decision/metals?view=full',
  '/v1/decision/ags?view=full',
  '/v1/decision/all?view=full',
];

describe('spreads, curve, snapshot and decision routes in demo mode (replayed samples)', () => {
  let stack: LocalStack;
  const get = (path: string) => getJson(stack.url, path);
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.close());

  it('covers every route of the four families', () => {
    const families = new Set(['spreads', 'curve', 'snapshot', 'decision']);
    const templates = ROUTES.filter((r) => families.has(r.family)).map((r) => r.path);
    const covered = (t: string) => PATHS.some((p) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(p.split('?')[0]!));
    expect(templates.filter((t) => !covered(t))).toEqual([]);
  });

  it.each(PATHS)('GET %s answers 200 with contract observations only', async (path) => {
    const res = await get(path);
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(200);
    const found = walkObservations(res.body);
    found.forEach(expectObservation);
    // stubs carry none; every other answer carries some
    expect(found.length > 0).toBe(res.body.stub !== true);
    expect(JSON.stringify(res.body)).not.toMatch(/NaN|Infinity/);
  });

  // The decision bundle is the three sector packs together; its compact view keeps only the rule
  // evaluations that fired (with every one it measured 36 KB on these samples).
  it.each([
    ['/v1/snapshot/energy', 32],
    ['/v1/snapshot/metals', 32],
    ['/v1/snapshot/ags', 32],
    ['/v1/snapshot/all', 32],
    ['/v1/decision/energy', 32],
    ['/v1/decision/metals', 32],
    ['/v1/decision/ags', 32],
    ['/v1/decision/all', 32],
  ])('GET %s (compact by default) is under %i KB and states how to get the full view', async (path, kb) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(Buffer.byteLength(JSON.stringify(res.body))).toBeLessThan(kb * 1024);
    expect(res.body).toMatchObject({ view: 'compact', full_view: `${path}?view=full` });
    expect(walkObservations(res.body)).toEqual([]); // headline figures and references, not observations
  });

  it('the basis comes from the EIA samples of 2026-08-18; the crack is unaligned (its product legs end 2025-06-16)', async () => {
    // WTI 86.48 - Brent 95.29 on 2026-08-18; the crack is worked by hand in test/e2e/spreads.test.ts.
    expect((await get('/v1/spreads/basis')).body.observation).toMatchObject({ value: -8.81, as_of: '2026-08-18' });
    expect((await get('/v1/spreads/crack')).body).toMatchObject({ aligned: false, observation: { value: 7.628, as_of: '2025-06-16' } });
  });

  it('the crush of World Bank legs is monthly and at best derived, its legs aligned on one month', async () => {
    const b = (await get('/v1/spreads/crush')).body;
    expect(b.aligned).toBe(true);
    expect(b.observation.freshness_class).toBe('monthly');
    expect(['derived', 'indicative']).toContain(b.observation.quality);
    expect(new Set(b.legs.map((l: any) => l.observation.as_of)).size).toBe(1);
    // the formula holds on the served legs
    const v = Object.fromEntries(b.legs.map((l: any) => [l.instrument, l.observation.value]));
    expect(b.observation.value).toBeCloseTo(v.ZM * 0.022 + v.ZL * 11 - v.ZS, 4);
  });

  it('the curve routes are free stubs while INDICATIVE_FUTURES is off', async () => {
    expect((await get('/v1/spreads/calendar/NG')).body).toMatchObject({ stub: true, charged: false, observations: [] });
  });

  it('the default decision bundle repeats byte for byte, cold or warm', async () => {
    stack.services.cache.clear();
    const cold = await fetch(`${stack.url}/v1/decision/all`).then((r) => r.text());
    const warm = await fetch(`${stack.url}/v1/decision/all`).then((r) => r.text());
    expect(warm).toBe(cold);
  });
});
