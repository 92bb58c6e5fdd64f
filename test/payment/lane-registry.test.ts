/**
 * The lane registry is the only place a lane exists (issue 33): a stub lane (an `upto`-like scheme a
 * new engineer might add) registered with the payment services, and nothing else changed, is
 * offered in every 402 after the exact option, listed in /.well-known/x402, offered in an MCP tool's
 * refusal, takes its own payloads, and its revenue is counted under its own name (never as the
 * exact lane's). Local runtime, fake facilitator, the official MCP SDK client.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { earnings } from '../../infra/local/earnings';
import { startLocalStack, type LocalStack } from '../../infra/local/stack';
import { METRIC, type MetricsSink } from '../../shared/observability/metrics';
import { paymentOption } from '../../shared/payment/challenge';
import type { Grant } from '../../shared/payment/lane';
import { DynamoReconcileLedger } from '../../shared/payment/ledger';
import { registeredLanes, type RegisteredLane } from '../../shared/payment/lanes';
import { getJson } from '../helpers/stack';
import { b64, startFakeFacilitator, type FakeFacilitator } from './helpers';

const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as const;
const BUYER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

interface StubGrant extends Grant {
  amount: string;
}

/** The stub's own books (its store): set once the stack runs. */
let books: DynamoReconcileLedger | undefined;

/** The stub: pays with a payload of its scheme, books the route's price in USDC atomic units (a sale under its own name). */
const stub: RegisteredLane<StubGrant> = {
  id: 'x402-upto' as never,
  scheme: 'upto',
  offerFor: async (route, path, deps) => ({ ...paymentOption(route, path, deps.config), scheme: 'upto' as never }),
  authorize: async (credentials, call) =>
    credentials.kind === 'x402'
      ? {
          type: 'granted',
          grant: {
            lane: 'x402-upto' as never,
            callId: call.callId,
            amount: paymentOption(call.route, call.resource.path, { X402_NETWORK: 'eip155:84532', X402_PAY_TO: PAY_TO, X402_MAX_TIMEOUT_SECONDS: 60 }).amount,
          } as StubGrant,
        }
      : { type: 'free', reason: 'not-chargeable' },
  settle: async (g, deps) => {
    const route = 'GET /v1/price/{code}';
    await books!.recordSale({
      saleId: `upto:${g.callId}`,
      lane: 'x402-upto' as never,
      route,
      path: '/v1/price/CL',
      amount: g.amount,
      asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      network: 'eip155:84532',
      payTo: PAY_TO,
      payer: BUYER.toLowerCase(),
      transaction: '',
      settledAt: deps.now().toISOString(),
      requestId: g.callId,
    });
    return { type: 'settled', receipt: { settlement: { success: true, transaction: '', network: 'eip155:84532', payer: BUYER } } };
  },
  release: async () => ({}),
  booked: (g) => ({ unit: 'usdc_atomic', amount: Number(g.amount), settlement: false }),
};

describe('a lane added to the registry', () => {
  let stack: LocalStack;
  let fake: FakeFacilitator;
  const points: Array<{ name: string; value: number; dimensions: Record<string, string> }> = [];
  const recorder: MetricsSink = {
    count: (name, value = 1, dimensions = {}) => points.push({ name, value, dimensions: { ...dimensions } }),
    publish: () => undefined,
  };

  beforeAll(async () => {
    fake = await startFakeFacilitator();
    const id = Math.random().toString(36).slice(2, 8);
    stack = await startLocalStack({
      env: { OBSERVATIONS_TABLE: `lr-obs-${id}`, CREDITS_TABLE: `lr-cred-${id}`, X402_ENFORCE: '1', X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: fake.url },
      overrides: { metrics: recorder, payment: { lanes: [...registeredLanes(), stub as RegisteredLane<never>] } },
    });
    books = new DynamoReconcileLedger(stack.services.doc!, stack.config.CREDITS_TABLE);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await fake?.close();
  });

  it('is offered in the 402, after the exact option, at the route price', async () => {
    const res = await getJson(stack.url, '/v1/price/CL');
    expect(res.status).toBe(402);
    expect(res.body.accepts.map((a: { scheme: string }) => a.scheme)).toEqual(['exact', 'upto']);
    expect(res.body.accepts[1]).toMatchObject({ amount: '10000', payTo: PAY_TO, resource: '/v1/price/CL' });
  });

  it('is listed in /.well-known/x402 for every chargeable route', async () => {
    const res = await getJson(stack.url, '/.well-known/x402.json');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const resources = res.body.resources as Array<{ route: string; accepts: Array<{ scheme: string }> }>;
    expect(resources.length).toBeGreaterThan(10);
    expect(resources.filter((r) => !r.accepts.some((a) => a.scheme === 'upto')).map((r) => r.route)).toEqual([]);
  });

  it("is offered in an MCP tool's refusal", async () => {
    const client = new Client({ name: 'lane-registry-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.url}/api/mcp`)));
    try {
      const unpaid = await client.callTool({ name: 'get_price', arguments: { code: 'CL' } });
      expect(unpaid.isError).toBe(true);
      expect((unpaid.structuredContent as { accepts: Array<{ scheme: string }> }).accepts.map((a) => a.scheme)).toEqual(['exact', 'upto']);
    } finally {
      await client.close();
    }
  });

  it('takes its own payloads, and its revenue is counted under its own name', async () => {
    points.length = 0;
    const payload = { x402Version: 2, accepted: { scheme: 'upto' }, payload: {} };
    const paid = await getJson(stack.url, '/v1/price/CL', { headers: { 'payment-signature': b64(payload) } });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ instrument: 'CL' });
    expect(points).toEqual([
      { name: METRIC.paidCalls, value: 1, dimensions: { lane: 'x402-upto' } },
      { name: METRIC.paidCalls, value: 1, dimensions: { lane: 'x402-upto', route: 'GET /v1/price/{code}' } },
      { name: METRIC.revenueAtomic, value: 10_000, dimensions: {} },
      { name: METRIC.revenueAtomic, value: 10_000, dimensions: { lane: 'x402-upto' } },
      { name: METRIC.revenueAtomic, value: 10_000, dimensions: { lane: 'x402-upto', route: 'GET /v1/price/{code}' } },
    ]);
    expect(fake.calls.settle).toHaveLength(0);
    // Finance's earnings report: a row of its own, never the exact lane's.
    const day = new Date().toISOString().slice(0, 10);
    const rows = earnings(await books!.salesOfMonth(day.slice(0, 7)), [], { from: day, to: day });
    expect(rows).toEqual([{ lane: 'x402-upto', route: 'GET /v1/price/{code}', calls: 1, amount: 10_000n, unit: 'usdc-atomic' }]);
  });
});
