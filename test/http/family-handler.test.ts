import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { mapError } from '../../shared/errors/error-mapper';
import { NotFoundError, ServiceUnavailableError } from '../../shared/errors/errors';
import { DISCOVERY_ROUTES, PRICE_ROUTES } from '../../shared/routes/table';
import { discoveryHandlers } from '../../shared/families/discovery/handlers';
import { createFamilyHandler, createFreeFamilyHandler } from '../../shared/http/family-handler';
import type { FamilyHandlers } from '../../shared/http/types';
import { createFreeServices, createServices, type Services } from '../../shared/services';
import { MemoryObservationStore } from '../../shared/store/memory-observation-store';

const event = (routeKey: string, pathParameters?: Record<string, string>, headers: Record<string, string> = {}): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey,
    rawPath: '/x',
    rawQueryString: '',
    headers,
    pathParameters,
    requestContext: { requestId: 'req-1', http: { method: 'GET', path: '/x' } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;
const context = { awsRequestId: 'aws-1' } as Context;

const depsFor = (stage: 'dev' | 'prod'): (() => Services) => {
  const services = createServices(loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', STAGE: stage }), { store: new MemoryObservationStore() });
  return () => services;
};

const handlersThatThrow = (err: unknown): FamilyHandlers<'price'> => ({
  'GET /v1/price/{code}': async () => {
    throw err;
  },
  // Bodies that are not the routes' shapes: these tests exercise the pipeline, not the data.
  'GET /v1/prices': async () => ({ body: {} as never }),
  'GET /v1/history/{code}': async () => ({ body: {} as never }),
  'GET /v1/fx/{pair}': async (req) => ({ body: { pair: req.params.pair } as never }),
});

describe('family handler (middy stack)', () => {
  it('refuses to build when a route of the family has no handler (and tsc refuses to compile it)', () => {
    // @ts-expect-error three of the price family's four handlers are missing
    const incomplete: FamilyHandlers<'price'> = { 'GET /v1/prices': async () => ({ body: {} }) };
    expect(() => createFamilyHandler(PRICE_ROUTES, incomplete, depsFor('prod'))).toThrow(/no handler for: GET \/v1\/price\/\{code\}/);
  });

  it('builds without the payment layer only a family that has no priced route', async () => {
    expect(() => createFreeFamilyHandler(PRICE_ROUTES, handlersThatThrow(null), depsFor('prod'))).toThrow(
      /family price has priced routes \(GET \/v1\/price\/\{code\}, .*\): use createFamilyHandler/,
    );
    const h = createFreeFamilyHandler(DISCOVERY_ROUTES, discoveryHandlers, depsFor('prod'));
    // A free route answers as it does behind the payment layer, whatever payment headers come along.
    const res = await h(event('GET /terms.txt', undefined, { 'x-force-402': '1', authorization: 'Bearer cds_live_x' }), context);
    expect(res.statusCode).toBe(200);
    expect(res.headers?.['x-content-type-options']).toBe('nosniff');
  });

  it('refuses at compile time a handler keyed by a route id of another family or a misspelling', () => {
    const extra: FamilyHandlers<'price'> = {
      ...handlersThatThrow(null),
      // @ts-expect-error not a route of the price family
      'GET /v1/cot/{code}': async () => ({ body: {} }),
    };
    expect(Object.keys(extra)).toHaveLength(5);
  });

  it('answers a well-formed value the catalog does not list with a 404 before the handler runs', async () => {
    let ran = false;
    const h = createFamilyHandler(
      PRICE_ROUTES,
      {
        ...handlersThatThrow(null),
        'GET /v1/fx/{pair}': async () => {
          ran = true;
          return { body: {} as never };
        },
      },
      depsFor('prod'),
    );
    const res = await h(event('GET /v1/fx/{pair}', { pair: 'CL' }), context);
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(res.body!).error).toMatchObject({ code: 'UNKNOWN_INSTRUMENT', details: { valid: ['DTWEXBGS', 'EURUSD', 'USDCNY'] } });
    expect(ran).toBe(false);
  });

  it('maps an unexpected error to a generic 500 without internals in prod', async () => {
    const h = createFamilyHandler(PRICE_ROUTES, handlersThatThrow(new Error('db password is hunter2')), depsFor('prod'));
    const res = await h(event('GET /v1/price/{code}', { code: 'CL' }), context);
    expect(res.statusCode).toBe(500);
    const body = JSON.parse(res.body!);
    expect(body).toEqual({ error: { code: 'INTERNAL', message: expect.any(String), retryable: true, request_id: 'req-1', details: {} } });
    expect(res.body).not.toContain('hunter2');
    expect(res.body).not.toMatch(/at .*\.ts:\d+/); // no stack trace
  });

  it('shows the internal message only in dev', async () => {
    const h = createFamilyHandler(PRICE_ROUTES, handlersThatThrow(new Error('boom')), depsFor('dev'));
    const body = JSON.parse((await h(event('GET /v1/price/{code}', { code: 'CL' }), context)).body!);
    expect(body.error.details).toEqual({ name: 'Error', message: 'boom' });
  });

  it('maps typed errors with their status, code and retryable flag', async () => {
    const h = createFamilyHandler(
      PRICE_ROUTES,
      handlersThatThrow(new ServiceUnavailableError('NO_DATA', 'nothing yet', { instrument: 'CL' })),
      depsFor('prod'),
    );
    const res = await h(event('GET /v1/price/{code}', { code: 'CL' }), context);
    expect(res.statusCode).toBe(503);
    expect(JSON.parse(res.body!).error).toMatchObject({ code: 'NO_DATA', retryable: true, details: { instrument: 'CL' } });
  });

  it('validates parameters with the route schema and hands handlers the normalised values', async () => {
    const h = createFamilyHandler(PRICE_ROUTES, handlersThatThrow(null), depsFor('prod'));
    const ok = await h(event('GET /v1/fx/{pair}', { pair: ' eurusd ' }), context);
    expect(JSON.parse(ok.body!)).toEqual({ pair: 'EURUSD' });
    const bad = await h(event('GET /v1/fx/{pair}', { pair: 'EUR/USD' }), context);
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(bad.body!).error.details.issues[0].path).toBe('pair');
  });

  it('answers a route key of another family (or $default) with a JSON 404', async () => {
    const h = createFamilyHandler(PRICE_ROUTES, handlersThatThrow(null), depsFor('prod'));
    for (const key of ['$default', 'GET /v1/cot/{code}']) {
      const res = await h(event(key), context);
      expect(res.statusCode).toBe(404);
      expect(JSON.parse(res.body!).error.code).toBe('NOT_FOUND');
    }
  });
});

describe('a free function (discovery) on its own services', () => {
  // A facilitator that offers batch-settlement: the catalog states its terms, the only payment part a free function reads.
  const authorizer = '0x00000000000000000000000000000000000000aa';
  const facilitator = {
    verify: async () => {
      throw new Error('a free function verifies nothing');
    },
    settle: async () => {
      throw new Error('a free function settles nothing');
    },
    getSupported: async () => ({
      kinds: [{ x402Version: 2, scheme: 'batch-settlement', network: 'eip155:84532' as const, extra: { receiverAuthorizer: authorizer } }],
      extensions: [],
      signers: {},
    }),
  };
  const services = createFreeServices(loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', STAGE: 'prod' }), {
    store: new MemoryObservationStore(),
    payment: { facilitator },
  });
  const h = createFreeFamilyHandler(DISCOVERY_ROUTES, discoveryHandlers, () => services);

  it("answers /health and the x402 catalog, which lists the facilitator's batch option", async () => {
    const health = await h(event('GET /health'), context);
    expect(health.statusCode).toBe(200);
    // Nothing ingested in this store: all ten sources are listed, each stale.
    const sources = JSON.parse(health.body!).sources as Array<{ stale: boolean }>;
    expect(sources.map((s) => s.stale)).toEqual(Array(10).fill(true));
    const res = await h(event('GET /.well-known/x402', undefined, { host: 'api.example.com' }), context);
    expect(res.statusCode).toBe(200);
    const schemes = JSON.stringify(JSON.parse(res.body!));
    expect(schemes).toContain('"batch-settlement"');
    expect(schemes).toContain(authorizer);
  });

  it('has no ledgers: any use of one is refused, not silently a no-op', () => {
    expect(() => services.payment.ledger.claim).toThrow(/free function charges nothing and has no payment ledger/);
    expect(() => services.payment.credits.debit).toThrow(/no credit ledger/);
  });
});

describe('mapError', () => {
  it('keeps typed details and the request id', () => {
    const m = mapError(new NotFoundError('UNKNOWN_SERIES', 'no such key', { valid: ['a'] }), 'r-9');
    expect(m.statusCode).toBe(404);
    expect(m.body.error).toEqual({ code: 'UNKNOWN_SERIES', message: 'no such key', retryable: false, request_id: 'r-9', details: { valid: ['a'] } });
  });

  it("a store call the SDK's transport timed out (no code, no $metadata) is a retryable 503, not a 500", () => {
    // The errors @smithy/node-http-handler rejects with when a connection or an idle socket times out.
    const connect = Object.assign(
      new Error('@smithy/node-http-handler - the request socket did not establish a connection with the server within the configured timeout of 2000 ms.'),
      { name: 'TimeoutError' },
    );
    const socket = Object.assign(
      new Error('@smithy/node-http-handler - the request socket timed out after 2000 ms of inactivity (configured by client requestHandler).'),
      { name: 'TimeoutError' },
    );
    for (const err of [connect, socket])
      expect(mapError(err, 'r')).toMatchObject({ statusCode: 503, body: { error: { code: 'STORE_UNAVAILABLE', retryable: true } } });
    // A timeout from anything else is not the store's.
    expect(mapError(Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' }), 'r').statusCode).toBe(500);
  });

  it('never throws on odd values', () => {
    expect(mapError(undefined, 'r').statusCode).toBe(500);
    expect(mapError('a string', 'r').statusCode).toBe(500);
  });
});
