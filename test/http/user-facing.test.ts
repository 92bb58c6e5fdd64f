/**
 * Small things a user meets: /pro/success on a deployment without Stripe says checkout is not
 * configured (it said "being confirmed, reload" forever), and without a session id is a page (it
 * was raw JSON in the browser); /favicon.ico is an icon (a 404 was a console error on every page
 * view); `Authorization: Basic …` is told the scheme must be Bearer (it was told to check the key
 * for a typo), over HTTP and on the MCP endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { startTestStack } from '../helpers/stack';

describe('pages, icon and Authorization schemes', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: '1', OPERATOR_CONTACT: 'ops@example.com' }, false);
  });
  afterAll(() => stack?.close());

  it('/pro/success with a session id, Stripe not configured: a page saying checkout is not configured, with the operator contact', async () => {
    const res = await fetch(`${stack.url}/pro/success?session_id=cs_test_anything`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain('Card checkout is not configured on this deployment');
    expect(page).toContain('mailto:ops@example.com');
    expect(page).not.toContain('being confirmed');
  });

  it('/pro/success without a session id, Stripe not configured: the same page, not JSON', async () => {
    const res = await fetch(`${stack.url}/pro/success`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('Card checkout is not configured on this deployment');
  });

  it('/pro/success without a session id, Stripe configured: a page saying the link has no checkout session, not JSON', async () => {
    // Stripe settings that are never called: a visit without a session id reads nothing from Stripe.
    const withStripe = await startTestStack(
      {
        X402_ENFORCE: '1',
        STRIPE_SECRET_KEY: 'sk_test_unused',
        STRIPE_WEBHOOK_SECRET: 'whsec_unused',
        STRIPE_PRICE_MONTHLY: 'price_monthly_unused',
        STRIPE_PRICE_YEARLY: 'price_yearly_unused',
      },
      false,
    );
    try {
      const res = await fetch(`${withStripe.url}/pro/success`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('No checkout session in this link');
    } finally {
      await withStripe.close();
    }
  });

  it('/favicon.ico: 200, an SVG image browsers may cache', async () => {
    const res = await fetch(`${stack.url}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(res.headers.get('cache-control')).toContain('max-age=86400');
    expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/);
  });

  it.each([
    ['Basic credentials', 'Basic dXNlcjpwYXNz'],
    ['a bare key without the scheme', 'cds_live_0123456789abcdefghijklmnopqrstuvwxyz01'],
  ])('%s on a paid route: 401 saying the scheme must be Bearer, not a checksum typo', async (_what, authorization) => {
    const res = await fetch(`${stack.url}/v1/price/CL`, { headers: { authorization } });
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toContain('the Authorization scheme must be Bearer');
    expect(body.error.message).not.toContain('checksum');
  });

  it('Basic credentials on the MCP endpoint: 401 saying the same', async () => {
    const res = await fetch(`${stack.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: 'Basic dXNlcjpwYXNz', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('the Authorization scheme must be Bearer');
  });

  it('a Bearer key with a typo is still told about the checksum', async () => {
    const res = await fetch(`${stack.url}/v1/price/CL`, { headers: { authorization: 'Bearer cds_live_0123456789abcdefghijklmnopqrstuvwxyz01' } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('checksum');
  });
});
