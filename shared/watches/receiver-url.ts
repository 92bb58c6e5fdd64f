/**
 * Receivers are never internal (issue 37, SSRF): a watch's URL is https (http only to loopback, and
 * only in dev), carries no credentials, and every address its host resolves to is public. Checked at
 * creation, and again at each delivery by the socket's own DNS lookup ({@link guardedLookup}), so
 * the address connected to is the address checked (a host re-pointed at 127.0.0.1 or the metadata
 * service after the watch was created, DNS rebinding, is refused at delivery).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { BadRequestError } from '../errors/errors';

/** Addresses no receiver may have: private, loopback, link-local (cloud metadata), shared, reserved, multicast, documentation. */
const FORBIDDEN = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT (Alibaba's metadata 100.100.100.200)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local: AWS/GCP/Azure metadata 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments (Oracle's metadata 192.0.0.192)
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  FORBIDDEN.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local (AWS's IPv6 metadata fd00:ec2::254)
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
] as const)
  FORBIDDEN.addSubnet(net, bits, 'ipv6');

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** The IPv4 address inside an IPv4-mapped or NAT64 IPv6 address, else null. */
const embeddedV4 = (ip: string): string | null => {
  const m = /^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(ip);
  if (!m) return null;
  if (m[1]) return m[1];
  const hi = Number.parseInt(m[2]!, 16);
  const lo = Number.parseInt(m[3]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
};

/**
 * Pure: why an address may not receive deliveries, or null when it may.
 * @param allowLoopback dev only: loopback receivers (a local agent)
 */
const forbiddenAddress = (ip: string, allowLoopback: boolean): string | null => {
  const v4 = embeddedV4(ip.toLowerCase());
  if (v4) return forbiddenAddress(v4, allowLoopback);
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (allowLoopback && LOOPBACK.check(ip, family)) return null;
  return FORBIDDEN.check(ip, family) ? `${ip} is a private, loopback, link-local or reserved address` : null;
};

/** How a host name is resolved (injectable in tests): every address it has. */
type ResolveAll = (host: string) => Promise<LookupAddress[]>;

const resolveAll: ResolveAll = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

interface ReceiverPolicy {
  /** dev: http and loopback receivers allowed (a local agent); otherwise https to public addresses only. */
  dev: boolean;
  resolve?: ResolveAll;
}

/**
 * Checks a receiver URL at creation: scheme, credentials, and every address of its host.
 * @returns the URL in normal form
 * @throws BadRequestError (400 INVALID_PARAMETER) saying why
 */
const checkReceiverUrl = async (raw: string, policy: ReceiverPolicy): Promise<string> => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BadRequestError('INVALID_PARAMETER', 'url must be an absolute https URL, e.g. https://agent.example/hook');
  }
  const refuse = (why: string) => new BadRequestError('INVALID_PARAMETER', `url is refused: ${why}`, { url: url.origin });
  if (url.protocol !== 'https:' && !(policy.dev && url.protocol === 'http:')) throw refuse('receivers must use https');
  if (url.username || url.password) throw refuse('credentials in the URL are not allowed (put a token in the path or query)');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await (policy.resolve ?? resolveAll)(host)).map((a) => a.address);
  } catch {
    throw refuse(`${host} does not resolve`);
  }
  if (addresses.length === 0) throw refuse(`${host} does not resolve`);
  for (const a of addresses) {
    const why = forbiddenAddress(a, policy.dev);
    if (why) throw refuse(`${host} resolves to ${why}`);
  }
  // http only to loopback, even in dev: a plain-text delivery never leaves the machine.
  if (url.protocol === 'http:' && !addresses.every((a) => forbiddenAddress(a, false) !== null && forbiddenAddress(a, true) === null)) {
    throw refuse('http is allowed only to loopback in dev; use https');
  }
  return url.toString();
};

/**
 * A socket lookup that resolves the host again at delivery and refuses (ECONNREFUSED-like error) any
 * forbidden address, so the connection goes to an address checked just now.
 */
const guardedLookup = (dev: boolean, resolve: ResolveAll = resolveAll): LookupFunction =>
  ((
    hostname: string,
    options: { all?: boolean },
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    const checked = isIP(hostname) ? Promise.resolve([{ address: hostname, family: isIP(hostname) }]) : resolve(hostname);
    checked.then(
      (addresses) => {
        const bad = addresses.map((a) => forbiddenAddress(a.address, dev)).find((w) => w !== null);
        if (bad || addresses.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`receiver refused at delivery: ${hostname} resolves to ${bad ?? 'nothing'}`);
          err.code = 'ERECEIVERFORBIDDEN';
          return callback(err, '');
        }
        if (options.all) return callback(null, addresses);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  }) as LookupFunction;

export { checkReceiverUrl, forbiddenAddress, guardedLookup };
export type { ReceiverPolicy, ResolveAll };
