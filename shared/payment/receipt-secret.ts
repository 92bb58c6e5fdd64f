/**
 * The receipt signing key of a deployment, kept in Secrets Manager (RECEIPT_SIGNING_SECRET_ARN,
 * JSON {"RECEIPT_SIGNING_KEY": "<Ed25519 PKCS#8 PEM>", "RECEIPT_PREVIOUS_KIDS": ["did:jwk:…"]};
 * "{}" signs nothing). It is read once per process, on the first paid call (the transports await
 * `receiptsReady` before they sign), and placed on the payment services as their signer. Rotating
 * is writing a new key (and the old kid under RECEIPT_PREVIOUS_KIDS) and bumping SECRETS_REVISION.
 * A secret that cannot be read or parsed leaves answers unsigned (receipts are proof on top of the
 * payment, never a condition of it), is logged, and is read again on the next call.
 */
import * as z from '../zod';
import type { Config } from '../config';
import { readFromSecretsManager, type SecretReader } from '../config/secret-reader';
import type { PaymentDeps } from './lane';
import { jwsReceiptSigner } from './receipts';

const ReceiptSecret = z.strictObject({
  RECEIPT_SIGNING_KEY: z.optional(z.string().check(z.trim(), z.startsWith('-----BEGIN PRIVATE KEY-----'))),
  RECEIPT_PREVIOUS_KIDS: z._default(z.array(z.string().check(z.startsWith('did:'))), []),
});

/**
 * The `receiptsReady` hook of these payment services: undefined without RECEIPT_SIGNING_SECRET_ARN
 * (or with a key set directly). Sets `payment.receipts` and `payment.previousReceiptKids` once read.
 */
const receiptSecretLoader = (
  config: Pick<Config, 'RECEIPT_SIGNING_SECRET_ARN' | 'RECEIPT_SIGNING_KEY' | 'AWS_REGION'>,
  payment: Pick<PaymentDeps, 'receipts' | 'previousReceiptKids' | 'log'>,
  read: SecretReader = readFromSecretsManager,
): (() => Promise<void>) | undefined => {
  const secretId = config.RECEIPT_SIGNING_SECRET_ARN;
  if (!secretId || config.RECEIPT_SIGNING_KEY) return undefined;
  let loaded: Promise<void> | undefined;
  const load = async () => {
    const parsed = ReceiptSecret.parse(JSON.parse((await read(secretId, config.AWS_REGION)) ?? '{}'));
    if (parsed.RECEIPT_SIGNING_KEY) payment.receipts = jwsReceiptSigner(parsed.RECEIPT_SIGNING_KEY);
    payment.previousReceiptKids = parsed.RECEIPT_PREVIOUS_KIDS;
  };
  return () => {
    loaded ??= load().catch((err: unknown) => {
      loaded = undefined;
      payment.log.error('receipt signing secret unreadable: answers go unsigned until it is read', {
        secretId,
        error: (err as Error).name ?? 'Error',
      });
    });
    return loaded;
  };
};

export { receiptSecretLoader };
