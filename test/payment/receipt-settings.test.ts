/**
 * The receipt signer's settings (RECEIPT_SIGNING_KEY, RECEIPT_PREVIOUS_KIDS) and what the
 * composition and /.well-known/x402.json make of them: one signer per process from the configured
 * key, its kid published with the kids of rotated-out keys; no key, nothing signed or published.
 * Keys are generated here (synthetic).
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { buildX402Catalog } from '../../shared/families/discovery/x402-catalog';
import { jwsReceiptSigner } from '../../shared/payment/receipts';
import { createServices } from '../../shared/services';

const pem = () => generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const base = { OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c' };

describe('receipt signing settings', () => {
  it('a key that is not a PKCS#8 PEM, or a previous kid that is not a DID, stops start-up', () => {
    expect(() => loadConfig({ ...base, RECEIPT_SIGNING_KEY: 'hunter2' })).toThrow(/RECEIPT_SIGNING_KEY/);
    expect(() => loadConfig({ ...base, RECEIPT_PREVIOUS_KIDS: 'did:jwk:abc#0, not-a-did' })).toThrow(/RECEIPT_PREVIOUS_KIDS/);
  });

  it('the composition builds the signer from the key; /.well-known/x402.json publishes its kid and the rotated-out kids', () => {
    const key = pem();
    const old = jwsReceiptSigner(pem()).published.kid;
    const config = loadConfig({ ...base, RECEIPT_SIGNING_KEY: key, RECEIPT_PREVIOUS_KIDS: ` ${old} ,` });
    const services = createServices(config);
    const kid = services.payment.receipts?.published.kid;
    // The kid is a did:jwk of the public key: the one derived from the configured private key.
    expect(kid).toBe(jwsReceiptSigner(key).published.kid);
    expect(kid).not.toBe(old);
    const catalog = buildX402Catalog(config, 'https://api.example.com', () => [], services.payment.receipts);
    expect(catalog.receipt_signing).toEqual({ format: 'jws', kid, previous_kids: [old] });
    services.doc?.destroy();
  });

  it('without a key nothing is signed and nothing is published', () => {
    const config = loadConfig(base);
    const services = createServices(config);
    expect(services.payment.receipts).toBeUndefined();
    expect(buildX402Catalog(config, 'https://api.example.com', () => [], services.payment.receipts).receipt_signing).toBeNull();
    services.doc?.destroy();
  });
});
