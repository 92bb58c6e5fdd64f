/**
 * The `as_known_at` wrapper of the data families (shared/families/point-in-time.ts) through the real
 * family handler on the in-memory store, with the service's clock fixed: the instant is checked
 * against that clock, the route's reads and staleness are those of the instant, and NO_DATA there is
 * a 404 naming each series' first publication. Figures are synthetic (one CL price per weekday,
 * published the next day at 15:30Z).
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { sameInstant } from '../../shared/families/point-in-time';
import { priceHandlers } from '../../shared/families/price/handlers';
import { createFamilyHandler } from '../../shared/http/family-handler';
import { PRICE_ROUTES } from '../../shared/routes/table';
import { createServices } from '../../shared/services';
import { MemoryObservationStore } from '../../shared/store/memory-observation-store';
import { priceObs, weekdaySeries } from '../helpers/seed-observations';

const NOW = new Date('2026-03-02T12:00:00Z');

const event = (routeKey: string, path: string, pathParameters: Record<string, string>, query: Record<string, string>): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: new URLSearchParams(query).toString(),
    headers: {},
    queryStringParameters: query,
    pathParameters,
    requestContext: { requestId: 'req-pit', http: { method: 'GET', path } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

const nextDay = (d: string) => new Date(Date.parse(`${d}T15:30:00Z`) + 86_400_000).toISOString();

describe('as_known_at through the price family handler (fixed clock)', () => {
  const store = new MemoryObservationStore();
  const services = createServices(loadConfig({ OBSERVATIONS_TABLE: 'obs', CREDITS_TABLE: 'cred' }), { store, now: () => NOW });
  const handler = createFamilyHandler(PRICE_ROUTES, priceHandlers, () => services);
  const seeded = store.upsertMany(
    weekdaySeries('CL', '2026-02-27', [70, 71, 72, 73, 74, 75, 76, 77, 78, 79]).map((i) => ({
      ...i,
      observation: { ...i.observation, published_at: nextDay(i.observation.as_of) },
    })),
  );
  const price = async (query: Record<string, string>) => {
    await seeded;
    const res = await handler(event('GET /v1/price/{code}', '/v1/price/CL', { code: 'CL' }, query), { awsRequestId: 'a' } as Context);
    return { status: res.statusCode, body: JSON.parse(res.body as string) };
  };

  it("refuses an instant after the service's clock (the process clock is later: only the handler can tell)", async () => {
    const res = await price({ as_known_at: '2026-03-02T12:00:01Z' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_PARAMETER', details: { issues: [{ path: 'as_known_at' }] } });
    expect((await price({ as_known_at: '2026-03-02T12:00:00Z' })).status).toBe(200);
  });

  it('answers the figure published by the instant and judges its staleness there', async () => {
    // 2026-02-16 (value 70) was published 2026-02-17 15:30Z; a minute earlier only nothing was out.
    const first = await price({ as_known_at: '2026-02-17T15:30:00Z' });
    expect(first.body).toMatchObject({ as_of: '2026-02-16', value: 70, provenance: { stale: false } });
    // Judged on 2026-03-02, the same figure is stale (14 days > 10): at the instant it was fresh.
    await store.upsertMany([priceObs('BZ', '2026-02-16', 65, { published_at: nextDay('2026-02-16') })]);
    const bz = await handler(event('GET /v1/price/{code}', '/v1/price/BZ', { code: 'BZ' }, {}), { awsRequestId: 'b' } as Context);
    expect(JSON.parse(bz.body as string).provenance.stale).toBe(true);
  });

  it('answers NO_DATA before the first publication as a 404 naming it, not the 503 of a store waiting for data', async () => {
    const res = await price({ as_known_at: '2026-02-17T15:29:59Z' });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      code: 'NO_DATA',
      retryable: false,
      details: { as_known_at: '2026-02-17T15:29:59.000Z', first_known_from: '2026-02-17T15:30:00.000Z' },
    });
    expect((await handler(event('GET /v1/price/{code}', '/v1/price/HO', { code: 'HO' }, {}), { awsRequestId: 'c' } as Context)).statusCode).toBe(503);
  });

  it('lists codes without a figure at the instant as missing; with none, NO_DATA names when the last of them came out', async () => {
    await seeded;
    await store.upsertMany([priceObs('NG', '2026-02-25', 3.1, { published_at: nextDay('2026-02-25') })]);
    const call = async (as_known_at: string) => {
      const res = await handler(event('GET /v1/prices', '/v1/prices', {}, { codes: 'CL,BZ,NG', as_known_at }), { awsRequestId: 'd' } as Context);
      return { status: res.statusCode, body: JSON.parse(res.body as string) };
    };
    const partial = await call('2026-02-20T00:00:00Z');
    expect(partial.body.observations.map((o: any) => [o.instrument, o.as_of])).toEqual([
      ['CL', '2026-02-18'],
      ['BZ', '2026-02-16'],
    ]);
    expect(partial.body.missing).toEqual([{ instrument: 'NG', reason: 'nothing published by 2026-02-20T00:00:00.000Z' }]);
    const none = await call('2026-02-01T00:00:00Z');
    expect(none.status).toBe(404);
    expect(none.body.error.details).toMatchObject({
      first_known_from: '2026-02-26T15:30:00.000Z',
      first_known_from_by_series: { 'PRICE#BZ': '2026-02-17T15:30:00.000Z', 'PRICE#CL': '2026-02-17T15:30:00.000Z', 'PRICE#NG': '2026-02-26T15:30:00.000Z' },
    });
  });
});

describe('sameInstant', () => {
  it('links another view at the instant asked for, and leaves the link alone without one', () => {
    expect(sameInstant({ asKnownAt: '2026-02-11T15:31:00.000Z' }, '/v1/snapshot/energy?view=full')).toBe(
      '/v1/snapshot/energy?view=full&as_known_at=2026-02-11T15%3A31%3A00.000Z',
    );
    expect(sameInstant({}, '/v1/snapshot/energy?view=full')).toBe('/v1/snapshot/energy?view=full');
  });
});
