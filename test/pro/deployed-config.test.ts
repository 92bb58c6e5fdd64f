/**
 * Card checkout as deployed: the Pro function's entry (functions/pro.ts) imported with the
 * environment its synthesized function gets, reading its Stripe secret at cold start through the
 * AWS SDK from a loopback stand-in of Secrets Manager (AWS_ENDPOINT_URL_SECRETS_MANAGER, which the
 * SDK honours), and opening a Checkout Session on a loopback stand-in of the Stripe API. The plans'
 * prices come from the deployment context or from the secret.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ENV } from '../../shared/config/env-keys';
import { logicalId, PAY_TO, synthService } from '../infra/synth';
import { startTestStore, type TestStore } from '../helpers/store';

const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:commodity-data-staging/stripe-AbCdEf';
const KEYS = { STRIPE_SECRET_KEY: 'sk_test_deployed', STRIPE_WEBHOOK_SECRET: 'whsec_deployed' };

/** Answers GetSecretValue (AWS JSON 1.1) with `value()` for SECRET_ARN; records the calls. */
const startFakeSecretsManager = async (value: () => string) => {
  const calls: Array<{ target: string | undefined; secretId: string }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const input = JSON.parse(body || '{}') as { SecretId?: string };
      calls.push({ target: req.headers['x-amz-target'] as string | undefined, secretId: String(input.SecretId) });
      const found = req.headers['x-amz-target'] === 'secretsmanager.GetSecretValue' && input.SecretId === SECRET_ARN;
      res.writeHead(found ? 200 : 400, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(
        JSON.stringify(
          found
            ? { ARN: SECRET_ARN, Name: 'commodity-data-staging/stripe', SecretString: value(), VersionId: 'v1' }
            : { __type: 'ResourceNotFoundException', message: 'no such secret' },
        ),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, close: () => new Promise<void>((r) => server.close(() => r())) };
};

/** A loopback stand-in for api.stripe.com: records the form of each request, answers a Checkout Session. */
const startFakeStripe = async () => {
  const requests: Array<{ path: string; form: URLSearchParams; authorization: string | undefined }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      requests.push({ path: req.url ?? '', form: new URLSearchParams(body), authorization: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_fake' });
      res.end(JSON.stringify({ id: 'cs_test_d1', object: 'checkout.session', mode: 'subscription', url: 'https://checkout.stripe.test/c/pay/cs_test_d1' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
};

const checkoutEvent = (plan: string): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: 'POST /pro/checkout',
    rawPath: '/pro/checkout',
    rawQueryString: '',
    headers: { host: 'api.example.com', 'content-type': 'application/x-www-form-urlencoded' },
    body: `plan=${plan}`,
    isBase64Encoded: false,
    requestContext: { requestId: `d-${Math.random()}`, domainName: 'api.example.com', http: { method: 'POST', path: '/pro/checkout' } },
  }) as unknown as APIGatewayProxyEventV2;

describe('Pro checkout as deployed (functions/pro.ts, Stripe secret read at cold start)', () => {
  let store: TestStore;
  let secrets: Awaited<ReturnType<typeof startFakeSecretsManager>>;
  let stripe: Awaited<ReturnType<typeof startFakeStripe>>;
  let secretValue = '{}';

  beforeAll(async () => {
    store = await startTestStore();
    secrets = await startFakeSecretsManager(() => secretValue);
    stripe = await startFakeStripe();
  });
  afterAll(async () => {
    await store?.close();
    await secrets?.close();
    await stripe?.close();
  });

  /** The Pro function's environment from a synth with `context`, deploy-time tokens replaced by the stand-ins. */
  const proEnvironment = (context: Record<string, string>): Record<string, string> => {
    const s = synthService({ stage: 'staging', payTo: PAY_TO, ...context });
    const vars = s.templates.api.toJSON().Resources[logicalId(s.api, s.api.functions.get('pro')!)].Properties.Environment.Variables as Record<string, unknown>;
    expect(vars[ENV.STRIPE_SECRET_ARN]).toBeTypeOf('object'); // a reference to the data stack's secret
    expect(vars[ENV.PUBLIC_BASE_URL]).toBeTypeOf('object'); // the HTTP API's own endpoint, known at deploy
    return {
      ...Object.fromEntries(Object.entries(vars).filter((e): e is [string, string] => typeof e[1] === 'string')),
      [ENV.STRIPE_SECRET_ARN]: SECRET_ARN,
      [ENV.PUBLIC_BASE_URL]: 'https://abc123.execute-api.us-east-1.amazonaws.com',
      [ENV.OBSERVATIONS_TABLE]: store.config.OBSERVATIONS_TABLE,
      [ENV.CREDITS_TABLE]: store.config.CREDITS_TABLE,
      [ENV.DYNAMODB_ENDPOINT]: store.config.DYNAMODB_ENDPOINT!,
      [ENV.AWS_REGION]: 'us-east-1',
    };
  };

  /** A cold start of the Pro function with `env` (plus the stand-ins' endpoints), then one checkout. */
  const coldStartAndCheckout = async (env: Record<string, string>, plan: string): Promise<APIGatewayProxyStructuredResultV2> => {
    const saved = { ...process.env };
    process.env = {
      ...saved,
      ...env,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      [ENV.STRIPE_API_URL]: stripe.url,
    };
    try {
      vi.resetModules();
      const { handler } = (await import('../../functions/pro')) as {
        handler: (e: APIGatewayProxyEventV2, c: Context) => Promise<APIGatewayProxyStructuredResultV2>;
      };
      return await handler(checkoutEvent(plan), { awsRequestId: 'deployed' } as Context);
    } finally {
      process.env = saved;
    }
  };

  it('prices from the deployment context (-c stripePriceMonthly / stripePriceYearly), keys from the secret', async () => {
    const env = proEnvironment({ stripePriceMonthly: 'price_ctx_monthly', stripePriceYearly: 'price_ctx_yearly' });
    expect(env).toMatchObject({ [ENV.STRIPE_PRICE_MONTHLY]: 'price_ctx_monthly', [ENV.STRIPE_PRICE_YEARLY]: 'price_ctx_yearly' });
    secretValue = JSON.stringify(KEYS);
    const before = secrets.calls.length;
    const res = await coldStartAndCheckout(env, 'yearly');
    expect(res.statusCode, String(res.body)).toBe(303);
    expect(secrets.calls.slice(before)).toEqual([{ target: 'secretsmanager.GetSecretValue', secretId: SECRET_ARN }]);
    const sent = stripe.requests.at(-1)!;
    expect(sent.path).toBe('/v1/checkout/sessions');
    expect(sent.form.get('line_items[0][price]')).toBe('price_ctx_yearly');
    expect(sent.authorization).toBe(`Bearer ${KEYS.STRIPE_SECRET_KEY}`);
  });

  it('prices in the secret (no context): the cold start accepts them and checkout uses them', async () => {
    secretValue = JSON.stringify({ ...KEYS, STRIPE_PRICE_MONTHLY: 'price_sec_monthly', STRIPE_PRICE_YEARLY: 'price_sec_yearly' });
    const res = await coldStartAndCheckout(proEnvironment({}), 'monthly');
    expect(res.statusCode, String(res.body)).toBe(303);
    expect(stripe.requests.at(-1)!.form.get('line_items[0][price]')).toBe('price_sec_monthly');
  });

  it('keys without any price: the function starts and says checkout is off (503), it does not crash', async () => {
    secretValue = JSON.stringify(KEYS);
    const res = await coldStartAndCheckout(proEnvironment({}), 'monthly');
    expect(res.statusCode).toBe(503);
    expect(JSON.parse(String(res.body)).error.code).toBe('CHECKOUT_UNAVAILABLE');
  });
});
