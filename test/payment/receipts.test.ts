/**
 * Signed offers and receipts (shared/payment/receipts.ts) as the official @x402/extensions client
 * side reads and verifies them: offers on a real 402 of the local service, found by
 * extractOffersFromPaymentRequired and verified by verifyOfferSignatureEIP712/JWS; receipts of each
 * lane (exact, batch-settlement, Pro credits) carried in a PAYMENT-RESPONSE the package's
 * extractReceiptFromResponse reads, verified by verifyReceiptSignatureEIP712/JWS and matched to
 * the offer by verifyReceiptMatchesOffer. Payers and transactions are synthetic.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  decodeSignedOffers,
  type EIP712SignedOffer,
  type EIP712SignedReceipt,
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  type JWSSignedOffer,
  type JWSSignedReceipt,
  verifyOfferSignatureEIP712,
  verifyOfferSignatureJWS,
  verifyReceiptMatchesOffer,
  verifyReceiptSignatureEIP712,
  verifyReceiptSignatureJWS,
} from '@x402/extensions/offer-receipt';
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localReceiptKey } from '../../infra/local/receipt-key';
import type { LocalStack } from '../../infra/local/stack';
import type { PaymentRequiredBody } from '../../shared/payment/challenge';
import {
  eip712ReceiptSigner,
  jwsReceiptSigner,
  type ReceiptSigner,
  sha256Hex,
  signedReceiptOf,
  withReceipt,
  withSignedOffers,
} from '../../shared/payment/receipts';
import { startTestStack } from '../helpers/stack';

const PAYER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const TX = `0x${'ab'.repeat(32)}`;
const BODY = '{"instrument":"CL","value":71.5,"attributes":{"synthetic":true}}';

/** A response as a paid answer carries the receipt: PAYMENT-RESPONSE, base64 JSON of the settlement. */
const answerWith = (settlement: object) => new Response(BODY, { headers: { 'PAYMENT-RESPONSE': Buffer.from(JSON.stringify(settlement)).toString('base64') } });

describe('signed offers and receipts, verified with the official @x402/extensions', () => {
  let stack: LocalStack;
  let challenge: PaymentRequiredBody;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: '1' }, false);
    const res = await fetch(`${stack.url}/v1/price/CL`);
    expect(res.status).toBe(402);
    challenge = (await res.json()) as PaymentRequiredBody;
  });
  afterAll(() => stack?.close());

  const signers = (): Array<[string, ReceiptSigner]> => [
    ['JWS (Ed25519, did:jwk, the local data folder’s key)', jwsReceiptSigner(localReceiptKey(mkdtempSync(join(tmpdir(), 'receipt-key-'))))],
    ['EIP-712 (secp256k1)', eip712ReceiptSigner(generatePrivateKey(), 'eip155:84532')],
  ];

  it.each(signers())('%s: every payment option of a real 402 has a signed offer the package finds and verifies', async (_what, signer) => {
    const signed = await withSignedOffers(signer, challenge);
    expect(signed.accepts).toEqual(challenge.accepts);
    const offers = extractOffersFromPaymentRequired(signed as never);
    expect(offers).toHaveLength(challenge.accepts.length);
    const decoded = decodeSignedOffers(offers);
    for (const [i, offer] of decoded.entries()) {
      expect(offer).toMatchObject({
        resourceUrl: challenge.resource.url,
        amount: challenge.accepts[i]!.amount,
        payTo: challenge.accepts[i]!.payTo,
        acceptIndex: i,
      });
      if (offer.format === 'jws') {
        expect(await verifyOfferSignatureJWS(offer.signedOffer as JWSSignedOffer)).toMatchObject({ amount: challenge.accepts[i]!.amount });
      } else {
        const { signer: address } = await verifyOfferSignatureEIP712(offer.signedOffer as EIP712SignedOffer);
        expect(address).toBe(signer.published.address);
      }
    }
  });

  it.each(signers())('%s: a receipt per lane, read from PAYMENT-RESPONSE, verified, and matching the offer and payer', async (_what, signer) => {
    const [offer] = decodeSignedOffers(extractOffersFromPaymentRequired((await withSignedOffers(signer, challenge)) as never));
    const lanes = [
      { lane: 'exact', transaction: TX, payer: PAYER },
      { lane: 'batch-settlement', transaction: 'pending:voucher-7', payer: PAYER },
      { lane: 'pro', transaction: 'credits:req-1#1', payer: 'key:3f2a9c01b7e4' },
    ] as const;
    for (const l of lanes) {
      const receipt = await signedReceiptOf(signer, {
        resourceUrl: challenge.resource.url,
        payer: l.payer,
        network: offer!.network,
        transaction: l.transaction,
        lane: l.lane,
        amount: l.lane === 'pro' ? '1' : offer!.amount,
        asset: l.lane === 'pro' ? 'credits' : offer!.asset,
        body: BODY,
      });
      const settlement = withReceipt({ success: true, transaction: l.transaction, network: offer!.network, payer: l.payer }, receipt);
      const read = extractReceiptFromResponse(answerWith(settlement));
      expect(read, l.lane).toEqual(receipt);
      if (read!.format === 'jws') {
        const payload = (await verifyReceiptSignatureJWS(read as JWSSignedReceipt)) as unknown as Record<string, unknown>;
        // The protected header (encoded once per signer) is the one the package writes for the offers: {alg, kid} of this key.
        expect(JSON.parse(Buffer.from(read!.signature.split('.')[0]!, 'base64url').toString())).toEqual({ alg: 'EdDSA', kid: signer.published.kid });
        expect(read!.signature.split('.')[0]).toBe((offer!.signedOffer as JWSSignedOffer).signature.split('.')[0]);
        expect(payload, l.lane).toMatchObject({ payer: l.payer, transaction: l.transaction, lane: l.lane, bodySha256: sha256Hex(BODY) });
        expect(payload.amount, l.lane).toBe(l.lane === 'pro' ? '1' : challenge.accepts[0]!.amount);
      } else {
        const { signer: address, payload } = await verifyReceiptSignatureEIP712(read as EIP712SignedReceipt);
        expect(address).toBe(signer.published.address);
        expect(payload).toMatchObject({ payer: l.payer, transaction: l.transaction });
      }
      expect(verifyReceiptMatchesOffer(read!, offer!, [l.payer]), l.lane).toBe(true);
      expect(verifyReceiptMatchesOffer(read!, offer!, ['0x0000000000000000000000000000000000000001']), `${l.lane}: another payer`).toBe(false);
    }
  });

  it('a receipt whose amount or body hash was altered no longer verifies (JWS)', async () => {
    const [, signer] = signers()[0]!;
    const receipt = (await signedReceiptOf(signer, {
      resourceUrl: challenge.resource.url,
      payer: PAYER,
      network: 'eip155:84532',
      transaction: TX,
      lane: 'exact',
      amount: '10000',
      asset: challenge.accepts[0]!.asset,
      body: BODY,
    })) as JWSSignedReceipt;
    const [h, p, s] = receipt.signature.split('.');
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, amount: '1' })).toString('base64url');
    await expect(verifyReceiptSignatureJWS({ format: 'jws', signature: `${h}.${forged}.${s}` })).rejects.toThrow();
    const otherBody = Buffer.from(JSON.stringify({ ...claims, bodySha256: sha256Hex('{}') })).toString('base64url');
    await expect(verifyReceiptSignatureJWS({ format: 'jws', signature: `${h}.${otherBody}.${s}` })).rejects.toThrow();
  });

  it('the local key is generated once per data folder and kept', () => {
    const dir = mkdtempSync(join(tmpdir(), 'receipt-key-'));
    const first = localReceiptKey(dir);
    expect(localReceiptKey(dir)).toBe(first);
    expect(first).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(jwsReceiptSigner(first).published.kid).toBe(jwsReceiptSigner(localReceiptKey(dir)).published.kid);
  });
});
