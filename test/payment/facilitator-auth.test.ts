/**
 * Credentials for a hosted facilitator: the CDP bearer token (held to @coinbase/cdp-sdk's own
 * generateJwt), the secret's format, and paid calls through the official HTTPFacilitatorClient
 * against a loopback facilitator that refuses (401) any /verify, /settle or /supported without a
 * valid token for exactly that request.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import { generateJwt } from '@coinbase/cdp-sdk/auth';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { loadConfig } from '../../shared/config';
import type { SecretReader } from '../../shared/config/secret-reader';
import { classifyFacilitatorError, createFacilitatorClient } from '../../shared/payment/facilitator';
import { cdpJwt, cdpSigningKey, facilitatorAuth, FacilitatorAuthError, parseFacilitatorSecret } from '../../shared/payment/facilitator-auth';
import { expectError } from '../helpers/contract';
import { getJson, startTestStack } from '../helpers/stack';
import { acceptedFor, b64, signAuthorization, txHash, unb64, v2Payload } from './helpers';

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:commodity-data-staging/facilitator-AbCdEf';
const KEY_ID = 'organizations/1f0e7a52-0000-4000-8000-000000000001/apiKeys/9c7b1b2e-0000-4000-8000-000000000002';
const ROUTE = '/platform/v2/x402'; // where CDP serves the facilitator API

/** A fresh Ed25519 CDP key in CDP's format (base64 of seed + public key) and an EC key as PKCS8 PEM. */
const ed25519Key = () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return { secret: Buffer.concat([Buffer.from(jwk.d!, 'base64url'), Buffer.from(jwk.x!, 'base64url')]).toString('base64'), publicKey };
};
const ecKey = () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { secret: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), publicKey };
};

const decode = (jwt: string) => {
  const [h, p, sig] = jwt.split('.');
  return {
    header: JSON.parse(Buffer.from(h!, 'base64url').toString()),
    claims: JSON.parse(Buffer.from(p!, 'base64url').toString()),
    input: `${h}.${p}`,
    sig: sig!,
  };
};

/** Verifies a JWS with the public key alone (ES256 as raw r||s, EdDSA as-is). */
const signatureValid = (jwt: string, publicKey: KeyObject): boolean => {
  const { header, input, sig } = decode(jwt);
  const data = Buffer.from(input);
  const signature = Buffer.from(sig, 'base64url');
  return header.alg === 'ES256' ? verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature) : verify(null, data, publicKey, signature);
};

describe('CDP bearer token', () => {
  it.each([
    ['Ed25519 (EdDSA)', ed25519Key],
    ['EC P-256 (ES256)', ecKey],
  ])('%s: the token @coinbase/cdp-sdk makes, for the same request, signed by the key', async (_name, makeKey) => {
    const { secret, publicKey } = makeKey();
    const nowS = Math.floor(Date.now() / 1000);
    const ours = cdpJwt({ apiKeyId: KEY_ID, key: cdpSigningKey(secret), method: 'POST', host: 'api.cdp.coinbase.com', path: `${ROUTE}/settle`, nowS });
    const theirs = await generateJwt({
      apiKeyId: KEY_ID,
      apiKeySecret: secret,
      requestMethod: 'POST',
      requestHost: 'api.cdp.coinbase.com',
      requestPath: `${ROUTE}/settle`,
    });
    const a = decode(ours);
    const b = decode(theirs);
    // Same header fields (a fresh 16-byte nonce each) and the same claims, to the second.
    expect({ ...a.header, nonce: 'n' }).toEqual({ ...b.header, nonce: 'n' });
    expect(a.header.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(a.claims).toEqual({ ...b.claims, iat: a.claims.iat, nbf: a.claims.nbf, exp: a.claims.exp });
    expect(Math.abs(a.claims.iat - b.claims.iat)).toBeLessThanOrEqual(1);
    expect(a.claims).toMatchObject({ sub: KEY_ID, iss: 'cdp', uris: [`POST api.cdp.coinbase.com${ROUTE}/settle`], exp: a.claims.nbf + 120 });
    expect(signatureValid(ours, publicKey)).toBe(true);
    expect(signatureValid(theirs, publicKey)).toBe(true);
    expect(signatureValid(ours, makeKey().publicKey)).toBe(false);
  });
});

describe('the facilitator secret', () => {
  it('takes CDP keys, static headers or nothing; refuses anything else without echoing it', () => {
    expect(parseFacilitatorSecret('{}', ARN)).toEqual({});
    expect(parseFacilitatorSecret('{"headers": {"X-Api-Key": "k1"}}', ARN)).toEqual({ headers: { 'X-Api-Key': 'k1' } });
    for (const [text, problem] of [
      ['sekrit-not-json', /not JSON/],
      ['{"CDP_API_KEY_ID": "sekrit-id"}', /go together/],
      ['{"CDP_KEY": "sekrit"}', /unknown keys CDP_KEY/],
      ['{"headers": {"X Api Key": "sekrit"}}', /headers/],
    ] as const) {
      const err = (() => {
        try {
          parseFacilitatorSecret(text, ARN);
        } catch (e) {
          return e as Error;
        }
        throw new Error(`accepted: ${text}`);
      })();
      expect(err).toBeInstanceOf(FacilitatorAuthError);
      expect(err.message).toMatch(problem);
      expect(err.message).toContain(ARN);
      expect(err.message).not.toContain('sekrit');
    }
  });
});

interface Seen {
  path: string;
  authorization: string | undefined;
  apiKey: string | undefined;
}

/**
 * A facilitator on loopback that wants a CDP token for exactly the request (method, host, path), unexpired,
 * signed by `publicKey`; or, when `apiKey` is set, that static header instead. Anything else: 401.
 */
const startGuardedFacilitator = async (o: { publicKey?: KeyObject; apiKey?: string }) => {
  const seen: Seen[] = [];
  const authorized = (req: IncomingMessage): boolean => {
    if (o.apiKey) return req.headers['x-api-key'] === o.apiKey;
    const m = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    if (!m || !o.publicKey) return false;
    const { header, claims } = decode(m[1]!);
    const nowS = Math.floor(Date.now() / 1000);
    return (
      signatureValid(m[1]!, o.publicKey) &&
      header.kid === KEY_ID &&
      claims.sub === KEY_ID &&
      claims.iss === 'cdp' &&
      claims.nbf <= nowS + 5 &&
      claims.exp > nowS &&
      JSON.stringify(claims.uris) === JSON.stringify([`${req.method} ${req.headers.host}${(req.url ?? '').split('?')[0]}`])
    );
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ path: req.url ?? '', authorization: req.headers.authorization, apiKey: req.headers['x-api-key'] as string | undefined });
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (!authorized(req)) return send(401, { errorType: 'unauthorized', errorMessage: 'missing or invalid bearer token' });
      const path = (req.url ?? '').replace(ROUTE, '');
      if (req.method === 'GET' && path === '/supported')
        return send(200, { kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }], extensions: [], signers: {} });
      const b = JSON.parse(body || '{}');
      const payer = b.paymentPayload?.payload?.authorization?.from;
      if (path === '/verify') return send(200, { isValid: true, payer });
      if (path === '/settle') return send(200, { success: true, transaction: txHash(), network: b.paymentRequirements.network, payer });
      send(404, { error: 'not_found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${ROUTE}`,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
};

/** A secret reader that counts its reads and can be told to fail. */
interface CountingReader {
  text: string;
  reads: Array<[string, string]>;
  fail: number;
  read: SecretReader;
}
const secretReader = (text: string): CountingReader => {
  const r: CountingReader = {
    text,
    reads: [] as Array<[string, string]>,
    fail: 0,
    read: (async (id, region) => {
      r.reads.push([id, region]);
      if (r.fail > 0) {
        r.fail--;
        throw Object.assign(new Error(`throttled while reading ${r.text}`), { name: 'ThrottlingException' });
      }
      return r.text;
    }) as SecretReader,
  };
  return r;
};

describe('HTTPFacilitatorClient with the secret (loopback facilitator that demands credentials)', () => {
  const key = ed25519Key();
  let cdp: Awaited<ReturnType<typeof startGuardedFacilitator>>;
  let keyed: Awaited<ReturnType<typeof startGuardedFacilitator>>;
  beforeAll(async () => {
    cdp = await startGuardedFacilitator({ publicKey: key.publicKey });
    keyed = await startGuardedFacilitator({ apiKey: 'static-key-1' });
  });
  afterAll(async () => {
    await cdp?.close();
    await keyed?.close();
  });

  const clientFor = (url: string, secret: string | null, reader = secretReader(secret ?? '{}')) => {
    const config = loadConfig({
      OBSERVATIONS_TABLE: 'o',
      CREDITS_TABLE: 'c',
      X402_FACILITATOR_URL: url,
      ...(secret === null ? {} : { X402_FACILITATOR_SECRET_ARN: ARN }),
    });
    return { client: createFacilitatorClient(config, facilitatorAuth(config, reader.read)), reader };
  };

  it('without credentials the facilitator refuses (401), and that is a facilitator failure, not a verdict on the payment', async () => {
    for (const secret of [null, '{}']) {
      const { client } = clientFor(cdp.url, secret);
      const err = await client.getSupported().catch((e: unknown) => e);
      expect(String(err)).toMatch(/401/);
      expect(cdp.seen.at(-1)!.authorization).toBeUndefined();
    }
  });

  it('CDP keys: every call carries a token for exactly that request; the secret is read once', async () => {
    const { client, reader } = clientFor(cdp.url, JSON.stringify({ CDP_API_KEY_ID: KEY_ID, CDP_API_KEY_SECRET: key.secret }));
    const from = cdp.seen.length;
    expect((await client.getSupported()).kinds).toHaveLength(1);
    expect((await client.getSupported()).kinds).toHaveLength(1);
    expect(cdp.seen.slice(from).map((x) => x.authorization?.startsWith('Bearer '))).toEqual([true, true]);
    expect(reader.reads).toEqual([[ARN, 'us-east-1']]);
  });

  it('static headers: sent on every call', async () => {
    const { client } = clientFor(keyed.url, JSON.stringify({ headers: { 'X-Api-Key': 'static-key-1' } }));
    expect((await client.getSupported()).kinds).toHaveLength(1);
    expect(keyed.seen.at(-1)!.apiKey).toBe('static-key-1');
  });

  it('an unreadable secret fails the call before anything is sent (known not sent), names no value, and is read again next time', async () => {
    const reader = secretReader(JSON.stringify({ CDP_API_KEY_ID: KEY_ID, CDP_API_KEY_SECRET: key.secret }));
    reader.fail = 1;
    const { client: withSecret } = clientFor(cdp.url, reader.text, reader);
    const before = cdp.seen.length;
    const err = await withSecret.getSupported().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FacilitatorAuthError);
    expect((err as Error).message).toBe(`facilitator secret ${ARN}: cannot be read (ThrottlingException)`);
    expect(classifyFacilitatorError(err)).toMatchObject({ kind: 'not_sent' });
    expect(cdp.seen.length).toBe(before);
    expect((await withSecret.getSupported()).kinds).toHaveLength(1);
    expect(reader.reads).toHaveLength(2);
  });
});

describe('a paid call through the local runtime, facilitator credentials from the secret', () => {
  const key = ed25519Key();
  const payTo = privateKeyToAccount(generatePrivateKey()).address;
  let facilitator: Awaited<ReturnType<typeof startGuardedFacilitator>>;
  let stack: LocalStack;
  let unauthenticated: LocalStack;
  const reader = secretReader(JSON.stringify({ CDP_API_KEY_ID: KEY_ID, CDP_API_KEY_SECRET: key.secret }));

  beforeAll(async () => {
    facilitator = await startGuardedFacilitator({ publicKey: key.publicKey });
    const env = { X402_ENFORCE: '1', X402_PAY_TO: payTo, X402_FACILITATOR_URL: facilitator.url };
    stack = await startTestStack({ ...env, X402_FACILITATOR_SECRET_ARN: ARN }, true, { readSecret: reader.read });
    unauthenticated = await startTestStack(env, false);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await unauthenticated?.close();
    await facilitator?.close();
  });

  const pay = async (base: string) => {
    const signed = await signAuthorization(privateKeyToAccount(generatePrivateKey()), { payTo, nonce: `0x${randomBytes(32).toString('hex')}` });
    return getJson(base, '/v1/price/CL', { headers: { 'payment-signature': b64(v2Payload(signed, acceptedFor(payTo))) } });
  };

  it('verifies and settles with a token for each call (200, PAYMENT-RESPONSE); the secret is read once for many calls', async () => {
    const from = facilitator.seen.length;
    for (let i = 0; i < 3; i++) {
      const res = await pay(stack.url);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.instrument).toBe('CL');
      expect(unb64(res.headers.get('payment-response'))).toMatchObject({ success: true });
    }
    const calls = facilitator.seen.slice(from);
    expect(calls.map((c) => c.path)).toEqual(Array.from({ length: 3 }, () => [`${ROUTE}/verify`, `${ROUTE}/settle`]).flat());
    expect(new Set(calls.map((c) => c.authorization)).size).toBe(calls.length); // a fresh token per call
    expect(reader.reads).toHaveLength(1);
  });

  it('the same deployment without the secret: the facilitator refuses, the payer gets 502 and pays nothing', async () => {
    const res = await pay(unauthenticated.url);
    expectError(res, 502, 'FACILITATOR_UNAVAILABLE');
    expect(facilitator.seen.at(-1)).toMatchObject({ path: `${ROUTE}/verify`, authorization: undefined });
  });
});
