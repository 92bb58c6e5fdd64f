/**
 * The server secret of the paid answers' ETags (shared/http/conditional.ts). In AWS it is a Secrets
 * Manager secret (ETAG_SECRET_ARN), read once per container on first use; rotating it (with the
 * other secrets, and a new SECRETS_REVISION so every function starts cold) changes every tag, which
 * costs a client one full answer, never a wrong 304. Locally it is generated once per data folder
 * (infra/local), so tags survive a restart of `npm start`; without either (unit tests) a process
 * draws its own.
 */
import { randomBytes } from 'node:crypto';
import type { Config } from './index';
import { readFromSecretsManager, type SecretReader } from './secret-reader';

/** The server secret of the tags, loaded once per process (Secrets Manager in AWS, the data folder locally). */
type EtagKeySource = () => Promise<Uint8Array>;

/** Shortest secret accepted: HMAC-SHA256 keys below 32 bytes weaken the tag. */
const MIN_SECRET_BYTES = 32;

/** A source that yields `key` (a process's own random one when absent). */
const fixedEtagKey = (key: Uint8Array = randomBytes(32)): EtagKeySource => {
  const ready = Promise.resolve(key);
  return () => ready;
};

/**
 * The key source of a configuration: the secret named by ETAG_SECRET_ARN, read once (a failed read
 * is retried on the next call), else a random per-process key.
 * @throws (from the source) Error when the secret is missing or shorter than 32 bytes
 */
const etagKeyFromConfig = (config: Pick<Config, 'ETAG_SECRET_ARN' | 'AWS_REGION'>, read: SecretReader = readFromSecretsManager): EtagKeySource => {
  const arn = config.ETAG_SECRET_ARN;
  if (!arn) return fixedEtagKey();
  let loading: Promise<Uint8Array> | undefined;
  return () => {
    loading ??= read(arn, config.AWS_REGION).then((text) => {
      const key = Buffer.from(text ?? '', 'utf8');
      if (key.length < MIN_SECRET_BYTES) throw new Error(`etag secret ${arn}: missing or shorter than ${MIN_SECRET_BYTES} bytes`);
      return key;
    });
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };
};

export { etagKeyFromConfig, fixedEtagKey };
export type { EtagKeySource };
