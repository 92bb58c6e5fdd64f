/**
 * The whole paid flow offline, for real: `X402_ENFORCE=1 X402_LOCAL_CHAIN=1` local stack =
 * ganache (chain id 84532) with our EIP-3009 token at the Base Sepolia USDC address, the
 * official x402 facilitator logic behind loopback HTTP, and unmodified official clients.
 * Balances are read from the chain: a payment moves exactly the price, once.
 */
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { createWalletClient, http, publicActions } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type HDAccount } from 'viem/accounts';
import { baseSepolia } from 'viem/chains';
import { wrapFetchWithPayment as wrapFetchWithPaymentV1 } from 'x402-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalPaymentNetwork } from '../../infra/local/chain';
import type { LocalStack } from '../../infra/local/stack';
import { DynamoReconcileLedger } from '../../shared/payment/ledger';
import { reconcilePendingPayments, viemChainReader } from '../../shared/payment/reconcile';
import { createDocumentClient } from '../../shared/store/client';
import { expectError } from '../helpers/contract';
import { until } from '../helpers/until';
import { getJson, startTestStack } from '../helpers/stack';
import { b64, nowS, signAuthorization, unb64, v1Payload } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('x402 on the local chain (ganache + local facilitator + official clients)', () => {
  let stack: LocalStack;
  let net: LocalPaymentNetwork;
  let ledger: DynamoReconcileLedger;
  /** Test switches read by the facilitator hook registered once below. */
  const hook = { drainPayerBeforeSettle: false, delaySettleMs: 0 };

  /** @x402/fetch around a fetch that remembers the payment header it sent. */
  const officialClient = (account: HDAccount | ReturnType<typeof privateKeyToAccount>) => {
    const sent: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const req = new Request(input, init);
      const h = req.headers.get('payment-signature');
      if (h) sent.push(h);
      return fetch(req);
    };
    return { pay: wrapFetchWithPayment(recording, registerExactEvmScheme(new x402Client(), { signer: account })), sent };
  };
  const balances = async (who: `0x${string}`) => ({ buyer: await net.chain.balanceOf(who), payTo: await net.chain.balanceOf(net.payTo) });

  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: '1', X402_LOCAL_CHAIN: '1', X402_FACILITATOR_TIMEOUT_MS: '4000' });
    net = stack.payments!;
    const config = stack.config;
    ledger = new DynamoReconcileLedger(createDocumentClient(config), config.CREDITS_TABLE);
    net.facilitator.facilitator.onBeforeSettle(async ({ paymentPayload }) => {
      const from = (paymentPayload.payload as { authorization: { from: `0x${string}` } }).authorization.from;
      if (hook.drainPayerBeforeSettle) {
        const owner = net.chain.accounts.find((a) => a.address.toLowerCase() === from.toLowerCase())!;
        await net.chain.transfer(owner, net.chain.accounts[9]!.address, await net.chain.balanceOf(from));
      }
      if (hook.delaySettleMs) await sleep(hook.delaySettleMs);
    });
  });
  afterAll(async () => stack?.close());

  it('advertises the local chain in the challenge: eip155:84532 and the Base Sepolia USDC domain', async () => {
    const res = await getJson(stack.url, '/v1/price/CL');
    expect(res.status).toBe(402);
    expect(res.body.accepts[0]).toMatchObject({
      network: 'eip155:84532',
      asset: net.chain.asset,
      payTo: net.payTo,
      amount: '10000',
      extra: { name: 'USDC', version: '2' },
    });
    const { chain } = net;
    const usdc = { address: chain.asset, abi: chain.contracts.LocalUSDC.abi } as const;
    expect(await chain.publicClient.readContract({ ...usdc, functionName: 'name' })).toBe('USDC');
    expect(await chain.publicClient.readContract({ ...usdc, functionName: 'decimals' })).toBe(6);
    expect(await chain.publicClient.getChainId()).toBe(84532);
    expect(await chain.publicClient.getCode({ address: '0xcA11bde05977b3631167028862bE2a173976CA11' })).toMatch(/^0x[0-9a-f]{100,}/);
  });

  it('the official @x402/fetch client pays with a viem account: 200, settlement header, balances move by exactly the price', async () => {
    const buyer = net.chain.accounts[2]!;
    const before = await balances(buyer.address);
    const { pay, sent } = officialClient(buyer);
    const res = await pay(`${stack.url}/v1/price/CL`);
    expect(res.status).toBe(200);
    // WTI spot on 2026-08-18 (last row of ../shared/fixtures/eia/daily.RWTC.2024-01-02_2026-08-18.csv).
    expect(await res.json()).toMatchObject({ instrument: 'CL', value: 86.48 });
    const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settled).toMatchObject({ success: true, network: 'eip155:84532', payer: buyer.address });
    const receipt = await net.chain.publicClient.getTransactionReceipt({ hash: settled.transaction as `0x${string}` });
    expect(receipt.status).toBe('success');
    const after = await balances(buyer.address);
    expect(before.buyer - after.buyer).toBe(10_000n);
    expect(after.payTo - before.payTo).toBe(10_000n);

    // The same proof again: refused, nothing moves.
    const replay = await getJson(stack.url, '/v1/price/CL', { headers: { 'payment-signature': sent[0]! } });
    expectError(replay, 402, 'INVALID_PAYMENT');
    expect(replay.body.error.details.reason).toBe('nonce_already_used');
    expect(await balances(buyer.address)).toEqual(after);
  });

  it('charges the price of the route: a 0.02 USD history call moves 20000', async () => {
    const buyer = net.chain.accounts[3]!;
    const before = await balances(buyer.address);
    const res = await officialClient(buyer).pay(`${stack.url}/v1/history/CL?limit=5`);
    expect(res.status).toBe(200);
    const after = await balances(buyer.address);
    expect(before.buyer - after.buyer).toBe(20_000n);
    expect(after.payTo - before.payTo).toBe(20_000n);
  });

  it('the unmodified v1 client (x402-fetch 1.2.0) pays when it asks for the v1 body with X402-Version: 1; without it, it cannot', async () => {
    const buyer = net.chain.accounts[5]!;
    // x402-fetch selects the option whose v1 network name matches its wallet's chain (84532: base-sepolia).
    const wallet = createWalletClient({ account: buyer, chain: baseSepolia, transport: http(net.chain.rpcUrl) }).extend(publicActions);
    const pay = wrapFetchWithPaymentV1(fetch, wallet as never);

    // The spec's v2 body: the v1 client refuses it before signing anything (its network enum has v1 names only).
    await expect(pay(`${stack.url}/v1/price/CL`)).rejects.toThrow();

    const challenge = await fetch(`${stack.url}/v1/price/CL`, { headers: { 'X402-Version': '1' } });
    expect(challenge.status).toBe(402);
    const v1Body = await challenge.json();
    expect(v1Body).toMatchObject({
      x402Version: 1,
      accepts: [{ scheme: 'exact', network: 'base-sepolia', maxAmountRequired: '10000', resource: `${stack.url}/v1/price/CL`, payTo: net.payTo }],
    });
    // The header stays the v2 challenge, for v2 clients.
    expect(unb64(challenge.headers.get('payment-required'))).toMatchObject({
      x402Version: 2,
      accepts: [
        { scheme: 'exact', network: 'eip155:84532', amount: '10000' },
        { scheme: 'batch-settlement', network: 'eip155:84532', amount: '10000' },
      ],
    });

    const before = await balances(buyer.address);
    const res = await pay(`${stack.url}/v1/price/CL`, { headers: { 'X402-Version': '1' } });
    expect(res.status).toBe(200);
    // WTI spot on 2026-08-18 (last row of ../shared/fixtures/eia/daily.RWTC.2024-01-02_2026-08-18.csv).
    expect(await res.json()).toMatchObject({ instrument: 'CL', value: 86.48 });
    expect(unb64(res.headers.get('x-payment-response'))).toMatchObject({ success: true, payer: buyer.address, network: 'eip155:84532' });
    const after = await balances(buyer.address);
    expect(before.buyer - after.buyer).toBe(10_000n);
    expect(after.payTo - before.payTo).toBe(10_000n);
  });

  it('a hand-built v1-style X-PAYMENT (viem signTypedData, validAfter now - 600) is settled on chain', async () => {
    const buyer = net.chain.accounts[4]!;
    const before = await balances(buyer.address);
    const signed = await signAuthorization(buyer, { payTo: net.payTo, validAfter: nowS() - 600n });
    const res = await getJson(stack.url, '/v1/fx/EURUSD', { headers: { 'X-PAYMENT': b64(v1Payload(signed)) } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.instrument).toBe('EURUSD');
    const settled = unb64(res.headers.get('x-payment-response'));
    expect(settled).toMatchObject({ success: true, payer: buyer.address, network: 'eip155:84532' });
    expect(unb64(res.headers.get('payment-response'))).toEqual(settled);
    const after = await balances(buyer.address);
    expect(before.buyer - after.buyer).toBe(10_000n);
    expect(after.payTo - before.payTo).toBe(10_000n);
  });

  it('50 concurrent copies of one proof: one 200, 49 refusals, one transfer', async () => {
    const buyer = net.chain.accounts[5]!;
    const before = await balances(buyer.address);
    const header = b64(v1Payload(await signAuthorization(buyer, { payTo: net.payTo })));
    const results = await Promise.all(Array.from({ length: 50 }, () => getJson(stack.url, '/v1/price/CL', { headers: { 'X-PAYMENT': header } })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const refusals = results.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body?.error?.code} ${r.body?.error?.details?.reason}`);
    // A copy arriving while the winner holds the proof is told to retry (409), never to sign anew.
    expect(refusals.filter((r) => r !== '409 PAYMENT_IN_PROGRESS payment_in_progress')).toEqual(
      refusals.filter((r) => r === '402 INVALID_PAYMENT nonce_already_used'),
    );
    const after = await balances(buyer.address);
    expect(before.buyer - after.buyer).toBe(10_000n);
    expect(after.payTo - before.payTo).toBe(10_000n);
  });

  it('a payer without funds is refused by the facilitator: 402 insufficient_funds, nothing moves', async () => {
    const broke = privateKeyToAccount(generatePrivateKey());
    const before = await balances(broke.address);
    const header = b64(v1Payload(await signAuthorization(broke, { payTo: net.payTo })));
    const res = await getJson(stack.url, '/v1/price/CL', { headers: { 'X-PAYMENT': header } });
    expectError(res, 402, 'INVALID_PAYMENT');
    expect(res.body.error.details).toMatchObject({ reason: 'insufficient_funds', facilitator_reason: 'invalid_exact_evm_insufficient_balance' });
    expect(await balances(broke.address)).toEqual(before);
  });

  it('funds that vanish before settlement: the settlement fails, no data, nothing moves to the service', async () => {
    const buyer = net.chain.accounts[6]!;
    const header = b64(v1Payload(await signAuthorization(buyer, { payTo: net.payTo })));
    const payToBefore = await net.chain.balanceOf(net.payTo);
    hook.drainPayerBeforeSettle = true;
    try {
      const res = await getJson(stack.url, '/v1/price/CL', { headers: { 'X-PAYMENT': header } });
      expectError(res, 402, 'INVALID_PAYMENT');
      expect(res.body.error.details).toMatchObject({ stage: 'settlement', reason: 'insufficient_funds' });
      expect(res.body.instrument).toBeUndefined();
    } finally {
      hook.drainPayerBeforeSettle = false;
    }
    expect(await net.chain.balanceOf(net.payTo)).toBe(payToBefore);
    expect(await net.chain.balanceOf(buyer.address)).toBe(0n);
  });

  it('a settlement that outlives the facilitator timeout: pending, reconciled from the chain, delivered on retry, paid once', async () => {
    const buyer = net.chain.accounts[7]!;
    const before = await balances(buyer.address);
    const signed = await signAuthorization(buyer, { payTo: net.payTo });
    const header = b64(v1Payload(signed));
    hook.delaySettleMs = 4_500; // > X402_FACILITATOR_TIMEOUT_MS (4 s here): the service stops waiting, the chain still settles
    let first: Awaited<ReturnType<typeof getJson<any>>>;
    try {
      first = await getJson(stack.url, '/v1/price/CL', { headers: { 'X-PAYMENT': header } });
    } finally {
      hook.delaySettleMs = 0;
    }
    expectError(first, 504, 'SETTLEMENT_PENDING');
    expect(first.body.instrument).toBeUndefined();
    const key = { payer: buyer.address.toLowerCase(), nonce: signed.authorization.nonce.toLowerCase() };
    expect(await ledger.get(key)).toMatchObject({ state: 'PENDING' });

    // The facilitator finishes on its own; wait until the chain shows the authorization used.
    const chain = viemChainReader(net.chain.rpcUrl);
    await until(() => chain.authorizationUsed(net.chain.asset, buyer.address, signed.authorization.nonce), 100);
    const report = await reconcilePendingPayments({ ledger, chain, now: () => new Date() });
    const settled = report.settled.find((s) => s.nonce === key.nonce);
    expect(settled?.transaction).toMatch(/^0x[0-9a-f]{64}$/);

    const retry = await getJson(stack.url, '/v1/price/CL', { headers: { 'X-PAYMENT': header } });
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body.instrument).toBe('CL');
    expect(unb64(retry.headers.get('x-payment-response'))).toMatchObject({ success: true, transaction: settled!.transaction });
    const after = await balances(buyer.address);
    expect(before.buyer - after.buyer).toBe(10_000n);
    expect(after.payTo - before.payTo).toBe(10_000n);
    expectError(await getJson(stack.url, '/v1/price/CL', { headers: { 'X-PAYMENT': header } }), 402, 'INVALID_PAYMENT');
  });
});
