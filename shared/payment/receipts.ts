/**
 * Signed offers and receipts (x402's `offer-receipt` extension, with the official @x402/extensions
 * implementation): every 402 carries an offer signed by the service for each of its payment options,
 * and every paid answer a receipt signed by the service, so a buyer can prove what it was offered,
 * that it paid and what it received, from the signatures alone. A client that ignores the
 * extension is unaffected (it lives under `extensions`).
 *
 * Two formats, as the extension defines them: EIP-712 (the signer is an Ethereum key; its address
 * is what a verifier checks) and JWS (EdDSA over the JCS-canonical payload, the key named by a
 * `did:jwk` kid, so the package verifies it without any lookup). A JWS receipt also binds what the
 * extension's fixed EIP-712 receipt type cannot: the amount and asset charged, the lane, and the
 * SHA-256 of the body served. The signing key is a secret in deployments and generated per data
 * folder locally (infra/local/receipt-key.ts); its public part is what /.well-known/x402.json names.
 *
 * The lanes call two functions: `withSignedOffers` on a challenge before it is rendered, and
 * `signedReceiptOf` + `withReceipt` on the settlement of a paid answer before its PAYMENT-RESPONSE
 * (HTTP) or `_meta["x402/payment-response"]` (MCP) is written.
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto';
import {
  canonicalize,
  createEIP712OfferReceiptIssuer,
  createJWSOfferReceiptIssuer,
  type JWSSigner,
  OFFER_RECEIPT,
  type OfferReceiptIssuer,
  type SignedOffer,
  type SignedReceipt,
} from '@x402/extensions/offer-receipt';
import { privateKeyToAccount } from 'viem/accounts';
import type { PaymentRequiredBody } from './challenge';
import type { Settlement } from './lane';

/** How long a signed offer stays valid (s): a buyer signs its payment within the challenge's own timeout. */
const OFFER_VALIDITY_S = 300;

/** The service's receipt signer, and what a verifier needs to know about it. */
interface ReceiptSigner {
  readonly issuer: OfferReceiptIssuer;
  /**
   * For JWS: signs the receipts with extra claims, synchronously (Ed25519 in node:crypto), because a
   * receipt is signed while a lane stores the answer it is part of (lane.ts AnswerToStore is sync).
   */
  readonly jws?: {
    kid: string;
    /** The JWS protected header {alg, kid}, base64url: the same for every receipt, so encoded once. */
    header: string;
    sign: (input: Uint8Array) => string;
  };
  /** Published in /.well-known/x402.json: the kid (a DID) and, for EIP-712, the signing address. */
  readonly published: { format: 'jws' | 'eip712'; kid: string; address?: string };
}

const b64url = (bytes: Uint8Array | Buffer): string => Buffer.from(bytes).toString('base64url');

/**
 * A JWS signer from an Ed25519 private key (PKCS#8 PEM): kid `did:jwk:<public JWK>#0`, which the
 * package resolves to the key itself.
 */
const jwsReceiptSigner = (privateKeyPem: string): ReceiptSigner => {
  const key: KeyObject = createPrivateKey(privateKeyPem);
  const jwk = createPublicKey(key).export({ format: 'jwk' });
  const kid = `did:jwk:${b64url(Buffer.from(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x })))}#0`;
  const signSync = (input: Uint8Array) => b64url(sign(null, input, key));
  const jws: JWSSigner = { kid, format: 'jws', algorithm: 'EdDSA', sign: async (input) => signSync(input) };
  const header = b64url(Buffer.from(JSON.stringify({ alg: jws.algorithm, kid })));
  return { issuer: createJWSOfferReceiptIssuer(kid, jws), jws: { kid, header, sign: signSync }, published: { format: 'jws', kid } };
};

/** An EIP-712 signer from a secp256k1 private key (0x hex): kid `did:pkh:eip155:<chain>:<address>`. */
const eip712ReceiptSigner = (privateKey: `0x${string}`, network: string): ReceiptSigner => {
  const account = privateKeyToAccount(privateKey);
  const kid = `did:pkh:${network}:${account.address}`;
  return {
    issuer: createEIP712OfferReceiptIssuer(kid, (params) => account.signTypedData(params as Parameters<typeof account.signTypedData>[0])),
    published: { format: 'eip712', kid, address: account.address },
  };
};

/**
 * The challenge with an offer signed for each of its payment options, under
 * `extensions["offer-receipt"].info.offers` (where the package's client reads them).
 */
const withSignedOffers = async (signer: ReceiptSigner, required: PaymentRequiredBody): Promise<PaymentRequiredBody> => {
  const offers: SignedOffer[] = [];
  for (const [acceptIndex, option] of required.accepts.entries()) {
    offers.push(
      await signer.issuer.issueOffer(required.resource.url, {
        acceptIndex,
        scheme: option.scheme,
        network: option.network,
        asset: option.asset,
        payTo: option.payTo,
        amount: option.amount,
        offerValiditySeconds: OFFER_VALIDITY_S,
      }),
    );
  }
  return { ...required, extensions: { ...required.extensions, [OFFER_RECEIPT]: { info: { offers } } } };
};

/** What one paid answer delivered, as its receipt states it. */
interface Delivery {
  resourceUrl: string;
  /** Who paid: the x402 payer's address, or for Pro credits the key's id. */
  payer: string;
  network: string;
  /** The settlement transaction, `pending:<id>` while it is pending, or `credits:<call id>` for a Pro key. */
  transaction: string;
  lane: 'exact' | 'batch-settlement' | 'pro';
  /** The amount charged: USDC atomic units (x402) or credits (Pro). */
  amount: string;
  asset: string;
  /** The body served, exactly as sent. */
  body: Uint8Array | string;
}

const sha256Hex = (body: Uint8Array | string): string => createHash('sha256').update(body).digest('hex');

/**
 * A compact JWS exactly as the package's createJWS makes it (header {alg, kid}, the JCS-canonical
 * payload), signed synchronously.
 */
const jwsOf = (jws: NonNullable<ReceiptSigner['jws']>, payload: object): string => {
  const input = `${jws.header}.${b64url(Buffer.from(canonicalize(payload)))}`;
  return `${input}.${jws.sign(Buffer.from(input))}`;
};

/**
 * The JWS receipt of one paid answer, signed synchronously: the extension's receipt fields plus
 * amount, asset, lane and bodySha256, under one signature.
 */
const jwsReceiptOf = (jws: NonNullable<ReceiptSigner['jws']>, d: Delivery, now: Date): SignedReceipt => {
  const payload = {
    version: 1,
    network: d.network,
    resourceUrl: d.resourceUrl,
    payer: d.payer,
    issuedAt: Math.floor(now.getTime() / 1000),
    transaction: d.transaction,
    lane: d.lane,
    amount: d.amount,
    asset: d.asset,
    bodySha256: sha256Hex(d.body),
  };
  return { format: 'jws', signature: jwsOf(jws, payload) };
};

/**
 * The receipt of one paid answer. JWS: the extension's receipt fields plus amount, asset, lane and
 * bodySha256 (one signature over all of them); EIP-712: the extension's fixed receipt type.
 */
const signedReceiptOf = async (signer: ReceiptSigner, d: Delivery, now: Date = new Date()): Promise<SignedReceipt> =>
  signer.jws ? jwsReceiptOf(signer.jws, d, now) : signer.issuer.issueReceipt(d.resourceUrl, d.payer, d.network, d.transaction);

/** The settlement a PAYMENT-RESPONSE (or MCP's `_meta`) carries, with the receipt where the package's client reads it. */
const withReceipt = (settlement: Settlement, receipt: SignedReceipt): Settlement & { extensions: Record<string, unknown> } => ({
  ...settlement,
  extensions: { [OFFER_RECEIPT]: { info: { receipt } } },
});

export { jwsReceiptSigner, eip712ReceiptSigner, withSignedOffers, signedReceiptOf, jwsReceiptOf, withReceipt, sha256Hex };
export type { ReceiptSigner, Delivery };
