/**
 * Buying a Pro key: the checkout against a loopback fake of the Stripe API (the official client
 * pointed at it), webhooks signed by the stripe package's own test-header helper, the key shown
 * exactly once and working, renewals, and a deployment without Stripe that explains itself.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { DynamoCreditLedger } from '../../shared/pro/credit-ledger';
import { hashKey } from '../../shared/pro/keys';
import { createDocumentClient } from '../../shared/store/client';
import { expectError } from '../helpers/contract';
import { getJson, startTestStack } from '../helpers/stack';

const WEBHOOK_SECRET = 'whsec_test_secret_for_the_suite';
const stripe = new Stripe('sk_test_unused');

/** A loopback stand-in for api.stripe.com: records what the client sent, answers a Checkout Session. */
const startFakeStripe = async () => {
  const requests: Array<{ path: string; form: URLSearchParams }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      requests.push({ path: req.url ?? '', form: new URLSearchParams(body) });
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_fake' });
      res.end(JSON.stringify({ id: 'cs_test_a1', object: 'checkout.session', mode: 'subscription', url: 'https://checkout.stripe.test/c/pay/cs_test_a1' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
};

const signed = (event: Record<string, unknown>) => {
  const payload = JSON.stringify(event);
  return { payload, header: stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) };
};

describe('Pro checkout with Stripe', () => {
  let stack: LocalStack;
  let fake: Awaited<ReturnType<typeof startFakeStripe>>;
  let ledger: DynamoCreditLedger;
  const post = (path: string, body: string, headers: Record<string, string>) =>
    fetch(`${stack.url}${path}`, { method: 'POST', body, headers, redirect: 'manual' });
  const webhook = (event: Record<string, unknown>) => {
    const { payload, header } = signed(event);
    return post('/pro/webhook', payload, { 'content-type': 'application/json', 'stripe-signature': header });
  };

  beforeAll(async () => {
    fake = await startFakeStripe();
    stack = await startTestStack({
      X402_ENFORCE: '1',
      STRIPE_SECRET_KEY: 'sk_test_suite',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PRICE_MONTHLY: 'price_monthly_suite',
      STRIPE_PRICE_YEARLY: 'price_yearly_suite',
      STRIPE_API_URL: fake.url,
    });
    ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
  });
  afterAll(async () => {
    await stack?.close();
    await fake?.close();
  });

  it('GET /pro shows both plans with a checkout button', async () => {
    const html = await (await fetch(`${stack.url}/pro`)).text();
    expect(html).toContain('19.00 USD');
    expect(html).toContain('180.00 USD');
    expect(html.match(/action="\/pro\/checkout"/g)).toHaveLength(2);
  });

  it('POST /pro/checkout creates a subscription Checkout Session for the plan and redirects to it', async () => {
    const res = await post('/pro/checkout', 'plan=yearly', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://checkout.stripe.test/c/pay/cs_test_a1');
    const sent = fake.requests.at(-1)!;
    expect(sent.path).toBe('/v1/checkout/sessions');
    expect(sent.form.get('mode')).toBe('subscription');
    expect(sent.form.get('line_items[0][price]')).toBe('price_yearly_suite');
    expect(sent.form.get('success_url')).toBe(`${stack.url}/pro/success?session_id={CHECKOUT_SESSION_ID}`);
    expectError(
      await getJson(stack.url, '/pro/checkout', { method: 'POST', body: 'plan=lifetime', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      400,
      'INVALID_PARAMETER',
    );
  });

  it('a paid checkout (signed webhook) makes a key that is shown exactly once and works; replays change nothing', async () => {
    const completed = {
      id: 'evt_checkout_1',
      object: 'event',
      type: 'checkout.session.completed',
      data: {
        object: {
          id: 'cs_test_paid1',
          object: 'checkout.session',
          status: 'complete',
          payment_status: 'paid',
          subscription: 'sub_suite_1',
          metadata: { plan: 'monthly' },
        },
      },
    };
    const before = await (await fetch(`${stack.url}/pro/success?session_id=cs_test_paid1`)).text();
    expect(before).toContain('being confirmed');

    const first = await webhook(completed);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true, duplicate: false, handled: 'checkout.session.completed' });
    expect(await (await webhook(completed)).json()).toMatchObject({ duplicate: true });

    const page = await (await fetch(`${stack.url}/pro/success?session_id=cs_test_paid1`)).text();
    const key = /cds_live_[0-9A-Za-z]{38}/.exec(page)![0];
    const again = await (await fetch(`${stack.url}/pro/success?session_id=cs_test_paid1`)).text();
    expect(again).toContain('already shown');
    expect(again).not.toContain(key);

    const paid = await getJson(stack.url, '/v1/price/CL', { headers: { authorization: `Bearer ${key}` } });
    expect(paid.status).toBe(200);
    expect((await ledger.get(hashKey(key)))!.subscription).toBe('sub_suite_1');

    // A renewal moves the paid-until date; a cancellation never extends it.
    const periodEnd = Math.floor(Date.parse('2027-03-01T00:00:00Z') / 1000);
    const renewal = {
      id: 'evt_invoice_1',
      object: 'event',
      type: 'invoice.paid',
      data: { object: { id: 'in_1', object: 'invoice', subscription: 'sub_suite_1', lines: { data: [{ period: { end: periodEnd } }] } } },
    };
    expect((await webhook(renewal)).status).toBe(200);
    expect((await ledger.get(hashKey(key)))!.paidUntil).toBe('2027-03-01T00:00:00.000Z');
    const cancelEnd = Math.floor(Date.parse('2027-01-15T00:00:00Z') / 1000);
    const deleted = {
      id: 'evt_sub_del',
      object: 'event',
      type: 'customer.subscription.deleted',
      data: { object: { id: 'sub_suite_1', object: 'subscription', current_period_end: cancelEnd } },
    };
    expect((await webhook(deleted)).status).toBe(200);
    expect((await ledger.get(hashKey(key)))!.paidUntil).toBe('2027-01-15T00:00:00.000Z');
  });

  it('refuses a webhook whose signature does not match its body', async () => {
    const { header } = signed({ id: 'evt_x', type: 'checkout.session.completed' });
    const res = await post('/pro/webhook', JSON.stringify({ id: 'evt_x', type: 'checkout.session.completed', tampered: true }), { 'stripe-signature': header });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe('INVALID_SIGNATURE');
  });
});

describe('Pro without Stripe configured', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startTestStack({}, false);
  });
  afterAll(() => stack?.close());

  it('the page says checkout is off and how operators issue keys; checkout answers 503, nothing crashes', async () => {
    const html = await (await fetch(`${stack.url}/pro`)).text();
    expect(html).toContain('not available');
    expect(html).toContain('npm run keys -- issue');
    expect(html).not.toContain('action="/pro/checkout"');
    const res = await getJson(stack.url, '/pro/checkout', {
      method: 'POST',
      body: 'plan=monthly',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectError(res, 503, 'CHECKOUT_UNAVAILABLE');
  });
});
