/**
 * Credentials for a hosted facilitator, sent through the official HTTPFacilitatorClient's
 * `createAuthHeaders` hook. They live in one JSON secret (X402_FACILITATOR_SECRET_ARN; CDK creates it
 * as `{}`), read once per cold start, on the first facilitator call:
 *
 * - `{"CDP_API_KEY_ID": "…", "CDP_API_KEY_SECRET": "…"}`: Coinbase CDP. Each call carries
 *   `Authorization: Bearer <JWT>` signed with the API key for that very request (`uris` claim
 *   "POST api.cdp.coinbase.com/platform/v2/x402/verify"), valid two minutes: the token
 *   @coinbase/cdp-sdk's `generateJwt` makes (ES256 for a PEM EC key, EdDSA for a base64 Ed25519
 *   key), signed here with node:crypto because that SDK's JWT code (jose) costs 18 KB per paid
 *   bundle; test/payment/facilitator-auth.test.ts holds the two to the same tokens.
 * - `{"headers": {"X-Api-Key": "…"}}`: any facilitator that takes static headers.
 * - `{}`: nothing is sent (the public x402.org facilitator, a self-hosted one).
 *
 * A failure to get credentials is a FacilitatorAuthError: nothing reached the facilitator, so a
 * settlement that fails this way is known not to have happened (facilitator.ts).
 */
import { createPrivateKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { FacilitatorConfig } from '@x402/core/http';
import * as z from '../zod';
import type { Config } from '../config';
import { readFromSecretsManager, type SecretReader } from '../config/secret-reader';

type AuthHeaders = Awaited<ReturnType<NonNullable<FacilitatorConfig['createAuthHeaders']>>>;

const FacilitatorSecretSchema = z
  .strictObject({
    CDP_API_KEY_ID: z.optional(z.string().check(z.minLength(1))),
    CDP_API_KEY_SECRET: z.optional(z.string().check(z.minLength(1))),
    headers: z.optional(z.record(z.string().check(z.regex(/^[A-Za-z0-9-]+$/, 'a header name')), z.string().check(z.minLength(1)))),
  })
  .check(z.refine((s) => Boolean(s.CDP_API_KEY_ID) === Boolean(s.CDP_API_KEY_SECRET), 'CDP_API_KEY_ID and CDP_API_KEY_SECRET go together'));
type FacilitatorCredentials = z.infer<typeof FacilitatorSecretSchema>;

/** Credentials could not be had: no request was sent to the facilitator. */
class FacilitatorAuthError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FacilitatorAuthError';
  }
}

/**
 * Parses the secret's text.
 * @throws FacilitatorAuthError naming the problem, never echoing the text
 */
const parseFacilitatorSecret = (text: string | undefined, secretId: string): FacilitatorCredentials => {
  const fail = (what: string) => new FacilitatorAuthError(`facilitator secret ${secretId}: ${what}`);
  let json: unknown;
  try {
    json = JSON.parse(text ?? '{}');
  } catch {
    throw fail('value is not JSON');
  }
  const parsed = FacilitatorSecretSchema.safeParse(json);
  if (!parsed.success) {
    throw fail(
      parsed.error.issues
        .map((i) => (i.code === 'unrecognized_keys' ? `unknown keys ${i.keys.join(', ')}` : `${i.path.join('.') || 'value'}: ${i.message}`))
        .join('; '),
    );
  }
  return parsed.data;
};

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

type SigningKey = { alg: 'ES256' | 'EdDSA'; key: KeyObject };

/** A CDP API key as a signing key: PEM EC (P-256) signs ES256; 64 base64 bytes (seed + public key) sign EdDSA. */
const cdpSigningKey = (secret: string): SigningKey => {
  if (secret.includes('-----BEGIN')) return { alg: 'ES256', key: createPrivateKey(secret.replace(/\\n/g, '\n')) };
  const raw = Buffer.from(secret, 'base64');
  if (raw.length !== 64) throw new Error('not a PEM EC key or a base64 Ed25519 key');
  return {
    alg: 'EdDSA',
    key: createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: b64url(raw.subarray(0, 32)), x: b64url(raw.subarray(32)) }, format: 'jwk' }),
  };
};

/**
 * A CDP bearer token for one request, as @coinbase/cdp-sdk's generateJwt makes it.
 * @param o.host the request's host (e.g. api.cdp.coinbase.com); o.path its path (e.g. /platform/v2/x402/verify)
 * @example cdpJwt({ apiKeyId, key: cdpSigningKey(secret), method: 'POST', host, path, nowS: Math.floor(Date.now() / 1000) })
 */
const cdpJwt = (o: { apiKeyId: string; key: SigningKey; method: string; host: string; path: string; nowS: number; expiresInS?: number }): string => {
  const header = { alg: o.key.alg, kid: o.apiKeyId, typ: 'JWT', nonce: randomBytes(16).toString('hex') };
  const claims = { sub: o.apiKeyId, iss: 'cdp', uris: [`${o.method} ${o.host}${o.path}`], iat: o.nowS, nbf: o.nowS, exp: o.nowS + (o.expiresInS ?? 120) };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  // JWS ES256 is the raw r || s pair (IEEE P1363), not DER.
  const signature =
    o.key.alg === 'ES256' ? sign('sha256', Buffer.from(input), { key: o.key.key, dsaEncoding: 'ieee-p1363' }) : sign(null, Buffer.from(input), o.key.key);
  return `${input}.${b64url(signature)}`;
};

/** The facilitator calls HTTPFacilitatorClient authenticates, with their HTTP methods. */
const CALLS = { verify: 'POST', settle: 'POST', supported: 'GET' } as const;

/** Credentials ready to use: the static headers, and the CDP key parsed once. */
interface Prepared {
  headers: Record<string, string>;
  cdp: { apiKeyId: string; key: SigningKey } | null;
}

/**
 * The headers of every facilitator call (a fresh token per call for CDP).
 * @param facilitatorUrl the configured base URL; each call is `<url>/<verify|settle|supported>`
 */
const authHeadersFor = (p: Prepared, facilitatorUrl: string, nowS: number): AuthHeaders => {
  const url = new URL(facilitatorUrl);
  const base = url.pathname.replace(/\/+$/, '');
  const headersOf = (call: keyof typeof CALLS): Record<string, string> => ({
    ...p.headers,
    ...(p.cdp ? { Authorization: `Bearer ${cdpJwt({ ...p.cdp, method: CALLS[call], host: url.host, path: `${base}/${call}`, nowS })}` } : {}),
  });
  return { verify: headersOf('verify'), settle: headersOf('settle'), supported: headersOf('supported') };
};

/**
 * The `createAuthHeaders` hook of a configuration: undefined without X402_FACILITATOR_SECRET_ARN.
 * The secret is read (and its key parsed) on the first call and kept for the life of the process;
 * a failure is tried again on the next call.
 * @param read how to read the secret (default: Secrets Manager in the configured region)
 */
const facilitatorAuth = (
  config: Pick<Config, 'X402_FACILITATOR_SECRET_ARN' | 'X402_FACILITATOR_URL' | 'AWS_REGION'>,
  read: SecretReader = readFromSecretsManager,
  now: () => Date = () => new Date(),
): FacilitatorConfig['createAuthHeaders'] => {
  const secretId = config.X402_FACILITATOR_SECRET_ARN;
  if (!secretId) return undefined;
  const fail = (what: string, err: unknown) =>
    new FacilitatorAuthError(`facilitator secret ${secretId}: ${what} (${(err as Error).name ?? 'Error'})`, { cause: err });
  let prepared: Promise<Prepared> | undefined;
  const load = async (): Promise<Prepared> => {
    let text: string | undefined;
    try {
      text = await read(secretId, config.AWS_REGION);
    } catch (err) {
      throw fail('cannot be read', err);
    }
    const creds = parseFacilitatorSecret(text, secretId);
    try {
      return {
        headers: creds.headers ?? {},
        cdp: creds.CDP_API_KEY_SECRET ? { apiKeyId: creds.CDP_API_KEY_ID!, key: cdpSigningKey(creds.CDP_API_KEY_SECRET) } : null,
      };
    } catch (err) {
      throw fail('CDP_API_KEY_SECRET is not a PEM EC key or a base64 Ed25519 key', err);
    }
  };
  return async () => {
    prepared ??= load().catch((err: unknown) => {
      prepared = undefined;
      throw err;
    });
    const p = await prepared;
    try {
      return authHeadersFor(p, config.X402_FACILITATOR_URL, Math.floor(now().getTime() / 1000));
    } catch (err) {
      throw fail('cannot sign', err);
    }
  };
};

export { facilitatorAuth, FacilitatorAuthError, parseFacilitatorSecret, cdpJwt, cdpSigningKey };
export type { FacilitatorCredentials };
