/**
 * Two rules of the exact lane that only show through a whole request (local stack, embedded store,
 * fake facilitator on loopback, real EIP-712 signatures), so they hold however the lane is split:
 *   - an expired authorization whose claim is still open (PENDING, or CLAIMED by a call that died)
 *     is owed an outcome, not a refusal: 504 pending, the same header retried later gets the data;
 *   - a payment id binds to the path it was first paid for: the same id and payload sent for
 *     another path is a conflict, never the first path's stored answer.
 */
import { appendPaymentIdentifierToExtensions, generatePaymentId, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { DynamoReconcileLedger } from '../../shared/payment/ledger';
import { createDocumentClient } from '../../shared/store/client';
import { expectError } from '../helpers/contract';
import { getJson, startTestStack, type JsonResponse } from '../helpers/stack';
import { acceptedFor, b64, newClaim, pendClaim, signAuthorization, startFakeFacilitator, unb64, v2Payload, type FakeFacilitator } from './helpers';

const payTo = privateKeyToAccount(generatePrivateKey()).address;

describe('exact lane bindings over HTTP (fake facilitator)', () => {
  let stack: LocalStack;
  let fake: FakeFacilitator;
  let ledger: DynamoReconcileLedger;
  /** The service's clock runs this far ahead of the test's, so authorizations expire when a test says so. */
  let skewMs = 0;
  const get = (path: string, headers: Record<string, string> = {}): Promise<JsonResponse> => getJson(stack.url, path, { headers });

  beforeAll(async () => {
    fake = await startFakeFacilitator();
    stack = await startTestStack({ X402_ENFORCE: '1', X402_PAY_TO: payTo, X402_FACILITATOR_URL: fake.url, X402_FACILITATOR_TIMEOUT_MS: '2500' }, true, {
      now: () => new Date(Date.now() + skewMs),
    });
    ledger = new DynamoReconcileLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
  });
  afterAll(async () => {
    await stack?.close();
    await fake?.close();
  });
  beforeEach(() => {
    fake.reset();
    skewMs = 0;
  });

  /** A fresh buyer's payment for /v1/price/CL (0.01 USD, valid for 60 s) and its claim key. */
  const payment = async () => {
    const buyer = privateKeyToAccount(generatePrivateKey());
    const signed = await signAuthorization(buyer, { payTo });
    const key = { payer: signed.authorization.from.toLowerCase(), nonce: signed.authorization.nonce.toLowerCase() };
    return { signed, key, header: b64(v2Payload(signed, acceptedFor(payTo), `${stack.url}/v1/price/CL`)) };
  };

  describe('an expired authorization with an open claim is owed an outcome: 504 pending, nothing settled', () => {
    it('PENDING (a /settle whose answer was lost)', async () => {
      const sent = await payment();
      await ledger.claim({ ...newClaim(sent.key.payer, sent.key.nonce, new Date(), 'earlier-request'), payTo });
      await pendClaim(ledger, sent.key, 'earlier-request', '0xfeed');
      skewMs = 5 * 60_000; // five minutes on: past validBefore
      const retry = await get('/v1/price/CL', { 'payment-signature': sent.header });
      expectError(retry, 504, 'SETTLEMENT_PENDING');
      expect(retry.body.error.details).toMatchObject({ reason: 'settlement_pending', transaction: '0xfeed' });
      expect(retry.body.instrument).toBeUndefined();
      expect(fake.calls.verify.length + fake.calls.settle.length).toBe(0);
      expect(await ledger.get(sent.key)).toMatchObject({ state: 'PENDING', claimId: 'earlier-request' });
    });

    it('CLAIMED by a call that died (older than a claim lives)', async () => {
      const sent = await payment();
      await ledger.claim({ ...newClaim(sent.key.payer, sent.key.nonce, new Date(), 'dead-request'), payTo });
      skewMs = 5 * 60_000;
      const retry = await get('/v1/price/CL', { 'payment-signature': sent.header });
      expectError(retry, 504, 'SETTLEMENT_PENDING');
      expect(retry.body.error.details.reason).toBe('settlement_pending');
      expect(fake.calls.verify.length + fake.calls.settle.length).toBe(0);
      expect(await ledger.get(sent.key)).toMatchObject({ state: 'CLAIMED', claimId: 'dead-request' });
    });

    it('while the same expired header with no claim at all is refused as expired (the control)', async () => {
      const sent = await payment();
      skewMs = 5 * 60_000;
      const res = await get('/v1/price/CL', { 'payment-signature': sent.header });
      expectError(res, 402, 'INVALID_PAYMENT');
      expect(res.body.error.details.reason).toBe('authorization_expired');
    });
  });

  it('a payment id binds to its path: the same id and payload sent for another path is 409, not the first answer', async () => {
    const buyer = privateKeyToAccount(generatePrivateKey());
    const signed = await signAuthorization(buyer, { payTo });
    const challenge = unb64((await get('/v1/price/CL')).headers.get('payment-required'));
    const extensions = appendPaymentIdentifierToExtensions({ [PAYMENT_IDENTIFIER]: challenge.extensions[PAYMENT_IDENTIFIER] }, generatePaymentId());
    // No resource URL in the payload (it is optional): only the binding can tell the paths apart.
    const { resource: _resource, ...unnamed } = v2Payload(signed, acceptedFor(payTo));
    const header = b64({ ...unnamed, extensions });
    const first = await get('/v1/price/CL', { 'payment-signature': header });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.instrument).toBe('CL');
    // /v1/fx/EURUSD costs the same 0.01 USD, so the terms alone do not refuse it.
    const elsewhere = await get('/v1/fx/EURUSD', { 'payment-signature': header });
    expectError(elsewhere, 409, 'PAYMENT_ID_CONFLICT');
    expect(elsewhere.body.error.details.reason).toBe('payment_id_conflict');
    expect(elsewhere.body.instrument).toBeUndefined();
    expect(fake.calls.settle).toHaveLength(1);
    // The same header for the path it was paid for is still its retry: the first answer again.
    const again = await get('/v1/price/CL', { 'payment-signature': header });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(fake.calls.settle).toHaveLength(1);
  });
});
