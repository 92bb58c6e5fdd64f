/**
 * What the local server answers a request too large to read, as API Gateway does and with a JSON
 * body: a 200 KB query string is 414 URI_TOO_LONG (node's own 16 KiB limit on the request line and
 * headers together made it 431 "headers too large"), while headers over 16 KiB stay 431.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { startTestStack } from '../helpers/stack';

describe('request limits of the local server', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: undefined }, false);
  });
  afterAll(() => stack?.close());

  it('a 200 KB query string: 414 with a JSON error naming the URL', async () => {
    const res = await fetch(`${stack.url}/v1/history/CL?start=${'2'.repeat(200 * 1024)}`);
    expect(res.status).toBe(414);
    expect(await res.json()).toMatchObject({ error: { code: 'URI_TOO_LONG', message: 'request URL is too long' } });
  });

  it('a URL just under the limit is read and answered by its route', async () => {
    const res = await fetch(`${stack.url}/v1/catalog?x=${'a'.repeat(8000)}`);
    expect(res.status).toBeLessThan(500);
    expect(res.status).not.toBe(414);
    await res.arrayBuffer();
  });

  it('17 KB of headers: 431 with a JSON error', async () => {
    const res = await fetch(`${stack.url}/v1/catalog`, { headers: { 'x-big': 'a'.repeat(17 * 1024) } });
    expect(res.status).toBe(431);
    expect(await res.json()).toMatchObject({ error: { code: 'HEADERS_TOO_LARGE' } });
  });
});
