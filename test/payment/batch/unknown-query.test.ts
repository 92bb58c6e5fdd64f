/**
 * A typo must not buy today's data, batch-settlement lane (issue 34): through the local runtime with
 * its local chain (`npm start`'s stack with X402_LOCAL_CHAIN=1), a voucher signed by the unmodified
 * official client for GET /v1/price/CL is sent with a misspelt `asknownat` and then with `from`/`to` on
 * the history route: both are 400 INVALID_PARAMETER and the channel is charged nothing. The same
 * voucher then pays the correctly spelt call: the channel's cumulative charge is that one call's price.
 */
import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/fetch';
import { toClientEvmSigner } from '@x402/evm';
import { BatchSettlementEvmScheme, InMemoryClientChannelStorage } from '@x402/evm/batch-settlement/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../../infra/local/stack';
import { DynamoChannelStore } from '../../../shared/payment/batch/dynamo-channel-store';
import { createDocumentClient } from '../../../shared/store/client';
import { expectError } from '../../helpers/contract';
import { getJson, startTestStack } from '../../helpers/stack';

let stack: LocalStack;
let channels: DynamoChannelStore;

beforeAll(async () => {
  stack = await startTestStack({ X402_ENFORCE: '1', X402_LOCAL_CHAIN: '1', X402_LOCAL_BLOCK_TIME: '2' });
  channels = new DynamoChannelStore(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
}, 180_000);
afterAll(async () => stack?.close());

describe('unknown query parameters, batch-settlement lane (local runtime, local chain)', () => {
  it('a voucher sent with asknownat or from/to is refused with 400 and charges the channel nothing; the same voucher pays the spelt call', async () => {
    const net = stack.payments!;
    const buyer = net.chain.accounts[8]!;
    const client = new x402Client().register(
      net.chain.network,
      new BatchSettlementEvmScheme(toClientEvmSigner(buyer, net.chain.publicClient as never), { storage: new InMemoryClientChannelStorage() }),
    );
    const challenge = await getJson(stack.url, '/v1/price/CL');
    expect(challenge.status).toBe(402);
    // The batch option only: what an agent on the fast lane pays with (a deposit and a first voucher).
    const batchOnly = { ...challenge.body, accepts: challenge.body.accepts.filter((a: { scheme: string }) => a.scheme === 'batch-settlement') };
    const payload = await client.createPaymentPayload(batchOnly as never);
    const headers = { 'payment-signature': Buffer.from(JSON.stringify(payload)).toString('base64') };

    for (const path of ['/v1/price/CL?asknownat=2020-01-01T00:00:00Z', '/v1/history/CL?from=2024-01-01&to=2024-02-01']) {
      const res = await getJson(stack.url, path, { headers });
      expectError(res, 400, 'INVALID_PARAMETER');
      expect(res.headers.get('payment-response'), path).toBeNull();
    }

    const paid = await getJson(stack.url, '/v1/price/CL', { headers });
    expect(paid.status, JSON.stringify(paid.body).slice(0, 300)).toBe(200);
    const receipt = decodePaymentResponseHeader(paid.headers.get('payment-response')!);
    const channelId = (receipt.extra as { channelState: { channelId: string } }).channelState.channelId;
    // One call of 0.01 USD (10,000 USDC atomic units): the refused calls took nothing.
    expect((await channels.get(channelId))?.chargedCumulativeAmount).toBe('10000');
  }, 180_000);
});
