/**
 * The x402 lane over HTTP against the local runtime (embedded store for the nonce claims), with a
 * programmable fake facilitator on loopback so every facilitator answer (refusals, failures,
 * timeouts, pending settlements) can be produced. Payments carry real EIP-712 signatures.
 * The real chain and the official client are exercised in local-chain.test.ts.
 */
import { SPEC_PAID_ROUTES } from '../helpers/spec-prices';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { parsePaymentRequired } from '@x402/core/schemas';
import { appendPaymentIdentifierToExtensions, generatePaymentId, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { priceHandlers } from '../../shared/families/price/handlers';
import { createServices, type Services } from '../../shared/services';
import { createFamilyHandler } from '../../shared/http/family-handler';
import type { FamilyHandlers } from '../../shared/http/types';
import { DynamoReconcileLedger } from '../../shared/payment/ledger';
import { isChargeable, PRICE_ROUTES } from '../../shared/routes/table';
import { reconcilePendingPayments, type ChainReader } from '../../shared/payment/reconcile';
import { MAX_VERIFIES_PER_PAYER } from '../../shared/payment/exact-lane';
import { PAID_ROUTES, ROUTES, usdToAtomic, type RouteDef } from '../../shared/routes';
import { createDocumentClient } from '../../shared/store/client';
import { expectError } from '../helpers/contract';
import { getJson, startTestStack, type JsonResponse } from '../helpers/stack';
import {
  acceptedFor,
  b64,
  closedPortUrl,
  newClaim,
  settleClaim,
  nowS,
  signAuthorization,
  startFakeFacilitator,
  txHash,
  unb64,
  v1Payload,
  v2Payload,
  type FakeFacilitator,
  type SignOptions,
} from './helpers';

/** A sample concrete path for each paid route (params that every family accepts). */
const SAMPLE_PARAMS: Record<string, string> = { code: 'CL', root: 'CL', series: 'crude_ex_spr', pair: 'EURUSD', sector: 'energy' };
const samplePath = (r: RouteDef): { path: string; query: string } => ({
  path: r.path.replace(/\{(\w+)\}/g, (_m, p: string) => SAMPLE_PARAMS[p] ?? 'x'),
  query: r.id === 'GET /v1/prices' ? 'codes=CL,BZ' : '',
});

const payTo = privateKeyToAccount(generatePrivateKey()).address;

describe('x402 lane over HTTP (fake facilitator)', () => {
  let stack: LocalStack;
  let fake: FakeFacilitator;
  let ledger: DynamoReconcileLedger;
  const get = (path: string, headers: Record<string, string> = {}): Promise<JsonResponse> => getJson(stack.url, path, { headers });

  /** A fresh buyer's signed payment for a 0.01 USD route, as a base64 header value. */
  const payment = async (o: Partial<SignOptions> = {}, shape: 'v1' | 'v2' = 'v2', amount = '10000') => {
    const buyer = privateKeyToAccount(generatePrivateKey());
    const signed = await signAuthorization(buyer, { payTo, value: BigInt(amount), ...o });
    return { buyer, signed, header: b64(shape === 'v2' ? v2Payload(signed, acceptedFor(payTo, amount)) : v1Payload(signed)) };
  };
  const claimOf = (signed: { authorization: { from: string; nonce: string } }) =>
    ledger.get({ payer: signed.authorization.from, nonce: signed.authorization.nonce });

  /** The service's clock runs this far ahead of the test's: authorizations go stale when a test says so, not when the machine is slow. */
  let skewMs = 0;
  const later = (ms: number) => {
    skewMs += ms;
  };

  beforeAll(async () => {
    fake = await startFakeFacilitator();
    stack = await startTestStack({ X402_ENFORCE: '1', X402_PAY_TO: payTo, X402_FACILITATOR_URL: fake.url, X402_FACILITATOR_TIMEOUT_MS: '2500' }, true, {
      now: () => new Date(Date.now() + skewMs),
    });
    const config = stack.config;
    ledger = new DynamoReconcileLedger(createDocumentClient(config), config.CREDITS_TABLE);
  });
  afterAll(async () => {
    await stack?.close();
    await fake?.close();
  });
  beforeEach(() => {
    fake.reset();
    skewMs = 0;
  });

  describe('the 402 challenge', () => {
    const chargeable = PAID_ROUTES.filter((r) => isChargeable(r, { INDICATIVE_FUTURES: false }));

    it.each(chargeable.map((r) => [r.id, r] as const))('%s answers 402 with the x402 body and the same document in PAYMENT-REQUIRED', async (_id, route) => {
      const { path, query } = samplePath(route);
      const res = await get(query ? `${path}?${query}` : path);
      expect(res.status, JSON.stringify(res.body)).toBe(402);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const amount = usdToAtomic(route.priceUsd!);
      const { extensions, ...body } = res.body;
      expect(extensions.bazaar.info.input).toMatchObject({ type: 'http', method: 'GET' });
      expect(body).toEqual({
        x402Version: 2,
        error: 'PAYMENT_REQUIRED',
        resource: {
          url: `${stack.url}${path}${query ? `?${query}` : ''}`,
          description: route.summary,
          mimeType: route.mimeType,
          serviceName: 'Commodity data service',
          tags: ['commodities', route.family],
        },
        accepts: [
          {
            scheme: 'exact',
            network: 'eip155:84532',
            amount,
            maxAmountRequired: amount,
            resource: path,
            description: route.summary,
            mimeType: route.mimeType,
            payTo,
            asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
            maxTimeoutSeconds: 60,
            extra: { name: 'USDC', version: '2' },
          },
        ],
      });
      const header = unb64(res.headers.get('payment-required'));
      expect(header).toEqual(res.body);
      expect(parsePaymentRequired(header).success).toBe(true);
      expect(res.headers.get('access-control-expose-headers')).toContain('PAYMENT-RESPONSE');
    });

    it("asks every priced route for SPEC.md's price (a literal copy), in USDC atomic units", async () => {
      for (const [path, , usd] of SPEC_PAID_ROUTES.filter(([p]) => !p.startsWith('/v1/curve') && !p.startsWith('/v1/spreads/calendar'))) {
        const route = ROUTES.find((r) => r.path === path && r.method === 'GET')!;
        const { path: concrete, query } = samplePath(route);
        const res = await get(query ? `${concrete}?${query}` : concrete);
        expect(res.status, path).toBe(402);
        // 6 decimals, by hand: '0.25' -> 250000
        const [whole, cents] = usd.split('.') as [string, string];
        expect(res.body.accepts[0].maxAmountRequired, path).toBe(String(Number(whole) * 1_000_000 + Number(cents) * 10_000));
      }
    });

    it('prices by the route table: 0.01 USD -> "10000", 0.25 USD -> "250000"', async () => {
      expect((await get('/v1/price/CL')).body.accepts[0].amount).toBe('10000');
      expect((await get('/v1/decision/all')).body.accepts[0].amount).toBe('250000');
    });

    it('keeps the curve and the calendar spread free stubs: no challenge, nothing charged', async () => {
      const sent = await payment();
      for (const path of ['/v1/curve/CL', '/v1/spreads/calendar/CL']) {
        const res = await get(path, { 'payment-signature': sent.header });
        expect(res.status, path).toBe(200);
        expect(res.body).toMatchObject({ stub: true, charged: false });
        expect(res.headers.get('payment-required')).toBeNull();
        expect(res.headers.get('payment-response')).toBeNull();
      }
      expect(fake.calls.verify).toHaveLength(0);
      expect(await claimOf(sent.signed)).toBeNull();
    });

    it('never challenges a free route, even with X-Force-402', async () => {
      const res = await get('/v1/catalog', { 'x-force-402': '1' });
      expect(res.status).toBe(200);
      expect(res.headers.get('payment-required')).toBeNull();
    });

    it('validates parameters before it challenges', async () => {
      expectError(await get('/v1/price/%3Cx%3E'), 400, 'INVALID_PARAMETER');
    });
  });

  describe('paying', () => {
    it('serves a v2 PAYMENT-SIGNATURE payment after verify and settle, with the settlement in both headers', async () => {
      const sent = await payment();
      const res = await get('/v1/price/CL', { 'payment-signature': sent.header });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // WTI spot on 2026-08-18, the last row of ../shared/fixtures/eia/daily.RWTC.2024-01-02_2026-08-18.csv.
      expect(res.body).toMatchObject({ instrument: 'CL', value: 86.48 });
      const settled = unb64(res.headers.get('payment-response'));
      expect(settled).toEqual({
        success: true,
        transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        network: 'eip155:84532',
        payer: sent.buyer.address,
        // The signed receipt of this answer (offer-receipt; verified in test/payment/receipts-wired.test.ts).
        extensions: { 'offer-receipt': { info: { receipt: { format: 'jws', signature: expect.any(String) } } } },
      });
      expect(unb64(res.headers.get('x-payment-response'))).toEqual(settled);
      expect(fake.calls.verify).toHaveLength(1);
      expect(fake.calls.settle).toHaveLength(1);
      expect(await claimOf(sent.signed)).toMatchObject({
        state: 'SETTLED',
        transaction: settled.transaction,
        delivered: true,
        amount: '10000',
        route: 'GET /v1/price/{code}',
      });
      const month = new Date().toISOString().slice(0, 7);
      expect((await ledger.salesOfMonth(month)).find((s) => s.transaction === settled.transaction)).toMatchObject({
        payer: sent.buyer.address.toLowerCase(),
        amount: '10000',
        route: 'GET /v1/price/{code}',
        path: '/v1/price/CL',
      });
    });

    it('accepts a v1 payload in X-PAYMENT and settles it as a v2 payload with our requirements', async () => {
      const sent = await payment({ validAfter: nowS() - 600n }, 'v1');
      const res = await get('/v1/fx/EURUSD', { 'x-payment': sent.header });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(unb64(res.headers.get('x-payment-response'))).toMatchObject({ success: true, payer: sent.buyer.address });
      const body = fake.calls.settle[0] as any;
      expect(body.x402Version).toBe(2);
      expect(body.paymentPayload).toMatchObject({ x402Version: 2, accepted: body.paymentRequirements, payload: sent.signed });
      expect(body.paymentRequirements).toEqual(acceptedFor(payTo));
    });

    it('accepts a v2 payload sent under X-PAYMENT (hybrid clients)', async () => {
      const sent = await payment();
      expect((await get('/v1/price/CL', { 'x-payment': sent.header })).status).toBe(200);
    });

    it('binds a payment to what was bought: a proof for /v1/price/CL does not buy /v1/fx/EURUSD at the same price', async () => {
      const sent = await payment();
      const res = await get('/v1/fx/EURUSD', { 'payment-signature': sent.header });
      expectError(res, 402, 'INVALID_PAYMENT');
      expect(res.body.error.details.reason).toBe('resource_mismatch');
      expect(fake.calls.verify.length + fake.calls.settle.length).toBe(0);
    });
  });

  describe('idempotent retries (x402 payment-identifier extension)', () => {
    /** A v2 payment that names itself, as a client using appendPaymentIdentifierToExtensions sends it. */
    const namedPayment = async (id: string, path = '/v1/price/CL') => {
      const buyer = privateKeyToAccount(generatePrivateKey());
      const signed = await signAuthorization(buyer, { payTo });
      const challenge = unb64((await get(path)).headers.get('payment-required'));
      const extensions = appendPaymentIdentifierToExtensions({ [PAYMENT_IDENTIFIER]: challenge.extensions[PAYMENT_IDENTIFIER] }, id);
      const payload = { ...v2Payload(signed, acceptedFor(payTo), `${stack.url}${path}`), extensions };
      return { buyer, signed, header: b64(payload), payload };
    };

    it('the 402 declares the extension as optional, with its schema', async () => {
      const challenge = unb64((await get('/v1/price/CL')).headers.get('payment-required'));
      expect(challenge.extensions[PAYMENT_IDENTIFIER]).toEqual({
        info: { required: false },
        schema: expect.objectContaining({ required: ['required'], properties: expect.objectContaining({ id: expect.objectContaining({ minLength: 16 }) }) }),
      });
    });

    it('the facilitator gets the extensions; the claim keeps what a second /settle needs, without them (billed by size)', async () => {
      fake.settle = async () => 'hang'; // pending: the claim keeps its payload for the reconciler
      const sent = await namedPayment(generatePaymentId());
      expectError(await get('/v1/price/CL', { 'payment-signature': sent.header }), 504, 'SETTLEMENT_PENDING');
      expect((fake.calls.verify[0] as { paymentPayload: { extensions?: unknown } }).paymentPayload.extensions).toBeDefined();
      const claim = await claimOf(sent.signed);
      expect(claim).toMatchObject({ state: 'PENDING' });
      const kept = JSON.parse(claim!.payload!) as Record<string, unknown>;
      expect(kept).not.toHaveProperty('extensions');
      expect(kept).toMatchObject({ x402Version: 2, accepted: { amount: '10000' }, payload: { signature: sent.signed.signature } });
    });

    it('the same id and payload again: the answer again with the same PAYMENT-RESPONSE, settled once', async () => {
      const id = generatePaymentId();
      const sent = await namedPayment(id);
      const first = await get('/v1/price/CL', { 'payment-signature': sent.header });
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const second = await get('/v1/price/CL', { 'payment-signature': sent.header });
      expect(second.status, JSON.stringify(second.body)).toBe(200);
      expect(second.body).toEqual(first.body);
      expect(unb64(second.headers.get('payment-response'))).toEqual(unb64(first.headers.get('payment-response')));
      expect(fake.calls.settle).toHaveLength(1);
      expect(fake.calls.verify).toHaveLength(1);
      // Without a payment id the same replay is refused as before.
      const unnamed = await payment();
      expect((await get('/v1/price/CL', { 'payment-signature': unnamed.header })).status).toBe(200);
      expectError(await get('/v1/price/CL', { 'payment-signature': unnamed.header }), 402, 'INVALID_PAYMENT');
    });

    it('the same id with another payload, or for another resource: 409 PAYMENT_ID_CONFLICT, nothing verified or settled', async () => {
      const id = generatePaymentId();
      const sent = await namedPayment(id);
      expect((await get('/v1/price/CL', { 'payment-signature': sent.header })).status).toBe(200);
      fake.reset();
      // Another authorization by the same payer under the same id.
      const signed = await signAuthorization(sent.buyer, { payTo });
      const other = b64({ ...sent.payload, payload: signed });
      const conflict = await get('/v1/price/CL', { 'payment-signature': other });
      expectError(conflict, 409, 'PAYMENT_ID_CONFLICT');
      expect(conflict.body.error.details).toMatchObject({ reason: 'payment_id_conflict', payment_id: id });
      // The same id for another resource, with its own fresh payment.
      const elsewhere = await namedPayment(generatePaymentId(), '/v1/fx/EURUSD');
      expect((await get('/v1/fx/EURUSD', { 'payment-signature': elsewhere.header })).status).toBe(200);
      const reused = b64({ ...elsewhere.payload, extensions: sent.payload.extensions });
      // Ids are per payer: another payer's proof under this id is judged on its own (a replay here).
      const otherPayer = await get('/v1/fx/EURUSD', { 'payment-signature': reused });
      expectError(otherPayer, 402, 'INVALID_PAYMENT');
      expect(otherPayer.body.error.details.reason).toBe('nonce_already_used');
      expect(fake.calls.settle).toHaveLength(1);
      expect(conflict.body.instrument).toBeUndefined();
    });

    it('a malformed id is refused before any claim: 402 invalid_payment_identifier', async () => {
      const sent = await namedPayment(generatePaymentId());
      const bad = b64({ ...sent.payload, extensions: { [PAYMENT_IDENTIFIER]: { info: { required: false, id: 'short' } } } });
      const res = await get('/v1/price/CL', { 'payment-signature': bad });
      expectError(res, 402, 'INVALID_PAYMENT');
      expect(res.body.error.details.reason).toBe('invalid_payment_identifier');
      expect(await claimOf(sent.signed)).toBeNull();
    });

    it('an idempotent retry after the authorization expired still gets the answer, without a charge', async () => {
      const id = generatePaymentId();
      const buyer = privateKeyToAccount(generatePrivateKey());
      const signed = await signAuthorization(buyer, { payTo }); // valid for 60 s
      const challenge = unb64((await get('/v1/price/CL')).headers.get('payment-required'));
      const extensions = appendPaymentIdentifierToExtensions({ [PAYMENT_IDENTIFIER]: challenge.extensions[PAYMENT_IDENTIFIER] }, id);
      const header = b64({ ...v2Payload(signed, acceptedFor(payTo), `${stack.url}/v1/price/CL`), extensions });
      const first = await get('/v1/price/CL', { 'payment-signature': header });
      expect(first.status).toBe(200);
      later(10 * 60_000); // ten minutes on: the authorization is long expired
      const retry = await get('/v1/price/CL', { 'payment-signature': header });
      expect(retry.status, JSON.stringify(retry.body)).toBe(200);
      expect(retry.body).toEqual(first.body);
      expect(fake.calls.settle).toHaveLength(1);
      // Past the replay window (an hour), the id no longer brings the answer back.
      later(60 * 60_000);
      const stale = await get('/v1/price/CL', { 'payment-signature': header });
      expectError(stale, 402, 'INVALID_PAYMENT');
      expect(stale.body.error.details.reason).toBe('authorization_expired');
      expect(fake.calls.settle).toHaveLength(1);
    });
  });

  describe('bad payments: 402 INVALID_PAYMENT with a reason, no data, nothing settled', () => {
    const expectRefused = async (res: JsonResponse, reason: string) => {
      expectError(res, 402, 'INVALID_PAYMENT');
      expect(res.body.error.details.reason).toBe(reason);
      expect(res.body.instrument).toBeUndefined();
      expect(fake.calls.settle).toHaveLength(0);
      // A refused payment still tells the client how to pay.
      expect(unb64(res.headers.get('payment-required'))).toMatchObject({ x402Version: 2, error: reason, accepts: [{ amount: '10000' }] });
    };

    it.each([
      ['malformed base64', '!!!not base64!!!', 'malformed_base64'],
      ['malformed JSON', b64('{"x402Version": 2, '), 'malformed_json'],
      ['a payload of the wrong shape', b64({ x402Version: 2, accepted: {}, payload: {} }), 'invalid_payload'],
      ['an oversized header', 'QUFB'.repeat(2100), 'payment_header_too_large'],
    ])('%s', async (_n, header, reason) => {
      await expectRefused(await get('/v1/price/CL', { 'payment-signature': header }), reason);
    });

    it.each([
      ['a wrong scheme', async () => b64(v1Payload((await payment()).signed, 'base-sepolia', 'upto')), 'scheme_mismatch'],
      ['a wrong network', async () => b64(v1Payload((await payment()).signed, 'base')), 'network_mismatch'],
      [
        'a wrong asset',
        async () => b64(v2Payload((await payment()).signed, acceptedFor(payTo, '10000', { asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }))),
        'asset_mismatch',
      ],
      ['a wrong payTo', async () => (await payment({ payTo: privateKeyToAccount(generatePrivateKey()).address }, 'v1')).header, 'pay_to_mismatch'],
      ['a value below the price', async () => (await payment({}, 'v2', '9999')).header, 'amount_below_price'],
      ['an expired window', async () => (await payment({ validBefore: nowS() - 10n })).header, 'authorization_expired'],
      ['a not-yet-valid window', async () => (await payment({ validAfter: nowS() + 300n })).header, 'authorization_not_yet_valid'],
    ])('%s', async (_n, build, reason) => {
      const header = await build();
      await expectRefused(await get('/v1/price/CL', { 'payment-signature': header }), reason);
      expect(fake.calls.verify).toHaveLength(0); // the terms are refused locally, before any facilitator call
    });

    it('a signature that cannot be ECDSA at all (v = 34) is refused here: no claim, nothing settled', async () => {
      const sent = await payment();
      const header = b64(v2Payload({ ...sent.signed, signature: `0x${'22'.repeat(65)}` }, acceptedFor(payTo)));
      await expectRefused(await get('/v1/price/CL', { 'payment-signature': header }), 'invalid_signature');
      expect(await claimOf(sent.signed)).toBeNull();
      expect(fake.calls.settle).toHaveLength(0);
    });

    it("a signature by another key is /verify's to refuse: invalid_signature, its claim released, nothing settled", async () => {
      const sent = await payment({ signer: privateKeyToAccount(generatePrivateKey()) });
      const res = await get('/v1/price/CL', { 'payment-signature': sent.header });
      await expectRefused(res, 'invalid_signature');
      expect(res.body.error.details.facilitator_reason).toBe('invalid_exact_evm_signature');
      expect(fake.calls.verify).toHaveLength(1);
      expect(await claimOf(sent.signed)).toMatchObject({ state: 'RELEASED' });
      expect(fake.calls.settle).toHaveLength(0);
    });

    it('a payer without funds (the facilitator refuses at verify)', async () => {
      fake.verify = async (b) => ({
        body: { isValid: false, invalidReason: 'invalid_exact_evm_insufficient_balance', payer: b.paymentPayload.payload.authorization.from },
      });
      const sent = await payment();
      const res = await get('/v1/price/CL', { 'payment-signature': sent.header });
      await expectRefused(res, 'insufficient_funds');
      expect(res.body.error.details.facilitator_reason).toBe('invalid_exact_evm_insufficient_balance');
      expect(await claimOf(sent.signed)).toMatchObject({ state: 'RELEASED' });
    });

    it('an expired proof the ledger still owes data for (settled, undelivered) is served on retry, once', async () => {
      const sent = await payment(); // valid for 60 s
      const key = { payer: sent.signed.authorization.from.toLowerCase(), nonce: sent.signed.authorization.nonce.toLowerCase() };
      await ledger.claim({
        ...newClaim(key.payer, key.nonce, new Date(), 'earlier-request'),
        route: 'GET /v1/price/{code}',
        path: '/v1/price/CL',
        payTo,
        amount: '10000',
      });
      await settleClaim(ledger, key, 'earlier-request', '0xfeed', new Date(), false);
      later(5 * 60_000); // five minutes on: the authorization is expired by the freshness check
      fake.reset();
      const retry = await get('/v1/price/CL', { 'payment-signature': sent.header });
      expect(retry.status).toBe(200);
      expect(retry.body.instrument).toBe('CL');
      expect(unb64(retry.headers.get('payment-response'))).toMatchObject({ success: true, transaction: '0xfeed' });
      expect(fake.calls.settle).toHaveLength(0); // delivered, not charged again
      await expectRefused(await get('/v1/price/CL', { 'payment-signature': sent.header }), 'authorization_expired');
    });

    it('data owed to a payment (settled, undelivered) goes only to a payload its payer signed: a forgery naming the nonce takes nothing', async () => {
      const sent = await payment();
      const key = { payer: sent.signed.authorization.from.toLowerCase(), nonce: sent.signed.authorization.nonce.toLowerCase() };
      await ledger.claim({ ...newClaim(key.payer, key.nonce, new Date(), 'earlier-request'), payTo, amount: '10000' });
      await settleClaim(ledger, key, 'earlier-request', '0xfeed', new Date(), false);
      // The same authorization (payer, nonce, terms), signed by someone else: no /verify runs before
      // owed data leaves, so the service recovers the signer itself.
      const forger = privateKeyToAccount(generatePrivateKey());
      const forged = await signAuthorization(forger, {
        payTo,
        nonce: sent.signed.authorization.nonce,
        validBefore: BigInt(sent.signed.authorization.validBefore),
        from: sent.signed.authorization.from,
      });
      fake.reset();
      const stolen = await get('/v1/price/CL', { 'payment-signature': b64(v2Payload(forged, acceptedFor(payTo))) });
      await expectRefused(stolen, 'invalid_signature');
      expect(await claimOf(sent.signed)).toMatchObject({ state: 'SETTLED', delivered: false });
      const owner = await get('/v1/price/CL', { 'payment-signature': sent.header });
      expect(owner.status).toBe(200);
      expect(unb64(owner.headers.get('payment-response'))).toMatchObject({ success: true, transaction: '0xfeed' });
      expect(fake.calls.settle).toHaveLength(0);
    });

    it('a sequential replay of a settled payment', async () => {
      const sent = await payment();
      expect((await get('/v1/price/CL', { 'payment-signature': sent.header })).status).toBe(200);
      fake.reset();
      const replay = await get('/v1/price/CL', { 'payment-signature': sent.header });
      await expectRefused(replay, 'nonce_already_used'); // nothing settled (the facilitator may have been asked to verify, alongside the claim)
    });

    it('50 concurrent copies of one payment: one answer, one settlement', async () => {
      let active = 0;
      let most = 0;
      fake.verify = async (b) => {
        most = Math.max(most, ++active);
        await new Promise((r) => setTimeout(r, 20));
        active--;
        return { body: { isValid: true, payer: b.paymentPayload.payload.authorization.from } };
      };
      const sent = await payment();
      const results = await Promise.all(Array.from({ length: 50 }, () => get('/v1/price/CL', { 'payment-signature': sent.header })));
      const ok = results.filter((r) => r.status === 200);
      expect(ok).toHaveLength(1);
      // A copy that arrives while the winner is at the facilitator's /settle is told to retry (its
      // money may be moving); every other copy is a replay.
      for (const r of results.filter((x) => x.status !== 200)) {
        if (r.status === 409) expect(r.body.error).toMatchObject({ code: 'PAYMENT_IN_PROGRESS', retryable: true });
        else {
          expectError(r, 402, 'INVALID_PAYMENT');
          expect(r.body.error.details.reason).toBe('nonce_already_used');
        }
      }
      // /verify runs alongside the claim only while the payer has a free verify slot.
      expect(most).toBeGreaterThanOrEqual(1);
      expect(most).toBeLessThanOrEqual(MAX_VERIFIES_PER_PAYER);
      expect(fake.calls.settle).toHaveLength(1);
      // Once the winner is done, the retry a 504 asked for is a replay: nothing more is owed.
      fake.reset();
      await expectRefused(await get('/v1/price/CL', { 'payment-signature': sent.header }), 'nonce_already_used');
    });
  });

  describe('settlement outcomes', () => {
    it('a failed settlement returns no data and keeps the proof unused', async () => {
      fake.settle = async (b) => ({
        body: {
          success: false,
          errorReason: 'invalid_exact_evm_insufficient_balance',
          transaction: '',
          network: 'eip155:84532',
          payer: b.paymentPayload.payload.authorization.from,
        },
      });
      const sent = await payment();
      const res = await get('/v1/price/CL', { 'payment-signature': sent.header });
      expectError(res, 402, 'INVALID_PAYMENT');
      expect(res.body.error.details).toMatchObject({
        reason: 'insufficient_funds',
        stage: 'settlement',
        facilitator_reason: 'invalid_exact_evm_insufficient_balance',
      });
      expect(res.body.instrument).toBeUndefined();
      expect(unb64(res.headers.get('payment-response'))).toMatchObject({ success: false });
      expect(await claimOf(sent.signed)).toMatchObject({ state: 'FAILED' });
      // Nothing moved, so the same authorization may be presented again (e.g. once funded).
      fake.reset();
      expect((await get('/v1/price/CL', { 'payment-signature': sent.header })).status).toBe(200);
    });

    it('a settlement that stays pending is recorded, not served, reconciled, then delivered once on retry', async () => {
      const pendingTx = txHash();
      fake.settle = async (b) => ({
        body: {
          success: false,
          errorReason: 'settlement_pending',
          transaction: pendingTx,
          network: 'eip155:84532',
          payer: b.paymentPayload.payload.authorization.from,
        },
      });
      const sent = await payment();
      const first = await get('/v1/price/CL', { 'payment-signature': sent.header });
      expectError(first, 504, 'SETTLEMENT_PENDING');
      expect(first.body.error).toMatchObject({ retryable: true, details: { reason: 'settlement_pending', transaction: pendingTx } });
      expect(first.body.instrument).toBeUndefined();
      expect(fake.calls.settle).toHaveLength(2); // one retry, as x402's resource server does
      expect(await claimOf(sent.signed)).toMatchObject({ state: 'PENDING', transaction: pendingTx });

      // While pending, the same header is told to wait: never served, never a "new" payment.
      expectError(await get('/v1/price/CL', { 'payment-signature': sent.header }), 504, 'SETTLEMENT_PENDING');

      const chain: ChainReader = {
        transactionStatus: async (h) => (h === pendingTx ? 'success' : 'missing'),
        authorizationUsed: async () => true,
        findAuthorizationTransaction: async () => pendingTx,
      };
      const report = await reconcilePendingPayments({ ledger, chain, now: () => new Date() });
      expect(report.settled).toContainEqual({
        payer: sent.buyer.address.toLowerCase(),
        nonce: sent.signed.authorization.nonce.toLowerCase(),
        transaction: pendingTx,
      });

      fake.reset();
      const retry = await get('/v1/price/CL', { 'payment-signature': sent.header });
      expect(retry.status, JSON.stringify(retry.body)).toBe(200);
      expect(retry.body.instrument).toBe('CL');
      expect(unb64(retry.headers.get('payment-response'))).toMatchObject({ success: true, transaction: pendingTx });
      expect(fake.calls.settle).toHaveLength(0); // already paid: nothing settled twice
      const again = await get('/v1/price/CL', { 'payment-signature': sent.header });
      expectError(again, 402, 'INVALID_PAYMENT');
      expect(again.body.error.details.reason).toBe('nonce_already_used');
    });

    it('a settle call that times out is pending, never unpaid', async () => {
      fake.settle = async () => 'hang';
      const sent = await payment();
      const res = await get('/v1/price/CL', { 'payment-signature': sent.header });
      expectError(res, 504, 'SETTLEMENT_PENDING');
      expect(await claimOf(sent.signed)).toMatchObject({ state: 'PENDING', reason: 'facilitator_timeout' });
    });

    it('a slow facilitator at verify: 502, nothing served, the proof stays usable', async () => {
      fake.verify = async () => 'hang';
      const sent = await payment();
      const res = await get('/v1/price/CL', { 'payment-signature': sent.header });
      expectError(res, 502, 'FACILITATOR_UNAVAILABLE');
      expect(res.body.error).toMatchObject({ retryable: true, details: { reason: 'facilitator_timeout' } });
      expect(await claimOf(sent.signed)).toMatchObject({ state: 'RELEASED' });
      fake.reset();
      expect((await get('/v1/price/CL', { 'payment-signature': sent.header })).status).toBe(200);
    });

    it('a facilitator that answers garbage: 502, nothing served', async () => {
      fake.verify = async () => ({ status: 500, body: { oops: true } });
      const sent = await payment();
      expectError(await get('/v1/price/CL', { 'payment-signature': sent.header }), 502, 'FACILITATOR_UNAVAILABLE');
      expect(fake.calls.settle).toHaveLength(0);
    });
  });

  describe('handler outcomes (nothing charged for a failure)', () => {
    it('a request the catalog refuses is answered 404 before the payment is even looked at', async () => {
      const sent = await payment();
      const res = await get('/v1/price/PA', { 'payment-signature': sent.header }); // listed, not live: 404 NO_DATA
      expectError(res, 404, 'NO_DATA');
      expect(res.headers.get('payment-response')).toBeNull();
      expect(fake.calls.verify).toHaveLength(0);
      expect(fake.calls.settle).toHaveLength(0);
      expect(await claimOf(sent.signed)).toBeNull();
      expect((await get('/v1/price/CL', { 'payment-signature': sent.header })).status).toBe(200);
    });
  });

  describe('in-process family handler (custom handlers and facilitator settings)', () => {
    const event = (headers: Record<string, string>): APIGatewayProxyEventV2 =>
      ({
        version: '2.0',
        routeKey: 'GET /v1/price/{code}',
        rawPath: '/v1/price/CL',
        rawQueryString: '',
        headers: { host: 'api.example.com', 'x-forwarded-proto': 'https', ...headers },
        pathParameters: { code: 'CL' },
        requestContext: {
          requestId: `req-${Math.random().toString(36).slice(2)}`,
          domainName: 'api.example.com',
          http: { method: 'GET', path: '/v1/price/CL' },
        },
        isBase64Encoded: false,
      }) as unknown as APIGatewayProxyEventV2;
    const context = { awsRequestId: 'aws-1' } as Context;
    const withConfig = (patch: Partial<Services['config']>): (() => Services) => {
      const services = createServices(Object.freeze({ ...stack.config, ...patch }), { doc: stack.services.doc!, store: stack.services.store });
      return () => services;
    };
    const handlers = (result: { status?: number; charge?: boolean }): FamilyHandlers<'price'> => ({
      ...priceHandlers,
      'GET /v1/price/{code}': async (req) => ({ ...(await priceHandlers['GET /v1/price/{code}'](req)), ...result }),
    });

    it('an answer the handler marks charge: false is served free and settles nothing', async () => {
      const h = createFamilyHandler(PRICE_ROUTES, handlers({ charge: false }), withConfig({}));
      const sent = await payment();
      const res = await h(event({ 'payment-signature': sent.header }), context);
      expect(res.statusCode).toBe(200);
      expect(res.headers?.['payment-response']).toBeUndefined();
      expect(fake.calls.verify).toHaveLength(1);
      expect(fake.calls.settle).toHaveLength(0);
      expect(await claimOf(sent.signed)).toMatchObject({ state: 'RELEASED', reason: 'not_charged' });
    });

    it('a handler that throws settles nothing and releases the proof for a retry', async () => {
      const failing: FamilyHandlers<'price'> = {
        ...priceHandlers,
        'GET /v1/price/{code}': async () => {
          throw new Error('store exploded');
        },
      };
      const h = createFamilyHandler(PRICE_ROUTES, failing, withConfig({}));
      const sent = await payment();
      const res = await h(event({ 'payment-signature': sent.header }), context);
      expect(res.statusCode).toBe(500);
      expect(fake.calls.settle).toHaveLength(0);
      expect(await claimOf(sent.signed)).toMatchObject({ state: 'RELEASED', reason: 'handler_error' });
    });

    it.each([400, 404, 409, 503])('a handler answer with status %i settles nothing', async (status) => {
      const h = createFamilyHandler(PRICE_ROUTES, handlers({ status }), withConfig({}));
      const sent = await payment();
      const res = await h(event({ 'payment-signature': sent.header }), context);
      expect(res.statusCode).toBe(status);
      expect(res.headers?.['payment-response']).toBeUndefined();
      expect(fake.calls.settle).toHaveLength(0);
      expect(await claimOf(sent.signed)).toMatchObject({ state: 'RELEASED', reason: `handler_status_${status}` });
    });

    it('a facilitator that is down: 502, nothing served or lost', async () => {
      const h = createFamilyHandler(PRICE_ROUTES, priceHandlers, withConfig({ X402_FACILITATOR_URL: await closedPortUrl() }));
      const sent = await payment();
      const res = await h(event({ 'payment-signature': sent.header }), context);
      expect(res.statusCode).toBe(502);
      const body = JSON.parse(res.body!);
      expect(body.error).toMatchObject({ code: 'FACILITATOR_UNAVAILABLE', retryable: true, details: { reason: 'facilitator_unavailable' } });
      expect(await claimOf(sent.signed)).toMatchObject({ state: 'RELEASED' });
    });

    it('a facilitator that goes down between verify and settle: 502, no data, the proof stays usable', async () => {
      const other = await startFakeFacilitator();
      const h = createFamilyHandler(
        PRICE_ROUTES,
        {
          ...priceHandlers,
          'GET /v1/price/{code}': async (req) => {
            await other.close(); // verified; now the facilitator disappears before /settle
            return priceHandlers['GET /v1/price/{code}'](req);
          },
        },
        withConfig({ X402_FACILITATOR_URL: other.url }),
      );
      const sent = await payment();
      const res = await h(event({ 'payment-signature': sent.header }), context);
      expect(res.statusCode).toBe(502);
      expect(res.body).not.toContain('"instrument"'); // no observation leaks out of a call that was not paid
      expect(JSON.parse(res.body!).error).toMatchObject({ code: 'FACILITATOR_UNAVAILABLE', details: { reason: 'facilitator_unavailable' } });
      expect(other.calls.verify).toHaveLength(1);
      expect(await claimOf(sent.signed)).toMatchObject({ state: 'RELEASED', reason: 'facilitator_unreachable_at_settle' });
    });

    it("builds resource.url from API Gateway's domain name, never from a forged Host header", async () => {
      const res = await createFamilyHandler(PRICE_ROUTES, priceHandlers, withConfig({}))(event({ host: 'evil.example', 'x-forwarded-proto': 'http' }), context);
      expect(res.statusCode).toBe(402);
      expect(JSON.parse(res.body!).resource.url).toBe('https://api.example.com/v1/price/CL');
      expect(unb64(String(res.headers?.['payment-required'])).resource.url).toBe('https://api.example.com/v1/price/CL');
      const configured = await createFamilyHandler(
        PRICE_ROUTES,
        priceHandlers,
        withConfig({ PUBLIC_BASE_URL: 'https://data.example.com' }),
      )(event({ host: 'evil.example' }), context);
      expect(JSON.parse(configured.body!).resource.url).toBe('https://data.example.com/v1/price/CL');
    });

    it('in demo mode serves unpaid calls, and still settles a payment that is offered', async () => {
      const h = createFamilyHandler(PRICE_ROUTES, priceHandlers, withConfig({ X402_ENFORCE: false }));
      const unpaid = await h(event({}), context);
      expect(unpaid.statusCode).toBe(200);
      expect(unpaid.headers?.['payment-response']).toBeUndefined();
      const sent = await payment();
      const paid = await h(event({ 'payment-signature': sent.header }), context);
      expect(paid.statusCode).toBe(200);
      expect(unb64(String(paid.headers?.['payment-response']))).toMatchObject({ success: true });
      expect((await h(event({ 'x-force-402': '1' }), context)).statusCode).toBe(402);
    });
  });
});
