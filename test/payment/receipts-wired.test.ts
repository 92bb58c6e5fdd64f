/**
 * Signed offers and receipts as the running service serves them (shared/payment/delivery-receipt.ts,
 * payment-required.ts), in every lane and both transports, read and verified with the official
 * @x402/extensions client side only: the local runtime with the local chain (X402_LOCAL_CHAIN: real
 * EIP-3009 transfers and batch-settlement vouchers through the local facilitator), the unmodified
 * official x402 clients, the official MCP SDK client, and a Pro key in the credit table.
 *
 * For each paid answer: the receipt verifies (verifyReceiptSignatureJWS, with the key the JWS names,
 * which must be the one /.well-known/x402.json publishes), matches the signed offer of the 402 and
 * the payer (verifyReceiptMatchesOffer), and binds the amount (SPEC.md's price: 0.01 USD = 10000
 * USDC atomic units = 1 credit), the settlement (or the call's pending id) and the SHA-256 of the
 * body this client received.
 */
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { x402Client as coreClient } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { toClientEvmSigner } from '@x402/evm';
import { BatchSettlementEvmScheme, InMemoryClientChannelStorage } from '@x402/evm/batch-settlement/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import {
  type DecodedOffer,
  decodeSignedOffers,
  extractJWSHeader,
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  type JWSSignedReceipt,
  type SignedReceipt,
  verifyOfferSignatureJWS,
  verifyReceiptMatchesOffer,
  verifyReceiptSignatureJWS,
} from '@x402/extensions/offer-receipt';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import type { HDAccount } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { DynamoCreditLedger, newKeyRecord } from '../../shared/pro/credit-ledger';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { createDocumentClient } from '../../shared/store/client';
import { SPEC_PAID_ROUTES } from '../helpers/spec-prices';
import { getJson, startTestStack } from '../helpers/stack';

/** SPEC.md's price of /v1/price/{code} and /v1/fx/{pair}, in USDC atomic units (6 decimals) and credits (1 credit = 0.01 USD). */
const specPrice = (path: string) => {
  const usd = SPEC_PAID_ROUTES.find(([p]) => p === path)![2];
  return { atomic: String(Math.round(Number(usd) * 1e6)), credits: String(Math.round(Number(usd) * 100)) };
};
const PRICE = specPrice('/v1/price/{code}');
const FX = specPrice('/v1/fx/{pair}');

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The first signed offer of a PaymentRequired (HTTP 402 body or MCP refusal), each offer's signature checked. */
const offerOf = async (required: unknown, scheme: string): Promise<DecodedOffer> => {
  const offers = decodeSignedOffers(extractOffersFromPaymentRequired(required as never));
  expect(offers.length).toBe((required as { accepts: unknown[] }).accepts.length);
  for (const o of offers) await verifyOfferSignatureJWS(o.signedOffer as never);
  const offer = offers.find((o) => o.scheme === scheme);
  expect(offer, scheme).toBeDefined();
  return offer!;
};

interface Expected {
  offer: DecodedOffer;
  payer: string;
  lane: 'exact' | 'batch-settlement' | 'pro';
  amount: string;
  /** The body the client received, exactly. */
  body: string;
  /** What the transaction must be (a settlement hash, a pending id pattern, credits:…). */
  transaction: RegExp | string;
}

describe('every paid answer carries a signed receipt; every 402 signed offers (official @x402/extensions verification)', () => {
  let stack: LocalStack;
  let kid: string;
  let mcp: Client;
  let ledger: DynamoCreditLedger;

  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: '1', X402_LOCAL_CHAIN: '1', X402_LOCAL_BLOCK_TIME: '2' });
    const catalog = await getJson(stack.url, '/.well-known/x402.json');
    expect(catalog.body.receipt_signing).toMatchObject({ format: 'jws', kid: expect.stringMatching(/^did:jwk:/), previous_kids: [] });
    kid = catalog.body.receipt_signing.kid;
    mcp = new Client({ name: 'receipts-test', version: '1' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${stack.url}/api/mcp`)));
    ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
  }, 180_000);
  afterAll(async () => {
    await mcp?.close();
    await stack?.close();
  });

  /** The receipt verifies under the published key and states what was bought, paid and served. */
  const expectDelivered = async (receipt: SignedReceipt | undefined, e: Expected) => {
    expect(receipt?.format, e.lane).toBe('jws');
    const jws = receipt as JWSSignedReceipt;
    expect(extractJWSHeader(jws.signature).kid, 'signed by the published key').toBe(kid);
    const claims = (await verifyReceiptSignatureJWS(jws)) as unknown as Record<string, unknown>;
    expect(claims, e.lane).toMatchObject({ resourceUrl: e.offer.resourceUrl, lane: e.lane, amount: e.amount, bodySha256: sha256(e.body) });
    expect(claims.transaction, e.lane).toMatch(e.transaction);
    expect(verifyReceiptMatchesOffer(jws, e.offer, [e.payer]), `${e.lane}: matches the offer and payer`).toBe(true);
    expect(verifyReceiptMatchesOffer(jws, e.offer, ['0x0000000000000000000000000000000000000001']), `${e.lane}: not another payer`).toBe(false);
  };

  const batchClient = (account: HDAccount, storage: InMemoryClientChannelStorage) =>
    new coreClient().register(
      stack.payments!.chain.network,
      new BatchSettlementEvmScheme(toClientEvmSigner(account, stack.payments!.chain.publicClient as never), { storage }),
    );

  describe('HTTP', () => {
    it('exact: the official client pays; PAYMENT-RESPONSE carries the receipt of this transfer, amount and body', async () => {
      const buyer = stack.payments!.chain.accounts[2]!;
      const challenge = await getJson(stack.url, '/v1/price/CL');
      expect(challenge.status).toBe(402);
      const offer = await offerOf(challenge.body, 'exact');
      const res = await wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: buyer }))(`${stack.url}/v1/price/CL`);
      const body = await res.clone().text();
      expect(res.status, body).toBe(200);
      const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
      await expectDelivered(extractReceiptFromResponse(res), {
        offer,
        payer: buyer.address,
        lane: 'exact',
        amount: PRICE.atomic,
        body,
        transaction: settlement.transaction,
      });
      expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    });

    it('batch-settlement: the official client pays with a voucher; the receipt names the settlement or the pending call', async () => {
      const buyer = stack.payments!.chain.accounts[3]!;
      const storage = new InMemoryClientChannelStorage();
      const offer = await offerOf((await getJson(stack.url, '/v1/price/NG')).body, 'batch-settlement');
      const pay = wrapFetchWithPayment(fetch, batchClient(buyer, storage));
      // The first call deposits (a transaction), the second is a voucher only (pending until the batch is claimed).
      for (const transaction of [/^0x[0-9a-f]{64}$/, /^pending:/]) {
        const res = await pay(`${stack.url}/v1/price/NG`);
        const body = await res.clone().text();
        expect(res.status, body).toBe(200);
        await expectDelivered(extractReceiptFromResponse(res), {
          offer,
          payer: buyer.address,
          lane: 'batch-settlement',
          amount: PRICE.atomic,
          body,
          transaction,
        });
      }
    }, 120_000);

    it('Pro key: X-Credits-Receipt carries the receipt of the credits; no PAYMENT-RESPONSE (no x402 payment was made)', async () => {
      const key = generateKey();
      await ledger.put(newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }));
      const offer = await offerOf((await getJson(stack.url, '/v1/price/CL')).body, 'exact');
      const res = await fetch(`${stack.url}/v1/price/CL`, { headers: { authorization: `Bearer ${key}` } });
      const body = await res.clone().text();
      expect(res.status, body).toBe(200);
      expect(res.headers.get('payment-response')).toBeNull();
      const receipt = decodePaymentResponseHeader(res.headers.get('x-credits-receipt')!).extensions?.['offer-receipt'] as { info: { receipt: SignedReceipt } };
      await expectDelivered(receipt.info.receipt, {
        offer,
        payer: `key:${hashKey(key).slice(0, 12)}`,
        lane: 'pro',
        amount: PRICE.credits,
        body,
        transaction: /^credits:/,
      });
    });
  });

  describe('MCP (official SDK client)', () => {
    const tool = { name: 'get_fx', arguments: { pair: 'EURUSD' } };
    const textOf = (res: Awaited<ReturnType<Client['callTool']>>) => (res.content as Array<{ text: string }>)[0]!.text;
    const receiptIn = (meta: unknown, key: string) =>
      (meta as Record<string, { extensions?: Record<string, { info: { receipt: SignedReceipt } }> }>)?.[key]?.extensions?.['offer-receipt']?.info.receipt;

    it('exact: the refusal carries signed offers; the paid result`s _meta["x402/payment-response"] the receipt', async () => {
      const buyer = stack.payments!.chain.accounts[4]!;
      const unpaid = await mcp.callTool(tool);
      expect(unpaid.isError).toBe(true);
      const offer = await offerOf(unpaid.structuredContent, 'exact');
      const payload = await registerExactEvmScheme(new x402Client(), { signer: buyer }).createPaymentPayload(unpaid.structuredContent as never);
      const paid = await mcp.callTool({ ...tool, _meta: { 'x402/payment': payload } });
      expect(paid.isError, textOf(paid).slice(0, 300)).toBeFalsy();
      const settlement = paid._meta?.['x402/payment-response'] as { transaction: string };
      await expectDelivered(receiptIn(paid._meta, 'x402/payment-response'), {
        offer,
        payer: buyer.address,
        lane: 'exact',
        amount: FX.atomic,
        body: textOf(paid),
        transaction: settlement.transaction,
      });
    });

    it('batch-settlement: a voucher in _meta; the receipt in the result', async () => {
      const buyer = stack.payments!.chain.accounts[5]!;
      const storage = new InMemoryClientChannelStorage();
      const unpaid = await mcp.callTool(tool);
      const offer = await offerOf(unpaid.structuredContent, 'batch-settlement');
      const payload = await batchClient(buyer, storage).createPaymentPayload(unpaid.structuredContent as never);
      const paid = await mcp.callTool({ ...tool, _meta: { 'x402/payment': payload } });
      expect(paid.isError, textOf(paid).slice(0, 300)).toBeFalsy();
      await expectDelivered(receiptIn(paid._meta, 'x402/payment-response'), {
        offer,
        payer: buyer.address,
        lane: 'batch-settlement',
        amount: FX.atomic,
        body: textOf(paid),
        transaction: /^(0x[0-9a-f]{64}|pending:.+)$/,
      });
    }, 120_000);

    it('Pro key: the receipt of the credits in _meta["commodity-data/credits-receipt"]', async () => {
      const key = generateKey();
      await ledger.put(newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }));
      const offer = await offerOf((await mcp.callTool(tool)).structuredContent, 'exact');
      const keyed = new Client({ name: 'receipts-test-keyed', version: '1' });
      await keyed.connect(new StreamableHTTPClientTransport(new URL(`${stack.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
      try {
        const paid = await keyed.callTool(tool);
        expect(paid.isError, textOf(paid).slice(0, 300)).toBeFalsy();
        expect(paid._meta?.['x402/payment-response']).toBeUndefined();
        await expectDelivered(receiptIn(paid._meta, 'commodity-data/credits-receipt'), {
          offer,
          payer: `key:${hashKey(key).slice(0, 12)}`,
          lane: 'pro',
          amount: FX.credits,
          body: textOf(paid),
          transaction: /^credits:/,
        });
      } finally {
        await keyed.close();
      }
    });
  });
});
