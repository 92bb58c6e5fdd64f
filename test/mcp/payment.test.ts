/**
 * Payment of MCP tool calls through the core (no HTTP round trip), with the official MCP SDK client
 * and a fake facilitator: a settlement that fails or stays pending returns no data, only the
 * refusal; a settled call returns the data with its receipt.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { x402Client } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { startFakeFacilitator, txHash, type FakeFacilitator } from '../payment/helpers';
import { startTestStack } from '../helpers/stack';

const payTo = privateKeyToAccount(generatePrivateKey()).address;

describe('MCP tool calls paid with x402: no data without a confirmed settlement', () => {
  let stack: LocalStack;
  let fake: FakeFacilitator;
  let client: Client;

  beforeAll(async () => {
    fake = await startFakeFacilitator();
    stack = await startTestStack({ X402_ENFORCE: '1', X402_PAY_TO: payTo, X402_FACILITATOR_URL: fake.url, X402_FACILITATOR_TIMEOUT_MS: '2000' });
    client = new Client({ name: 'mcp-payment-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.url}/api/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
    await stack?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  const paidCall = async () => {
    const unpaid = await client.callTool({ name: 'get_price', arguments: { code: 'CL' } });
    const payer = registerExactEvmScheme(new x402Client(), { signer: privateKeyToAccount(generatePrivateKey()) });
    const payment = await payer.createPaymentPayload(unpaid.structuredContent as never);
    return client.callTool({ name: 'get_price', arguments: { code: 'CL' }, _meta: { 'x402/payment': payment } });
  };

  it('settled: the data and the receipt', async () => {
    const res = await paidCall();
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({ instrument: 'CL' });
    expect(res._meta?.['x402/payment-response']).toMatchObject({ success: true });
    expect(fake.calls.settle).toHaveLength(1);
  });

  it('a settlement that stays pending: no data, SETTLEMENT_PENDING and the unconfirmed settlement', async () => {
    const tx = txHash();
    fake.settle = async (b) => ({
      body: {
        success: false,
        errorReason: 'settlement_pending',
        transaction: tx,
        network: b.paymentRequirements.network,
        payer: b.paymentPayload.payload.authorization.from,
      },
    });
    const res = await paidCall();
    expect(res.isError).toBe(true);
    expect(JSON.stringify(res)).not.toContain('"instrument"');
    expect(res.structuredContent).toMatchObject({ error: { code: 'SETTLEMENT_PENDING', retryable: true, details: { transaction: tx } } });
    expect(res._meta?.['x402/payment-response']).toMatchObject({ success: false, transaction: tx });
  });

  it('a settlement refused before anything was sent: no data, the payment requirements to pay again', async () => {
    fake.settle = async (b) => ({
      body: {
        success: false,
        errorReason: 'invalid_exact_evm_insufficient_balance',
        transaction: '',
        network: b.paymentRequirements.network,
        payer: b.paymentPayload.payload.authorization.from,
      },
    });
    const res = await paidCall();
    expect(res.isError).toBe(true);
    expect(JSON.stringify(res)).not.toContain('"instrument"');
    expect(res.structuredContent).toMatchObject({ x402Version: 2, accepts: [{ scheme: 'exact', amount: '10000' }] });
  });
});
