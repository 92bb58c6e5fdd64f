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
    const catalog = buildX402Catalog(config, 'https://api.example.com', () => [], {
      signer: services.payment.receipts!,
      previousKids: services.payment.previousReceiptKids!,
    });
    expect(catalog.receipt_signing).toEqual({ format: 'jws', kid, previous_kids: [old] });
    services.doc?.destroy();
  });

  it('AWS: the key is read from its secret once, on the first paid call; an unreadable secret leaves answers unsigned and is read again', async () => {
    const key = pem();
    const old = jwsReceiptSigner(pem()).published.kid;
    const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:commodity-data-prod/receipt-signing';
    let reads = 0;
    let fail = true;
    const readSecret = async (id: string) => {
      reads++;
      expect(id).toBe(ARN);
      if (fail) throw Object.assign(new Error('AccessDenied'), { name: 'AccessDeniedException' });
      return JSON.stringify({ RECEIPT_SIGNING_KEY: key, RECEIPT_PREVIOUS_KIDS: [old] });
    };
    const errors: string[] = [];
    const log = { info: () => undefined, warn: () => undefined, error: (m: string) => errors.push(m) };
    const services = createServices(loadConfig({ ...base, RECEIPT_SIGNING_SECRET_ARN: ARN }), { readSecret, payment: { log } });
    expect(services.payment.receipts).toBeUndefined();
    await services.payment.receiptsReady!();
    expect(services.payment.receipts).toBeUndefined();
    expect(errors).toEqual([expect.stringMatching(/unsigned/)]);
    fail = false;
    await Promise.all([services.payment.receiptsReady!(), services.payment.receiptsReady!()]);
    await services.payment.receiptsReady!();
    expect(reads).toBe(2);
    expect(services.payment.receipts?.published.kid).toBe(jwsReceiptSigner(key).published.kid);
    expect(services.payment.previousReceiptKids).toEqual([old]);
    services.doc?.destroy();
  });

  it('without a key nothing is signed and nothing is published', () => {
    const config = loadConfig(base);
    const services = createServices(config);
    expect(services.payment.receipts).toBeUndefined();
    expect(buildX402Catalog(config, 'https://api.example.com', () => []).receipt_signing).toBeNull();
    services.doc?.destroy();
  });
});
