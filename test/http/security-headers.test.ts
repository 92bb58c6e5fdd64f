/** Every answer carries the security headers, whichever layer produced it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { startTestStack } from '../helpers/stack';

describe('security headers', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: '1' });
  }, 120_000);
  afterAll(async () => stack?.close());

  it.each([
    ['a free document', '/health', 200],
    ['the HTML home page', '/', 200],
    ['an early 402 challenge', '/v1/price/CL', 402],
    ['a 404 from the route layer', '/v1/price/NOPE', 404],
    ['a 400 for bad input', '/v1/history/CL?limit=0', 400],
  ])('%s', async (_name, path, status) => {
    const res = await fetch(`${stack.url}${path}`);
    expect(res.status).toBe(status);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });
});
