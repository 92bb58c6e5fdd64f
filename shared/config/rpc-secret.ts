/**
 * The chain's RPC URL from its secret. A provider's URL carries its API key (Alchemy `/v2/<key>`,
 * Infura `/v3/<key>`, QuickNode's token), so in AWS it lives in Secrets Manager (X402_RPC_SECRET_ARN,
 * `-c rpcUrlSecretArn=…`) and never in a template or a function's environment; the functions that
 * read the chain (reconciler, batch settler, deferred settle worker) resolve it at cold start.
 * The secret's value is the URL itself, or `{"X402_RPC_URL": "https://…"}`. Errors name the secret,
 * never its value.
 */
import * as z from '../zod';
import type { Config } from './index';
import { readFromSecretsManager, type SecretReader } from './secret-reader';

const RpcUrl = z.url({ protocol: /^https?$/ });

/** The URL in a secret's text. @throws Error naming the secret and what is wrong (not the text) */
const parseRpcSecret = (text: string | undefined, secretId: string): string => {
  const raw = (text ?? '').trim();
  let url: unknown = raw;
  if (raw.startsWith('{')) {
    try {
      url = (JSON.parse(raw) as { X402_RPC_URL?: unknown }).X402_RPC_URL;
    } catch {
      throw new Error(`rpc secret ${secretId}: value is not JSON (expected the URL, or {"X402_RPC_URL": "https://…"})`);
    }
  }
  if (!RpcUrl.safeParse(url).success) throw new Error(`rpc secret ${secretId}: expected an http(s) URL (or {"X402_RPC_URL": "https://…"})`);
  return url as string;
};

/** One read per process and secret: the URL does not change under a running function (a new secretsRevision restarts them). */
const cache = new Map<string, Promise<string>>();

/**
 * The configuration with X402_RPC_URL from X402_RPC_SECRET_ARN when that is set (the secret wins);
 * otherwise the configuration as it is.
 * @example const config = await withRpcUrlFromSecret(services.config);
 */
const withRpcUrlFromSecret = async <C extends Pick<Config, 'X402_RPC_URL' | 'X402_RPC_SECRET_ARN' | 'AWS_REGION'>>(
  config: C,
  read: SecretReader = readFromSecretsManager,
): Promise<C> => {
  const secretId = config.X402_RPC_SECRET_ARN;
  if (!secretId) return config;
  let url = cache.get(secretId);
  if (!url) {
    url = read(secretId, config.AWS_REGION).then(
      (text) => parseRpcSecret(text, secretId),
      (err: unknown) => {
        throw new Error(`rpc secret ${secretId}: cannot be read (${(err as Error).name ?? 'Error'})`, { cause: err });
      },
    );
    cache.set(secretId, url);
    // A failed read is tried again by the next invocation.
    url.catch(() => cache.delete(secretId));
  }
  return { ...config, X402_RPC_URL: await url };
};

export { withRpcUrlFromSecret, parseRpcSecret };
