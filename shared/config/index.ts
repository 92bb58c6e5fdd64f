/**
 * Configuration, parsed once at cold start from the environment by one zod schema;
 * `process.env` is read nowhere else. A bad or missing value fails start-up with one error
 * that lists every problem.
 */
import * as z from '../zod';
import { ENV } from './env-keys';

const truthy = z.pipe(
  z.optional(z.string()),
  z.transform((v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim())),
);

/** A USD amount with at most 2 decimals, kept as its decimal string (pricing.ts converts it, exactly). */
const UsdCents = z.string().check(z.regex(/^\d{1,4}(\.\d{1,2})?$/, 'expected a USD amount with at most 2 decimals, e.g. 0.05'));

const EvmAddress = z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 0x-prefixed 20-byte address'));

/** Networks this service can charge on (SPEC.md: production Base, staging Base Sepolia). */
const X402NetworkSchema = z.enum(['eip155:8453', 'eip155:84532']);
type X402Network = z.infer<typeof X402NetworkSchema>;

const ConfigSchema = z
  .object({
    [ENV.STAGE]: z._default(z.enum(['dev', 'staging', 'prod']), 'dev'),
    [ENV.OBSERVATIONS_TABLE]: z.string().check(z.minLength(1)),
    [ENV.CREDITS_TABLE]: z.string().check(z.minLength(1)),
    [ENV.DYNAMODB_ENDPOINT]: z.optional(z.url()),
    // Per attempt (3 attempts): a stalled store fails the call inside the request budget.
    [ENV.STORE_TIMEOUT_MS]: z._default(z.coerce.number().check(z.int(), z.minimum(100), z.maximum(20_000)), 3_000),
    // CloudWatch namespace of the business metrics; unset (local runtime, tests): none are emitted.
    [ENV.METRICS_NAMESPACE]: z.optional(z.string().check(z.minLength(1), z.maxLength(255))),
    [ENV.AWS_REGION]: z._default(z.string().check(z.minLength(1)), 'us-east-1'),
    [ENV.X402_ENFORCE]: truthy,
    [ENV.X402_NETWORK]: z._default(X402NetworkSchema, 'eip155:84532'),
    // A burn-proof default is not possible for a pay-to address; demo mode never settles, so
    // the zero address only shows up in challenges of a misconfigured dev run.
    [ENV.X402_PAY_TO]: z._default(EvmAddress, '0x0000000000000000000000000000000000000000'),
    [ENV.X402_FACILITATOR_URL]: z._default(z.url(), 'https://x402.org/facilitator'),
    // Payers sign validBefore = now + this; a request needs up to ~29 s (API Gateway) of it left, and
    // the facilitator refuses to settle with less than 6 s, so a shorter window cannot work.
    [ENV.X402_MAX_TIMEOUT_SECONDS]: z._default(z.coerce.number().check(z.int(), z.minimum(30), z.maximum(3600)), 60),
    // API Gateway cuts a request at 29 s; verify + handler + settle must fit inside it.
    [ENV.X402_FACILITATOR_TIMEOUT_MS]: z._default(z.coerce.number().check(z.int(), z.minimum(100), z.maximum(12_000)), 10_000),
    // Hosted facilitators (Coinbase CDP) want credentials on /verify and /settle: a JSON secret read
    // once per cold start (shared/payment/facilitator-auth.ts); unset, no credentials are sent.
    [ENV.X402_FACILITATOR_SECRET_ARN]: z.optional(z.string().check(z.startsWith('arn:'))),
    // JSON-RPC of the payment network, read only by reconciliation of pending settlements (public
    // Base / Base Sepolia RPC when unset; the local chain sets its own).
    [ENV.X402_RPC_URL]: z.optional(z.url()),
    [ENV.X402_RPC_SECRET_ARN]: z.optional(z.string().check(z.startsWith('arn:'))),
    [ENV.X402_LOCAL_CHAIN]: truthy,
    // Deferred settlement of the exact lane (shared/payment/exact/deferral.ts): a route priced at or
    // below X402_DEFER_MAX_USD answers once /verify passed and the claim is durable, and is settled
    // after; above it, or beyond a payer's unsettled X402_DEFER_OUTSTANDING_USD / X402_DEFER_MAX_CALLS,
    // it settles first. 0 turns deferral off. USD with at most 2 decimals (money is integers).
    [ENV.X402_DEFER_MAX_USD]: z._default(UsdCents, '0.05'),
    [ENV.X402_DEFER_OUTSTANDING_USD]: z._default(UsdCents, '0.25'),
    [ENV.X402_DEFER_MAX_CALLS]: z._default(z.coerce.number().check(z.int(), z.minimum(0), z.maximum(10_000)), 25),
    [ENV.INDICATIVE_FUTURES]: truthy,
    // Licensed futures-curve provider (shared/sources/curve-source.ts); required when INDICATIVE_FUTURES is on,
    // which the curve function checks at cold start. URL and key are whatever that provider needs.
    [ENV.CURVE_PROVIDER]: z.optional(z.string().check(z.minLength(1))),
    [ENV.CURVE_PROVIDER_URL]: z.optional(z.url()),
    [ENV.CURVE_PROVIDER_API_KEY]: z.optional(z.string().check(z.minLength(1))),
    [ENV.EIA_API_KEY]: z.optional(z.string().check(z.minLength(1))),
    [ENV.FRED_API_KEY]: z.optional(z.string().check(z.minLength(1))),
    [ENV.NASS_API_KEY]: z.optional(z.string().check(z.minLength(1))),
    [ENV.FAS_API_KEY]: z.optional(z.string().check(z.minLength(1))),
    [ENV.PUBLIC_BASE_URL]: z.optional(z.url()),
    // The MCP Registry name of this deployment (server.json): a namespace the operator owns
    // (io.github.<user>/… or reverse DNS of their domain). The default is the registry's anonymous
    // namespace, which only development registries accept.
    [ENV.MCP_REGISTRY_NAME]: z._default(
      z.string().check(z.regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, 'expected namespace/name, e.g. io.github.alice/commodity-data'), z.maxLength(200)),
      'io.modelcontextprotocol.anonymous/commodity-data',
    ),
    // How people reach the operator (the Pro page without online checkout, OpenAPI info.contact): an email address or an https URL.
    [ENV.OPERATOR_CONTACT]: z.optional(z.union([z.email(), z.url({ protocol: /^https$/ })], 'expected an email address or an https URL')),
    [ENV.PRO_RATE_LIMIT_PER_SECOND]: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(10_000)), 50), // calls per second per Pro key and process
    // Pro checkout (Stripe). Absent: the /pro page says checkout is off and keys come from operators.
    [ENV.STRIPE_SECRET_ARN]: z.optional(z.string().check(z.startsWith('arn:'))), // Pro function: JSON secret {STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET}
    [ENV.STRIPE_SECRET_KEY]: z.optional(z.string().check(z.startsWith('sk_'))),
    [ENV.STRIPE_WEBHOOK_SECRET]: z.optional(z.string().check(z.startsWith('whsec_'))),
    // Signs the offers of every 402 and a receipt for every paid answer (offer-receipt, JWS): an
    // Ed25519 private key, PKCS#8 PEM (a secret). Absent: nothing is signed (npm start makes one per data folder).
    [ENV.RECEIPT_SIGNING_KEY]: z.optional(
      z.string().check(z.trim(), z.startsWith('-----BEGIN PRIVATE KEY-----', 'expected an Ed25519 private key in PKCS#8 PEM')),
    ),
    // In AWS: the secret holding it, read on the first paid call (shared/payment/receipt-secret.ts).
    [ENV.RECEIPT_SIGNING_SECRET_ARN]: z.optional(z.string().check(z.startsWith('arn:'))),
    // Rotation: the kids (did:jwk) of earlier signing keys, comma-separated, still published so their receipts stay attributable.
    [ENV.RECEIPT_PREVIOUS_KIDS]: z._default(
      z.pipe(
        z.pipe(
          z.string(),
          z.transform((s: string) =>
            s
              .split(',')
              .map((k) => k.trim())
              .filter(Boolean),
          ),
        ),
        z.array(z.string().check(z.startsWith('did:'))),
      ),
      [],
    ),
    [ENV.STRIPE_PRICE_MONTHLY]: z.optional(z.string().check(z.startsWith('price_'))),
    [ENV.STRIPE_PRICE_YEARLY]: z.optional(z.string().check(z.startsWith('price_'))),
    [ENV.STRIPE_API_URL]: z.optional(z.url()), // a Stripe-compatible API on another host (tests: a loopback fake)
    [ENV.SOURCE_ID]: z.optional(z.string().check(z.regex(/^[a-z0-9-]+$/))), // ingestion Lambdas: which registry source to run
    [ENV.SOURCE_KEYS_SECRET_ARN]: z.optional(z.string().check(z.startsWith('arn:'))), // ingestion Lambdas: JSON secret of the source API keys
    // Read by nothing: a new value (-c secretsRevision=…) changes every function, so each starts cold
    // and reads its secrets again after an operator rotated them.
    [ENV.SECRETS_REVISION]: z.optional(z.string().check(z.maxLength(64))),
    // The server secret of the paid answers' ETags (shared/http/etag-key.ts); unset: a per-process key.
    [ENV.ETAG_SECRET_ARN]: z.optional(z.string().check(z.startsWith('arn:'))),
    // The webhook delivery queue (SQS) of the watch functions (infra/constructs/watches.ts).
    [ENV.WATCH_QUEUE_URL]: z.optional(z.url()),
  })
  .check(
    z.superRefine((c, ctx) => {
      // Outside dev an enforced challenge must never ask payers to send USDC to the zero address.
      if (c[ENV.X402_ENFORCE] && c[ENV.STAGE] !== 'dev' && /^0x0{40}$/.test(c[ENV.X402_PAY_TO])) {
        ctx.addIssue({ code: 'custom', path: [ENV.X402_PAY_TO], message: 'required (a non-zero receiving address) when X402_ENFORCE is on outside dev' });
      }
      // A service that takes money names its own URL (402s, discovery documents): outside dev it is
      // configured, never guessed. Functions that write no URL (ingestion) run without it.
      if (c[ENV.X402_ENFORCE] && c[ENV.STAGE] !== 'dev' && !c[ENV.PUBLIC_BASE_URL]) {
        ctx.addIssue({
          code: 'custom',
          path: [ENV.PUBLIC_BASE_URL],
          message: 'required when X402_ENFORCE is on outside dev (the base URL written into 402s and discovery documents)',
        });
      }
    }),
  );

type Config = Readonly<z.infer<typeof ConfigSchema>>;

class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses and freezes the configuration.
 * @param env the environment (defaults to process.env)
 * @throws ConfigError listing every missing or malformed key
 */
const loadConfig = (env: Record<string, string | undefined> = process.env): Config => {
  // `FOO=` in a shell or a .env file means "not set", not "set to nothing".
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const parsed = ConfigSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  return Object.freeze(parsed.data);
};

export { ConfigSchema, ConfigError, loadConfig };
export type { Config, X402Network };
