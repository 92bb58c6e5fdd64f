/** The business metrics a paid call emits (the alarms and the dashboard read these names). */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type LocalStack } from '../../infra/local/stack';
import { METRIC, type MetricsSink } from '../../shared/observability/metrics';
import { hashedPayer } from '../../shared/payment/payment-metrics';
import { getJson } from '../helpers/stack';
import { acceptedFor, b64, signAuthorization, startFakeFacilitator, v2Payload, type FakeFacilitator } from '../payment/helpers';

const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as const;

describe('business metrics', () => {
  let stack: LocalStack;
  let fake: FakeFacilitator;
  const points: Array<{ name: string; value: number; dimensions: Record<string, string> }> = [];
  let published = 0;
  const logged: Array<{ m: string; e?: Record<string, unknown> }> = [];
  const recorder: MetricsSink = {
    count: (name, value = 1, dimensions = {}) => points.push({ name, value, dimensions: { ...dimensions } }),
    publish: () => {
      published++;
    },
  };

  beforeAll(async () => {
    fake = await startFakeFacilitator();
    const id = Math.random().toString(36).slice(2, 8);
    stack = await startLocalStack({
      env: {
        OBSERVATIONS_TABLE: `m-obs-${id}`,
        CREDITS_TABLE: `m-cred-${id}`,
        X402_ENFORCE: '1',
        X402_PAY_TO: PAY_TO,
        X402_FACILITATOR_URL: fake.url,
        X402_DEFER_MAX_USD: '0',
      },
      overrides: {
        metrics: recorder,
        payment: { log: { info: (m, e) => logged.push({ m, e }), warn: (m, e) => logged.push({ m, e }), error: (m, e) => logged.push({ m, e }) } },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await fake?.close();
  });

  it('counts the 402 of an unpaid call, and a settled x402 payment with its revenue', async () => {
    expect((await getJson(stack.url, '/v1/price/CL')).status).toBe(402);
    expect(points).toEqual([{ name: METRIC.paymentRequired, value: 1, dimensions: { family: 'price' } }]);
    const signed = await signAuthorization(privateKeyToAccount(generatePrivateKey()), { payTo: PAY_TO });
    const paid = await getJson(stack.url, '/v1/price/CL', {
      headers: { 'payment-signature': b64(v2Payload(signed, acceptedFor(PAY_TO), `${stack.url}/v1/price/CL`)) },
    });
    expect(paid.status).toBe(200);
    const route = 'GET /v1/price/{code}';
    expect(points.slice(1)).toEqual([
      { name: METRIC.paidCalls, value: 1, dimensions: { lane: 'x402-exact' } },
      { name: METRIC.paidCalls, value: 1, dimensions: { lane: 'x402-exact', route } },
      { name: METRIC.settlements, value: 1, dimensions: {} },
      { name: METRIC.revenueAtomic, value: 10_000, dimensions: {} },
      // The lane's own share of the revenue, under its name, and per route.
      { name: METRIC.revenueAtomic, value: 10_000, dimensions: { lane: 'x402-exact' } },
      { name: METRIC.revenueAtomic, value: 10_000, dimensions: { lane: 'x402-exact', route } },
    ]);
    expect(published).toBe(2); // flushed once per invocation
  });

  it('counts a refused payment by its reason and logs it with the route and the hashed payer, never the address', async () => {
    points.length = 0;
    logged.length = 0;
    const buyer = privateKeyToAccount(generatePrivateKey());
    // One atomic unit for a 10,000-unit route: refused before anything reaches the facilitator.
    const signed = await signAuthorization(buyer, { payTo: PAY_TO, value: 1n });
    const refused = await getJson(stack.url, '/v1/price/CL', {
      headers: { 'payment-signature': b64(v2Payload(signed, acceptedFor(PAY_TO), `${stack.url}/v1/price/CL`)) },
    });
    expect(refused.status).toBe(402);
    const reason = refused.body.error.details.reason;
    expect(reason).toMatch(/^[a-z_]+$/);
    expect(points).toEqual([
      { name: METRIC.paymentRequired, value: 1, dimensions: { family: 'price' } },
      { name: METRIC.paymentsRefused, value: 1, dimensions: { reason } },
    ]);
    const entry = logged.find((l) => l.m === 'payment refused');
    expect(entry?.e).toMatchObject({ reason, route: 'GET /v1/price/{code}', payer: hashedPayer(buyer.address) });
    expect(hashedPayer(buyer.address)).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(entry).toLowerCase()).not.toContain(buyer.address.toLowerCase().slice(2));
  });
});
