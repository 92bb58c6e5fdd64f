/**
 * Pro API keys: `cds_live_` / `cds_test_` + 32 base62 characters (190 bits of randomness) + a
 * 6-character checksum, so a mistyped key is refused without a store read and secret scanners can
 * recognise one. Only the SHA-256 hash is stored; the key is shown once.
 */
import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32;
const CHECK_LENGTH = 6;
const KEY_PATTERN = /^cds_(live|test)_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;

type KeyEnv = 'live' | 'test';

const base62 = (bytes: Uint8Array, length: number): string => {
  let out = '';
  // Rejection sampling keeps every character uniform (256 is not a multiple of 62).
  for (const b of bytes) {
    if (b < 248) out += ALPHABET[b % 62];
    if (out.length === length) return out;
  }
  return out + base62(randomBytes(length), length - out.length);
};

const checksumOf = (prefixAndBody: string): string => {
  const digest = createHash('sha256').update(prefixAndBody).digest();
  let n = digest.readUInt32BE(0) * 2 ** 4 + (digest[4]! >> 4);
  let out = '';
  for (let i = 0; i < CHECK_LENGTH; i++) {
    out += ALPHABET[n % 62];
    n = Math.floor(n / 62);
  }
  return out;
};

/** A new key (shown once; store only its hash). */
const generateKey = (env: KeyEnv = 'live'): string => {
  const head = `cds_${env}_${base62(randomBytes(BODY_LENGTH * 2), BODY_LENGTH)}`;
  return head + checksumOf(head);
};

/** Whether a string is a well-formed key with a valid checksum (no store read). */
const parseKey = (key: string): { ok: true; env: KeyEnv } | { ok: false } => {
  const m = KEY_PATTERN.exec(key);
  if (!m) return { ok: false };
  return checksumOf(`cds_${m[1]}_${m[2]}`) === m[3] ? { ok: true, env: m[1] as KeyEnv } : { ok: false };
};

/** What is stored and looked up: the SHA-256 of the key, hex. */
const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** What operators and finance see of a key: its prefix and last four characters. */
const keyHint = (key: string): string => `${key.slice(0, 9)}…${key.slice(-4)}`;

/**
 * The key an `Authorization` header carries: the token of `Bearer <key>`; '' when the header is
 * there but is not a bearer key (refused as an invalid key, never ignored); null when absent or
 * empty. The one parser of the header, for HTTP and for MCP (the POST's header).
 * @example bearerKey('Bearer cds_live_…') // 'cds_live_…'
 */
const bearerKey = (authorization: string | undefined): string | null => {
  if (!authorization) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return m ? m[1]! : '';
};

/** The key of an `Authorization: Bearer` header in lower-cased headers (bearerKey of `authorization`). */
const bearerOf = (headers: Readonly<Record<string, string | undefined>>): string | null => bearerKey(headers.authorization);

export { bearerKey, bearerOf, generateKey, parseKey, hashKey, keyHint };
export type { KeyEnv };
