/**
 * A store that does not answer is a 503 STORE_UNAVAILABLE with retryable: true on every family
 * (health included), never a 500, and never charged.
 */
import { createServer } from 'node:net';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { FAMILY_HANDLERS } from '../../shared/families';
import { createFamilyHandler } from '../../shared/http/family-handler';
import { FAMILY_ROUTES } from '../../shared/routes/table';
import { createServices } from '../../shared/services';

/** A port nothing listens on. */
const closedPort = async () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const event = (routeKey: string, rawPath: string, pathParameters: Record<string, string> = {}): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString: '',
    headers: { host: '127.0.0.1' },
    pathParameters,
    requestContext: { requestId: 'outage', domainName: '127.0.0.1', http: { method: routeKey.split(' ')[0], path: rawPath } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

describe('store outage', () => {
  it('answers 503 STORE_UNAVAILABLE (retryable) on data routes and /health, in prod stage too', async () => {
    const port = await closedPort();
    const config = loadConfig({
      OBSERVATIONS_TABLE: 'obs',
      CREDITS_TABLE: 'cred',
      STAGE: 'prod',
      PUBLIC_BASE_URL: 'https://data.example.com',
      DYNAMODB_ENDPOINT: `http://127.0.0.1:${port}`,
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'x',
    });
    const services = createServices(config);
    const cases = [
      ['price', 'GET /v1/price/{code}', '/v1/price/CL', { code: 'CL' }],
      ['discovery', 'GET /health', '/health', {}],
      ['inventory', 'GET /v1/inventory/eia', '/v1/inventory/eia', {}],
    ] as const;
    for (const [family, key, path, params] of cases) {
      const handler = createFamilyHandler(FAMILY_ROUTES[family], FAMILY_HANDLERS[family] as never, () => services);
      const res = await handler(event(key, path, params), { awsRequestId: 'x' } as Context);
      expect(res.statusCode, key).toBe(503);
      expect(JSON.parse(res.body!).error).toMatchObject({ code: 'STORE_UNAVAILABLE', retryable: true });
    }
  }, 60_000);
});
