/**
 * A typo must not buy today's data (issue 34): over HTTP against the local runtime, enforced, with a
 * Pro key and with a signed x402 exact payment, an unknown query parameter is a 400 INVALID_PARAMETER
 * naming it and the accepted ones, and nothing is taken: no credit, no verify, no settlement. The same
 * payment on the correctly spelt request is then accepted (so the 400 is not the payment's fault).
 * The batch-settlement lane sits in the same payment layer, after the route layer that refuses here.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { DynamoCreditLedger, newKeyRecord } from '../../shared/pro/credit-ledger';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { createDocumentClient } from '../../shared/store/client';
import { expectError } from '../helpers/contract';
import { getJson, startTestStack } from '../helpers/stack';
import { acceptedFor, b64, signAuthorization, startFakeFacilitator, v2Payload, type FakeFacilitator } from '../payment/helpers';

const payTo = privateKeyToAccount(generatePrivateKey()).address;
const TYPO = '/v1/price/CL?asknownat=2020-01-01T00:00:00Z';
const FROM_TO = '/v1/history/CL?from=2024-01-01&to=2024-02-01';

describe('unknown query parameters over HTTP (enforced, fake facilitator)', () => {
  let stack: LocalStack;
  let fake: FakeFacilitator;
  let ledger: DynamoCreditLedger;
  const month = () => new Date().toISOString().slice(0, 7);

  beforeAll(async () => {
    fake = await startFakeFacilitator();
    stack = await startTestStack({ X402_ENFORCE: '1', X402_PAY_TO: payTo, X402_FACILITATOR_URL: fake.url, PRO_RATE_LIMIT_PER_SECOND: '10000' });
    ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
  }, 300_000);
  afterAll(async () => {
    await stack?.close();
    await fake?.close();
  });

  it('a Pro key: asknownat and from/to are 400 naming the parameter and the accepted ones; 0 credits taken, no usage', async () => {
    const key = generateKey();
    await ledger.put(newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }));
    const auth = { headers: { authorization: `Bearer ${key}` } };

    const typo = await getJson(stack.url, TYPO, auth);
    expectError(typo, 400, 'INVALID_PARAMETER');
    expect(typo.body.error.details.issues).toEqual([
      { path: 'asknownat', message: 'unknown query parameter asknownat; GET /v1/price/{code} accepts: as_known_at' },
    ]);
    const window = await getJson(stack.url, FROM_TO, auth);
    expectError(window, 400, 'INVALID_PARAMETER');
    expect(window.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['from', 'to']);
    expect(window.body.error.details.issues[0].message).toMatch(/accepts: start, end, limit, frequency, cursor, as_known_at$/);

    expect((await ledger.get(hashKey(key)))!.creditsLeft).toBe(3000);
    expect(await ledger.usage(hashKey(key), month())).toHaveLength(0);
    // The correctly spelt call is charged as usual: the key works.
    const ok = await getJson(stack.url, '/v1/price/CL?as_known_at=2026-02-11T15:31:00Z', auth);
    expect(ok.status).toBe(200);
    expect((await ledger.get(hashKey(key)))!.creditsLeft).toBe(2999);
  });

  it('an x402 exact payment: nothing verified or settled on the typo; the same payment pays the spelt call', async () => {
    fake.reset();
    const signed = await signAuthorization(privateKeyToAccount(generatePrivateKey()), { payTo });
    const payment = { 'payment-signature': b64(v2Payload(signed, acceptedFor(payTo), `${stack.url}/v1/price/CL`)) };
    for (const path of [TYPO, `${FROM_TO}`]) {
      const res = await getJson(stack.url, path, { headers: payment });
      expectError(res, 400, 'INVALID_PARAMETER');
      expect(res.headers.get('payment-response')).toBeNull();
    }
    expect(fake.calls.verify).toHaveLength(0);
    expect(fake.calls.settle).toHaveLength(0);
    const ok = await getJson(stack.url, '/v1/price/CL', { headers: payment });
    expect(ok.status).toBe(200);
    expect(fake.calls.settle).toHaveLength(1);
  });

  it('free routes refuse unknown parameters too, and HEAD of a paid route with one is the same 400', async () => {
    for (const path of ['/health?verbose=1', '/v1/catalog?code=CL', '/openapi.json?v=2', '/v1/curve/CL?as_known_at=2026-02-11T15:31:00Z']) {
      const res = await getJson(stack.url, path);
      expectError(res, 400, 'INVALID_PARAMETER');
      expect(res.body.error.details.issues[0].message, path).toMatch(/accepts no query parameters$/);
    }
    const head = await fetch(`${stack.url}${TYPO}`, { method: 'HEAD' });
    expect(head.status).toBe(400);
  });
});
