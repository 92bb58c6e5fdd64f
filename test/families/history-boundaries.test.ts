/**
 * History paging boundaries, on the in-memory store through the real family handler (middy
 * stack, route validation, payment in demo mode). The series is synthetic: one CL point per
 * calendar day, value = day number, so every count below is worked out from the dates alone.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { addDays } from '../../shared/dates';
import { priceHandlers } from '../../shared/families/price/handlers';
import { createFamilyHandler } from '../../shared/http/family-handler';
import { PRICE_ROUTES } from '../../shared/routes/table';
import { HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT } from '../../shared/routes';
import { createServices } from '../../shared/services';
import { MemoryObservationStore } from '../../shared/store/memory-observation-store';
import { priceObs } from '../helpers/seed-observations';

const FIRST = '2022-01-01';
const DAYS = 1500; // 2022-01-01 .. 2026-02-08 (synthetic)
const LAST = addDays(FIRST, DAYS - 1);

const event = (query: Record<string, string>): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: 'GET /v1/history/{code}',
    rawPath: '/v1/history/CL',
    rawQueryString: new URLSearchParams(query).toString(),
    headers: {},
    queryStringParameters: query,
    pathParameters: { code: 'CL' },
    requestContext: { requestId: 'req-h', http: { method: 'GET', path: '/v1/history/CL' } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

describe('GET /v1/history/{code}: limits and the last page', () => {
  const store = new MemoryObservationStore();
  const services = createServices(loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c' }), { store });
  const handler = createFamilyHandler(PRICE_ROUTES, priceHandlers, () => services);
  const call = async (query: Record<string, string>) => {
    const res = await handler(event(query), { awsRequestId: 'a' } as Context);
    return { status: res.statusCode, body: JSON.parse(res.body!) };
  };

  beforeAll(async () => {
    await store.upsertMany(Array.from({ length: DAYS }, (_, i) => priceObs('CL', addDays(FIRST, i), i + 1)));
  });

  it('accepts the largest limit and refuses one more', async () => {
    expect(HISTORY_MAX_LIMIT).toBe(1000);
    const max = await call({ start: FIRST, limit: '1000' });
    expect(max.status).toBe(200);
    expect(max.body).toMatchObject({ total: DAYS, returned: 1000, truncated: true, next: addDays(FIRST, 999) });
    const over = await call({ start: FIRST, limit: '1001' });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'INVALID_PARAMETER', details: { issues: [{ path: 'limit' }] } });
  });

  it('applies the default limit when the window holds more points than it', async () => {
    expect(HISTORY_DEFAULT_LIMIT).toBe(365);
    // Default window: one year before the latest point, both ends included = 366 days (2025-02-08 .. 2026-02-08).
    const res = await call({});
    expect(res.body).toMatchObject({ start: '2025-02-08', end: LAST, total: 366, returned: 365, truncated: true, next: '2026-02-07' });
    const rest = await call({ cursor: res.body.next });
    expect(rest.body).toMatchObject({ returned: 1, truncated: false, next: null });
    expect(rest.body.observations[0]).toMatchObject({ as_of: LAST, value: DAYS });
  });

  it('reports a last page that is exactly full as not truncated, with no next cursor', async () => {
    // 2022-01-01 .. 2022-01-24 is 24 days: two pages of 12.
    const first = await call({ start: FIRST, end: '2022-01-24', limit: '12' });
    expect(first.body).toMatchObject({ total: 24, returned: 12, truncated: true, next: '2022-01-12' });
    const last = await call({ start: FIRST, end: '2022-01-24', limit: '12', cursor: first.body.next });
    expect(last.body).toMatchObject({ total: 24, returned: 12, truncated: false, next: null });
    expect(last.body.observations.at(-1)).toMatchObject({ as_of: '2022-01-24', value: 24 });
  });
});
