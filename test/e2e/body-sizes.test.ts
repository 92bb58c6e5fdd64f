/**
 * The typical body sizes the discovery documents state (shared/routes/body-sizes.ts), re-measured:
 * every paid route has one, its example answers 200 within ±50 % of it, and every default answer
 * but a history page is under the 32 KB budget (issue 9: bodies sized for agents).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { HISTORY_PAGES, TYPICAL_BODY } from '../../shared/routes/body-sizes';
import { PAID_ROUTES, type RouteId } from '../../shared/routes/table';
import { getJson, startTestStack } from '../helpers/stack';

describe('typical body sizes (replayed samples)', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    // A day on which every spread's legs share a recent date (the crack's products end 2025-06-16):
    // later, a multi-leg figure has no value (404 NO_DATA) and its example could not be measured.
    stack = await startTestStack({}, true, { now: () => new Date('2025-06-17T15:00:00Z') });
  });
  afterAll(async () => stack?.close());

  it('every paid route states one, measured with a request of that route', () => {
    expect(PAID_ROUTES.filter((r) => !TYPICAL_BODY[r.id]).map((r) => r.id)).toEqual([]);
    for (const r of PAID_ROUTES) {
      const pattern = new RegExp(`^${r.path.replace(/\{[^}]+\}/g, '[^/?]+')}(\\?|$)`);
      expect(TYPICAL_BODY[r.id]!.example, r.id).toMatch(pattern);
    }
  });

  it.each(Object.entries(TYPICAL_BODY) as Array<[RouteId, { example: string; kb: number }]>)(
    '%s: the example is within ±50 %% of the stated size',
    async (id, t) => {
      const res = await getJson(stack.url, t.example);
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
      const kb = Buffer.byteLength(JSON.stringify(res.body)) / 1024;
      expect(kb, `${t.example} is ${kb.toFixed(1)} KB`).toBeGreaterThanOrEqual(t.kb * 0.5);
      expect(kb, `${t.example} is ${kb.toFixed(1)} KB`).toBeLessThanOrEqual(t.kb * 1.5);
      if (!HISTORY_PAGES.has(id)) expect(kb).toBeLessThan(32);
    },
  );

  it('OpenAPI and /.well-known/x402 state them', async () => {
    const openapi = (await getJson(stack.url, '/openapi.json')).body;
    expect(openapi.paths['/v1/inventory/eia'].get).toMatchObject({ 'x-typical-body-kb': TYPICAL_BODY['GET /v1/inventory/eia']!.kb });
    expect(openapi.paths['/v1/inventory/eia'].get.description).toContain(`Typical answer: about ${TYPICAL_BODY['GET /v1/inventory/eia']!.kb} KB.`);
    const x402 = (await getJson(stack.url, '/.well-known/x402.json')).body;
    const cot = x402.resources.find((r: any) => r.route === 'GET /v1/cot/{code}');
    expect(cot.typical_body_kb).toBe(TYPICAL_BODY['GET /v1/cot/{code}']!.kb);
  });
});
