/**
 * The local facilitator's port is a setting (X402_LOCAL_FACILITATOR_PORT; npm start: 8402), as the
 * chain's is: it was a random port at every start. Unset, a free port (the tests' stacks).
 */
import { describe, expect, it } from 'vitest';
import { portOf, startLocalPaymentsIfEnabled } from '../../infra/local/chain/hook';
import { freePort } from '../helpers/ports';

describe('X402_LOCAL_FACILITATOR_PORT', () => {
  it('reads a port, 0 when unset or empty, and refuses anything else naming the setting', () => {
    expect(portOf('X402_LOCAL_FACILITATOR_PORT', '8402')).toBe(8402);
    expect(portOf('X402_LOCAL_FACILITATOR_PORT', undefined)).toBe(0);
    expect(portOf('X402_LOCAL_FACILITATOR_PORT', ' ')).toBe(0);
    for (const bad of ['x', '65536', '-1', '80.5'])
      expect(() => portOf('X402_LOCAL_FACILITATOR_PORT', bad)).toThrow(/X402_LOCAL_FACILITATOR_PORT must be a port number/);
  });

  it('the local payment network starts its facilitator on the port the setting names', async () => {
    const port = await freePort();
    const net = await startLocalPaymentsIfEnabled({ X402_LOCAL_CHAIN: '1', X402_LOCAL_FACILITATOR_PORT: String(port) });
    try {
      expect(net!.facilitator.url).toBe(`http://127.0.0.1:${port}`);
      expect(net!.env.X402_FACILITATOR_URL).toBe(`http://127.0.0.1:${port}`);
      const supported = await fetch(`http://127.0.0.1:${port}/supported`);
      expect(supported.status).toBe(200);
      await supported.arrayBuffer();
    } finally {
      await net?.close();
    }
  }, 120_000);
});
