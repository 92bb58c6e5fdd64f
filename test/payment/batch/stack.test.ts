/**
 * The batch-settlement lane as a peer of `exact` behind the charge step, through the local runtime
 * (`npm start`'s stack with X402_LOCAL_CHAIN=1 and Base's 2 s blocks): the 402 offers exact first and
 * batch-settlement at the same price; the unmodified official client pays with vouchers over HTTP;
 * an MCP tool call takes a voucher in `_meta`; an error answer is not charged; the settlement job
 * claims and settles; chain, store and the finance report agree to the atomic unit.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment } from '@x402/fetch';
import { toClientEvmSigner } from '@x402/evm';
import { BatchSettlementEvmScheme, InMemoryClientChannelStorage } from '@x402/evm/batch-settlement/client';
import type { HDAccount } from 'viem';
import { BATCH_SETTLEMENT_ADDRESS } from '@x402/evm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LocalStack } from '../../../infra/local/stack';
import { DynamoChannelStore } from '../../../shared/payment/batch/dynamo-channel-store';
import { viemEscrowReader } from '../../../shared/payment/batch/escrow-reader';
import { createChannelManager, runBatchSettlement } from '../../../shared/payment/batch/settle-job';
import { DynamoReconcileLedger } from '../../../shared/payment/ledger';
import { createDocumentClient } from '../../../shared/store/client';
import { getJson, startTestStack } from '../../helpers/stack';
import { startLocalSchedules } from '../../../infra/local/schedules';
import { PaymentRequiredBody, X402CatalogBody } from '../../../shared/schemas';
import { readReceiver } from './helpers';

let stack: LocalStack;
let channels: DynamoChannelStore;
let finance: DynamoReconcileLedger;

beforeAll(async () => {
  stack = await startTestStack({ X402_ENFORCE: '1', X402_LOCAL_CHAIN: '1', X402_LOCAL_BLOCK_TIME: '2' });
  const doc = createDocumentClient(stack.config);
  channels = new DynamoChannelStore(doc, stack.config.CREDITS_TABLE);
  finance = new DynamoReconcileLedger(doc, stack.config.CREDITS_TABLE);
}, 180_000);
afterAll(async () => stack?.close());

/** @x402/fetch with only the batch-settlement scheme registered, as an agent that wants the fast lane configures it. */
const batchClient = (account: HDAccount, storage = new InMemoryClientChannelStorage()) =>
  new x402Client().register(
    stack.payments!.chain.network,
    new BatchSettlementEvmScheme(toClientEvmSigner(account, stack.payments!.chain.publicClient as never), { storage }),
  );

const month = () => new Date().toISOString().slice(0, 7);

describe('batch-settlement through the payment core (local runtime, 2 s blocks)', () => {
  it('every paid route offers exact first and batch-settlement at the same price', async () => {
    const res = await getJson(stack.url, '/v1/decision/all');
    expect(res.status).toBe(402);
    const [exact, batch, ...rest] = res.body.accepts;
    expect(rest).toEqual([]);
    expect(exact).toMatchObject({ scheme: 'exact', amount: '250000' });
    expect(batch).toMatchObject({
      scheme: 'batch-settlement',
      amount: '250000',
      payTo: stack.payments!.payTo,
      asset: exact.asset,
      extra: { receiverAuthorizer: stack.payments!.facilitator.receiverAuthorizer.address, assetTransferMethod: 'eip3009' },
    });
    // The body is valid against the schema the documents declare for a 402.
    expect(PaymentRequiredBody.safeParse(res.body).success).toBe(true);
    // x402 v1 clients read only the exact option.
    const v1 = await getJson(stack.url, '/v1/decision/all', { headers: { 'X402-Version': '1' } });
    expect(v1.body.accepts.map((a: { scheme: string }) => a.scheme)).toEqual(['exact']);
  });

  it('/.well-known/x402 lists, for every route, the same two options its 402 states', async () => {
    const catalog = await getJson(stack.url, '/.well-known/x402');
    expect(X402CatalogBody.safeParse(catalog.body).success).toBe(true);
    const crack = catalog.body.resources.find((r: { route: string }) => r.route === 'GET /v1/spreads/crack');
    const challenge = await getJson(stack.url, '/v1/spreads/crack');
    expect(crack.accepts).toEqual(challenge.body.accepts);
    for (const r of catalog.body.resources) {
      expect(r.accepts.map((a: { scheme: string }) => a.scheme)).toEqual(['exact', 'batch-settlement']);
      expect(r.accepts[1].amount).toBe(r.price_atomic);
    }
  });

  it('the official client pays 40 calls with vouchers (one deposit); an error answer is not charged; MCP takes a voucher; the job settles; chain == store == finance', async () => {
    const net = stack.payments!;
    const buyer = net.chain.accounts[6]!;
    const storage = new InMemoryClientChannelStorage();
    const pay = wrapFetchWithPayment(fetch, batchClient(buyer, storage));
    const receiver0 = await readReceiver(net);
    const payTo0 = await net.chain.balanceOf(net.payTo);
    let channelId = '';
    let deposits = 0;
    for (let i = 0; i < 40; i++) {
      const res = await pay(`${stack.url}/v1/price/CL`);
      expect(res.status, await res.clone().text()).toBe(200);
      expect(((await res.json()) as { instrument: string }).instrument).toBe('CL');
      const receipt = decodePaymentResponseHeader(res.headers.get('payment-response')!);
      if (receipt.transaction) deposits++;
      channelId = (receipt.extra as { channelState: { channelId: string } }).channelState.channelId;
    }
    expect(deposits).toBe(1);
    expect((await channels.get(channelId))?.chargedCumulativeAmount).toBe('400000');

    // No real corn export sales exist to replay: 404 NO_DATA after the voucher was reserved; not counted.
    const failed = await pay(`${stack.url}/v1/fundamentals/export-sales?commodity=corn`);
    expect(failed.status).toBe(404);
    expect((await channels.get(channelId))?.chargedCumulativeAmount).toBe('400000');

    // The same channel pays an MCP tool call: the voucher in _meta, the receipt in the result's _meta.
    const mcp = new Client({ name: 'batch-mcp', version: '1' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${stack.url}/api/mcp`)));
    try {
      const unpaid = await mcp.callTool({ name: 'get_fx', arguments: { pair: 'EURUSD' } });
      const payload = await batchClient(buyer, storage).createPaymentPayload(unpaid.structuredContent as never);
      const paid = await mcp.callTool({ name: 'get_fx', arguments: { pair: 'EURUSD' }, _meta: { 'x402/payment': payload } });
      expect(paid.isError, JSON.stringify(paid.structuredContent).slice(0, 300)).toBeFalsy();
      expect(paid.structuredContent).toMatchObject({ instrument: 'EURUSD' });
      expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true });
    } finally {
      await mcp.close();
    }
    expect((await channels.get(channelId))?.chargedCumulativeAmount).toBe('410000');

    // The scheduled job: one claim of the channel's vouchers, one settlement.
    const report = await runBatchSettlement({
      store: channels,
      manager: createChannelManager(channels, stack.services.payment.facilitator, stack.config),
      escrow: viemEscrowReader(net.chain.publicClient),
      receiver: net.payTo,
      token: net.chain.asset,
      now: () => new Date(),
    });
    expect(report.claims).toHaveLength(1);
    // The settlement is a mined escrow transaction paying out to our receiver, the only one of the pass.
    expect(report.settlements).toEqual([{ receiver: net.payTo, transaction: report.settle?.transaction }]);
    const settled = await net.chain.publicClient.getTransactionReceipt({ hash: report.settle!.transaction as `0x${string}` });
    expect(settled.status).toBe('success');
    expect(settled.to?.toLowerCase()).toBe(BATCH_SETTLEMENT_ADDRESS.toLowerCase());
    const receiver = await readReceiver(net);
    expect(receiver.totalClaimed - receiver0.totalClaimed).toBe(410_000n);
    expect((await net.chain.balanceOf(net.payTo)) - payTo0).toBe(410_000n);

    // Finance: one sale per paid call, by route and lane, summing to what the chain settled.
    const sales = (await finance.salesOfMonth(month())).filter((s) => s.lane === 'x402-batch' && s.payer === buyer.address.toLowerCase());
    expect(sales).toHaveLength(41);
    expect(sales.reduce((t, s) => t + BigInt(s.amount), 0n)).toBe(410_000n);
    expect(new Set(sales.map((s) => s.route))).toEqual(new Set(['GET /v1/price/{code}', 'GET /v1/fx/{pair}']));
    expect(sales.every((s) => s.transaction === report.claims[0]!.transaction)).toBe(true);
  }, 240_000);

  it("npm start's timers (as EventBridge's): the batch pass claims and settles a buyer's vouchers unasked, through the deployed wiring", async () => {
    const net = stack.payments!;
    const pay = wrapFetchWithPayment(fetch, batchClient(net.chain.accounts[7]!));
    for (let i = 0; i < 3; i++) expect((await pay(`${stack.url}/v1/price/NG`)).status).toBe(200);
    const before = await readReceiver(net);
    const lines: string[] = [];
    const stop = startLocalSchedules(stack.services, (l) => lines.push(l), { reconcile: 1, batches: 1 });
    try {
      // A pass claims and settles; the claim's events stamp the three sales in that pass or the next.
      await vi.waitFor(() => expect(lines.some((l) => / 0 open/.test(l))).toBe(true), { timeout: 90_000, interval: 500 });
    } finally {
      stop();
    }
    const passes = lines.filter((l) => l.startsWith('settle-batches:'));
    expect(passes[0]).toMatch(/^settle-batches: 1 vouchers claimed, 0 channels refunded, [03] sales stamped, [30] open, settled$/);
    expect(passes.reduce((n, l) => n + Number(/(\d+) sales stamped/.exec(l)![1]), 0)).toBe(3);
    expect((await readReceiver(net)).totalClaimed - before.totalClaimed).toBe(30_000n);
  }, 180_000);
});
