/**
 * The second server process gets its configuration as an environment (server-process.ts
 * configEnv): parsed again there it must be the parent's configuration, or the two processes would
 * not be two instances of one service (a flag off, a list or a multi-line key lost on the way).
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { configEnv } from './server-process';

describe('configEnv', () => {
  it('is what loadConfig parses back into the same configuration', () => {
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const config = loadConfig({
      OBSERVATIONS_TABLE: 'obs',
      CREDITS_TABLE: 'credits',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:4321',
      STORE_TIMEOUT_MS: '400',
      X402_ENFORCE: '1',
      X402_LOCAL_CHAIN: 'false',
      X402_DEFER_MAX_USD: '0.01',
      RECEIPT_SIGNING_KEY: pem,
      RECEIPT_PREVIOUS_KIDS: 'did:jwk:a#0,did:jwk:b#0',
    });
    const env = configEnv(config);
    expect(env).toMatchObject({ STORE_TIMEOUT_MS: '400', RECEIPT_PREVIOUS_KIDS: 'did:jwk:a#0,did:jwk:b#0' });
    expect(loadConfig(env)).toEqual(config);
  });
});
