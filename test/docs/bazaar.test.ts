/**
 * Every 402 challenge declares the x402 Bazaar discovery extension, and the official
 * @x402/extensions helpers parse it: method, parameters, route template for path routes,
 * service metadata, and a PAYMENT-REQUIRED header that still fits API Gateway's limits.
 */
import { extractDiscoveryInfo, validateDiscoveryExtension } from '@x402/extensions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { isChargeable, PAID_ROUTES } from '../../shared/routes/table';
import { getJson, startTestStack } from '../helpers/stack';

const SAMPLE: Record<string, string> = { code: 'CL', root: 'CL', pair: 'EURUSD', series: 'crude_ex_spr', sector: 'energy' };

describe('x402 Bazaar discovery extension', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: '1' }, false);
  });
  afterAll(() => stack?.close());

  it('is declared on every chargeable route and parsed by @x402/extensions', async () => {
    for (const r of PAID_ROUTES.filter((x) => isChargeable(x, stack.config))) {
      const path = r.path.replace(/\{(\w+)\}/g, (_m, p: string) => SAMPLE[p]!) + (r.id === 'GET /v1/prices' ? '?codes=CL,NG' : '');
      const res = await getJson(stack.url, path);
      expect(res.status, r.id).toBe(402);
      const bazaar = res.body.extensions?.bazaar;
      expect(validateDiscoveryExtension(bazaar), r.id).toEqual({ valid: true });
      expect(bazaar.info.input).toMatchObject({ type: 'http', method: 'GET' });
      if (r.path.includes('{')) expect(bazaar.routeTemplate, r.id).toBe(r.path.replace(/\{(\w+)\}/g, ':$1'));
      expect(JSON.stringify(bazaar)).not.toContain('$ref');
      expect(res.body.resource).toMatchObject({ serviceName: expect.any(String), tags: expect.arrayContaining(['commodities', r.family]) });
      const accepted = res.body.accepts[0];
      const found = extractDiscoveryInfo(
        { x402Version: 2, resource: res.body.resource, accepted, payload: {}, extensions: res.body.extensions } as never,
        accepted,
      );
      expect(found, r.id).not.toBeNull();
      // Indexers list a path route once, by its template.
      expect(found!.resourceUrl.split('?')[0]).toBe(`${stack.url}${r.path.replace(/\{(\w+)\}/g, ':$1')}`);
      expect(res.headers.get('payment-required')!.length, `${r.id} header size`).toBeLessThan(8_000);
    }
  });
});
