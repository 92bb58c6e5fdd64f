/**
 * Issue 37, receivers are never internal: a watch URL is https (http to loopback in dev only), and
 * every address its host resolves to is public, checked at creation and again by the delivery's own
 * socket lookup (a host re-pointed at the metadata service after creation is refused: DNS rebinding).
 */
import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createPost } from '../../shared/watches/post';
import { checkReceiverUrl, forbiddenAddress, type ResolveAll } from '../../shared/watches/receiver-url';

const resolvingTo =
  (...addresses: string[]): ResolveAll =>
  async () =>
    addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('forbiddenAddress', () => {
  it.each([
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '127.0.0.1',
    '169.254.169.254', // AWS, GCP, Azure instance metadata
    '100.100.100.200', // Alibaba metadata (carrier-grade NAT range)
    '192.0.0.192', // Oracle metadata
    '0.0.0.0',
    '::1',
    'fd00:ec2::254', // AWS IPv6 metadata
    'fe80::1',
    '::ffff:169.254.169.254', // IPv4-mapped
    '::ffff:a9fe:a9fe', // the same, in hex
    '224.0.0.1',
  ])('refuses %s', (ip) => {
    expect(forbiddenAddress(ip, false)).not.toBeNull();
  });

  it.each(['93.184.215.14', '2606:4700:4700::1111', '8.8.8.8'])('accepts the public address %s', (ip) => {
    expect(forbiddenAddress(ip, false)).toBeNull();
  });

  it('in dev, loopback only is allowed; metadata and private ranges still are not', () => {
    expect(forbiddenAddress('127.0.0.1', true)).toBeNull();
    expect(forbiddenAddress('::1', true)).toBeNull();
    expect(forbiddenAddress('169.254.169.254', true)).not.toBeNull();
    expect(forbiddenAddress('10.0.0.1', true)).not.toBeNull();
  });
});

describe('checkReceiverUrl at creation', () => {
  const prod = (resolve: ResolveAll) => ({ dev: false, resolve });

  it('accepts https to a public host', async () => {
    expect(await checkReceiverUrl('https://agent.example/hook?t=1', prod(resolvingTo('93.184.215.14')))).toBe('https://agent.example/hook?t=1');
  });

  it('refuses http outside dev, and credentials in the URL', async () => {
    await expect(checkReceiverUrl('http://agent.example/hook', prod(resolvingTo('93.184.215.14')))).rejects.toThrow(/https/);
    await expect(checkReceiverUrl('https://u:p@agent.example/hook', prod(resolvingTo('93.184.215.14')))).rejects.toThrow(/credentials/);
  });

  it('refuses a host any of whose addresses is internal (one public address does not launder a private one)', async () => {
    await expect(checkReceiverUrl('https://metadata.example/', prod(resolvingTo('169.254.169.254')))).rejects.toThrow(/link-local|private/);
    await expect(checkReceiverUrl('https://mixed.example/', prod(resolvingTo('93.184.215.14', '10.0.0.5')))).rejects.toThrow(/10\.0\.0\.5/);
    await expect(checkReceiverUrl('https://[::1]/hook', prod(resolvingTo()))).rejects.toThrow(/::1/);
    await expect(checkReceiverUrl('https://127.0.0.1/hook', prod(resolvingTo()))).rejects.toThrow(/127\.0\.0\.1/);
  });

  it('in dev: http to loopback is allowed, http anywhere else is not', async () => {
    expect(await checkReceiverUrl('http://127.0.0.1:8883/hook', { dev: true })).toBe('http://127.0.0.1:8883/hook');
    await expect(checkReceiverUrl('http://agent.example/hook', { dev: true, resolve: resolvingTo('93.184.215.14') })).rejects.toThrow(/only to loopback/);
    await expect(checkReceiverUrl('http://169.254.169.254/latest/meta-data', { dev: true })).rejects.toThrow(/link-local|private/);
  });
});

describe('at delivery the host is resolved again (DNS rebinding)', () => {
  it('a host that now resolves to the metadata service is refused before any byte is sent', async () => {
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    try {
      // Created while it resolved to loopback (dev); now it resolves to 169.254.169.254.
      const post = createPost(true, resolvingTo('169.254.169.254'));
      const refused = await post(`http://rebind.example:${port}/hook`, '{}', {});
      expect(refused).toMatchObject({ status: null });
      expect(refused.error).toMatch(/refused at delivery/);
      // The same receiver while it resolves to loopback is reached (dev).
      const ok = await createPost(true, resolvingTo('127.0.0.1'))(`http://rebind.example:${port}/hook`, '{}', {});
      expect(ok).toEqual({ status: 200, error: null });
      expect(hits).toBe(1);
      // Outside dev, loopback is refused at delivery too.
      expect((await createPost(false, resolvingTo('127.0.0.1'))(`https://rebind.example:${port}/hook`, '{}', {})).error).toMatch(/refused at delivery/);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
