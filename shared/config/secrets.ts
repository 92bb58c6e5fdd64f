/**
 * Source API keys from AWS Secrets Manager. In AWS the keys never sit in a function's environment:
 * CDK gives the ingestion functions only SOURCE_KEYS_SECRET_ARN (and read permission), and this module
 * loads that one JSON secret at cold start and merges its keys into the configuration input before
 * `loadConfig` validates everything. Locally (no ARN) the keys come from the environment as before.
 *
 * The secret is a JSON object whose names are env keys, e.g. `{"EIA_API_KEY": "…", "NASS_API_KEY": "…"}`.
 * Error messages name keys and the secret ARN, never a value.
 */
import * as z from '../zod';
import { SOURCE_KEY_NAMES } from './env-keys';
import { loadConfig, type Config } from './index';
import { readFromSecretsManager, type SecretReader } from './secret-reader';

/** The env keys a source-key secret may hold (each secret holds one of them in production). */
type SourceKeyName = (typeof SOURCE_KEY_NAMES)[number];

// Strict: a misspelt name ("EIA_KEY") would otherwise be dropped silently and the source skipped forever.
const SourceKeysSchema = z.strictObject(
  Object.fromEntries(SOURCE_KEY_NAMES.map((k) => [k, z.optional(z.string())])) as Record<SourceKeyName, z.ZodMiniOptional<z.ZodMiniString>>,
);

/**
 * Parses the secret's text into source keys.
 * @throws Error naming the problem (never echoing the text: JSON.parse messages quote the input)
 */
const parseSourceKeys = (text: string | undefined, secretId: string): Partial<Record<SourceKeyName, string>> => {
  let json: unknown;
  try {
    json = JSON.parse(text ?? '');
  } catch {
    throw new Error(`source keys secret ${secretId}: value is not JSON (expected an object such as {"EIA_API_KEY": "…"})`);
  }
  const parsed = SourceKeysSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) =>
      i.code === 'unrecognized_keys'
        ? `unknown keys ${i.keys.join(', ')} (allowed: ${SOURCE_KEY_NAMES.join(', ')})`
        : `${i.path.join('.') || 'value'}: ${i.message}`,
    );
    throw new Error(`source keys secret ${secretId}: ${problems.join('; ')}`);
  }
  return parsed.data;
};

/**
 * The configuration with the source keys of SOURCE_KEYS_SECRET_ARN merged in (the secret wins over the
 * environment). Without that variable it is plain `loadConfig(env)`.
 * @param env the environment (defaults to process.env)
 * @param read how to read the secret (defaults to Secrets Manager in the configured region)
 * @throws ConfigError for a bad environment; Error when the secret cannot be read or is malformed
 * @example const config = await loadConfigWithSecrets(); // at cold start of an ingestion function
 */
const loadConfigWithSecrets = async (env: Record<string, string | undefined> = process.env, read: SecretReader = readFromSecretsManager): Promise<Config> => {
  // Validate the plain environment first, so a bad ARN or region is reported before any AWS call.
  const base = loadConfig(env);
  const secretId = base.SOURCE_KEYS_SECRET_ARN;
  if (!secretId) return base;
  let text: string | undefined;
  try {
    text = await read(secretId, base.AWS_REGION);
  } catch (err) {
    throw new Error(`source keys secret ${secretId}: cannot be read (${(err as Error).name ?? 'Error'})`, { cause: err });
  }
  return loadConfig({ ...env, ...parseSourceKeys(text, secretId) });
};

// Strict (a misspelt name would leave checkout off silently); the plans' prices may sit here too, or
// come from the deployment context (-c stripePriceMonthly/stripePriceYearly, the function's environment).
const StripeSecretSchema = z.strictObject({
  STRIPE_SECRET_KEY: z.optional(z.string()),
  STRIPE_WEBHOOK_SECRET: z.optional(z.string()),
  STRIPE_PRICE_MONTHLY: z.optional(z.string()),
  STRIPE_PRICE_YEARLY: z.optional(z.string()),
});

/**
 * The Pro function's configuration: the environment plus the Stripe keys (and, when put there, the
 * prices) from their secret (STRIPE_SECRET_ARN), the secret winning. An empty secret ("{}") leaves
 * checkout off; it never stops the function.
 */
const loadConfigWithStripeSecret = async (
  env: Record<string, string | undefined> = process.env,
  read: SecretReader = readFromSecretsManager,
): Promise<Config> => {
  const base = loadConfig(env);
  const secretId = base.STRIPE_SECRET_ARN;
  if (!secretId) return base;
  let text: string | undefined;
  try {
    text = await read(secretId, base.AWS_REGION);
  } catch (err) {
    throw new Error(`stripe secret ${secretId}: cannot be read (${(err as Error).name ?? 'Error'})`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text ?? '{}');
  } catch {
    throw new Error(`stripe secret ${secretId}: value is not JSON (expected {"STRIPE_SECRET_KEY": "sk_…", "STRIPE_WEBHOOK_SECRET": "whsec_…"})`);
  }
  const parsed = StripeSecretSchema.safeParse(json);
  if (!parsed.success) throw new Error(`stripe secret ${secretId}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return loadConfig({ ...env, ...parsed.data });
};

export { loadConfigWithSecrets, loadConfigWithStripeSecret, parseSourceKeys };
export type { SecretReader, SourceKeyName };
