/**
 * Deployment parameters from CDK context (`-c stage=prod -c payTo=0x… -c facilitatorUrl=https://…`),
 * checked at synth so that a misconfigured payment setup never reaches AWS. The x402 environment
 * the functions get is validated with the same zod schema the functions parse at cold start.
 */
import type { Node } from 'constructs';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { getAddress } from 'viem';
import * as z from '../../shared/zod';
import { ConfigSchema, type X402Network } from '../../shared/config';
import { ENV } from '../../shared/config/env-keys';
import { usdcFor } from '../../shared/payment/assets';
import { STAGE_CAPACITY, type StageCapacity } from './capacity-settings';

const STAGES = ['dev', 'staging', 'prod'] as const;
type Stage = (typeof STAGES)[number];

/** SPEC.md "Versioning": production on Base, every other stage on Base Sepolia. */
const NETWORK_OF_STAGE: Readonly<Record<Stage, X402Network>> = Object.freeze({
  dev: 'eip155:84532',
  staging: 'eip155:84532',
  prod: 'eip155:8453',
});

/**
 * Facilitators that settle on testnets only; mainnet needs CDP or a self-hosted one. x402.org is
 * matched with or without a path (`https://x402.org` is the same service as `…/facilitator`), and
 * any host that names a testnet is one too.
 */
const TESTNET_ONLY_FACILITATORS = [/^https?:\/\/(www\.)?x402\.org(?=[/:?#]|$)/i, /^[a-z]+:\/\/[^/?#]*\b(sepolia|testnet|goerli|holesky)\b/i];
/** An RPC host that names a test network (Base Sepolia's public RPC, Alchemy's base-sepolia, …). */
const TESTNET_RPC = /^[a-z]+:\/\/[^/?#]*\b(sepolia|testnet|goerli|holesky)\b/i;
/** An RPC host that names a mainnet (a staging stage settles on Base Sepolia). */
const MAINNET_RPC = /^[a-z]+:\/\/[^/?#]*\b(mainnet)\b/i;
const ACM_CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[\w-]+$/;
const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const ZERO_ADDRESS = /^0x0{40}$/;
const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]{1,256}$/;
/** A secret's complete ARN (with the six-character suffix Secrets Manager adds to its name). */
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/;
/**
 * An RPC URL that carries a credential: user:password@, a key or token in the query, or a path
 * segment long enough to be an API key (Alchemy /v2/<32>, Infura /v3/<32 hex>, QuickNode /<token>/).
 */
const KEYED_URL = [
  /^[a-z]+:\/\/[^/?#]*@/i,
  /[?&](api[-_]?key|key|token|access[-_]?token|secret)=/i,
  /^[a-z]+:\/\/[^/?#]+(\/[^?#]*)?\/[A-Za-z0-9_-]{20,}(\/|$|[?#])/i,
];

/** Context keys this app reads; everything else in the context belongs to CDK. */
const CONTEXT_KEYS = [
  'stage',
  'payTo',
  'facilitatorUrl',
  'x402Enforce',
  'maxTimeoutSeconds',
  'publicBaseUrl',
  'rpcUrl',
  'rpcUrlSecretArn',
  'logRetentionDays',
  'alarmEmail',
  'alarmTopicArn',
  'reconcilerConcurrency',
  'stripePriceMonthly',
  'stripePriceYearly',
  'secretsRevision',
  'mcpRegistryName',
  'operatorContact',
  'domainName',
  'certificateArn',
  'quietAlarms',
  'edge',
] as const;

/**
 * Context keys the app does not judge: CDK's own (feature flags `@aws-cdk/…`, `aws:cdk:…`, lookups
 * `availability-zones:…`, cdk.json's `cli-telemetry`, `acknowledged-issue-numbers`) all carry a
 * character no key of this app has (`@`, `:` or `-`). A plain camelCase key that is not one of
 * CONTEXT_KEYS is a typo (`-c facilitatorURL=…`) that would otherwise be ignored in silence.
 */
const isAppKey = (key: string): boolean => /^[a-z][A-Za-z0-9]*$/.test(key);

// `-c key=value` gives strings; cdk.json may give numbers or booleans.
const ctxString = z.optional(
  z.pipe(
    z.union([z.string(), z.number(), z.boolean()]),
    z.transform((v) => String(v).trim()),
  ),
);

const ContextSchema = z.object(Object.fromEntries(CONTEXT_KEYS.map((k) => [k, ctxString])) as Record<(typeof CONTEXT_KEYS)[number], typeof ctxString>);

/** Everything the stacks need to know about a deployment. */
interface DeployConfig {
  stage: Stage;
  /** Prefix of the stack names, e.g. "commodity-data-prod". */
  stackPrefix: string;
  /** STAGE, METRICS_NAMESPACE and the X402_* variables of every API function. */
  apiEnvironment: Readonly<Record<string, string>>;
  /** STAGE and METRICS_NAMESPACE for the ingestion functions. */
  ingestEnvironment: Readonly<Record<string, string>>;
  /** Added to the Pro function's environment: the Stripe prices of the two plans, when given. */
  proEnvironment: Readonly<Record<string, string>>;
  /** Where every alarm notifies: an existing SNS topic and/or an email subscribed to it (or to the stage's own topic). */
  alarms: { email?: string; topicArn?: string };
  /** Reserved concurrency of the x402 reconciler; undefined: none (a new account's quota leaves nothing to reserve). */
  reconcilerConcurrency?: number;
  /** CloudWatch namespace of the business metrics, e.g. CommodityData/prod. */
  metricsNamespace: string;
  logRetention: RetentionDays;
  /** The secret holding the chain's RPC URL (-c rpcUrlSecretArn): the chain-reading functions get its ARN, never the URL. */
  rpcUrlSecretArn?: string;
  /** A custom domain for the API (-c domainName -c certificateArn): an API Gateway domain and its mapping. */
  domain?: { name: string; certificateArn: string };
  /**
   * False while the pager is held (-c quietAlarms=1): every alarm exists and shows its state, but
   * notifies no one. The first deploy of a stage uses it until the backfill has filled the tables
   * (the stale-source alarms would otherwise all fire on an empty table).
   */
  alarmActions: boolean;
  /** Request budgets of the stage and whether CloudFront + WAF front the API (infra/stacks/capacity-settings.ts). */
  capacity: StageCapacity;
}

/** Thrown at synth with every problem listed, like ConfigError at cold start. */
class DeployConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid deployment context:\n  - ${problems.join('\n  - ')}`);
    this.name = 'DeployConfigError';
  }
}

const onOff = (v: string | undefined): boolean | undefined => {
  if (v === undefined || v === '') return undefined;
  if (/^(1|true|on|yes)$/i.test(v)) return true;
  if (/^(0|false|off|no)$/i.test(v)) return false;
  return undefined;
};

/**
 * Reads and validates the deployment context.
 * @param node the App's node (its context holds the `-c` values and cdk.json's context)
 * @throws DeployConfigError listing every problem
 * @example const cfg = readDeployConfig(app.node);
 */
const readDeployConfig = (node: Pick<Node, 'tryGetContext'> & Partial<Pick<Node, 'getAllContext'>>): DeployConfig => {
  const raw = Object.fromEntries(CONTEXT_KEYS.map((k) => [k, node.tryGetContext(k)]));
  const parsedCtx = ContextSchema.safeParse(raw);
  if (!parsedCtx.success) throw new DeployConfigError(parsedCtx.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  const ctx = parsedCtx.data;
  const problems: string[] = [];
  for (const key of Object.keys(node.getAllContext?.() ?? {})) {
    if (isAppKey(key) && !(CONTEXT_KEYS as readonly string[]).includes(key)) {
      const near = CONTEXT_KEYS.find((k) => k.toLowerCase() === key.toLowerCase());
      problems.push(`${key}: not a setting of this app${near ? ` (did you mean ${near}?)` : ''}; the settings are ${CONTEXT_KEYS.join(', ')}`);
    }
  }

  const stage = (ctx.stage || 'dev') as Stage;
  if (!STAGES.includes(stage)) problems.push(`stage: expected one of ${STAGES.join(', ')}, got "${ctx.stage}"`);

  const enforceCtx = onOff(ctx.x402Enforce);
  if (ctx.x402Enforce !== undefined && enforceCtx === undefined) problems.push(`x402Enforce: expected 1 or 0, got "${ctx.x402Enforce}"`);
  // staging and prod always charge. A dev stack is a developer's sandbox: demo mode unless asked
  // (-c x402Enforce=1), so that a bare `cdk synth` works without a pay-to address.
  const enforce = enforceCtx ?? stage !== 'dev';
  if (!enforce && stage !== 'dev') problems.push(`x402Enforce: payment enforcement can be turned off only in the dev stage (stage is ${stage})`);

  // Keys already reported here; the schema's own message for them would only repeat it.
  const reported = new Set<string>();
  if (enforce && !ctx.payTo) problems.push('payTo: required when payment is enforced (-c payTo=0x<receiving address>)');
  if (ctx.payTo && ZERO_ADDRESS.test(ctx.payTo)) problems.push('payTo: the zero address would burn every payment');
  if ((enforce && !ctx.payTo) || (ctx.payTo && ZERO_ADDRESS.test(ctx.payTo))) reported.add(ENV.X402_PAY_TO);
  if (stage === 'prod' && !ctx.facilitatorUrl) problems.push('facilitatorUrl: required in prod (-c facilitatorUrl=https://… of a mainnet facilitator)');
  if (stage === 'prod' && ctx.facilitatorUrl && TESTNET_ONLY_FACILITATORS.some((re) => re.test(ctx.facilitatorUrl!))) {
    problems.push(
      `facilitatorUrl: ${ctx.facilitatorUrl} settles on testnets only; prod (eip155:8453) needs a mainnet facilitator, e.g. -c facilitatorUrl=https://api.cdp.coinbase.com/platform/v2/x402`,
    );
  }
  // The reconciler, the batch settler and the deferred settle worker read the chain through it. The
  // public Base RPC limits getLogs and rate, so prod names its own provider, preferably in a secret:
  // a provider URL carries its key, and a context value lands in the template.
  const rpcUrlSecretArn = ctx.rpcUrlSecretArn || undefined;
  if (stage === 'prod' && !ctx.rpcUrl && !rpcUrlSecretArn) {
    problems.push(
      'rpcUrlSecretArn or rpcUrl: required in prod: the JSON-RPC URL of a Base mainnet provider, in a Secrets Manager secret (-c rpcUrlSecretArn=arn:aws:secretsmanager:…, preferred: its key stays out of the template) or -c rpcUrl=https://… (a URL without a key); the public https://mainnet.base.org is rate-limited',
    );
  }
  if (ctx.rpcUrl && rpcUrlSecretArn) problems.push('rpcUrl and rpcUrlSecretArn: give one (the secret is read instead of the URL)');
  if (rpcUrlSecretArn && !SECRET_ARN.test(rpcUrlSecretArn)) {
    problems.push(
      `rpcUrlSecretArn: not the complete ARN of a Secrets Manager secret (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 chars>), got "${rpcUrlSecretArn}"`,
    );
  }
  if (ctx.rpcUrl && KEYED_URL.some((re) => re.test(ctx.rpcUrl!))) {
    // Never echo it: the message is printed and logged.
    problems.push(
      'rpcUrl: the URL carries a key (user:password@, a key in the query, or a key-like path segment) and would be written into the template: put it in a Secrets Manager secret and give -c rpcUrlSecretArn=arn:aws:secretsmanager:… instead',
    );
    reported.add(ENV.X402_RPC_URL);
  }
  if (ctx.rpcUrl && stage === 'prod' && TESTNET_RPC.test(ctx.rpcUrl)) {
    problems.push(`rpcUrl: ${ctx.rpcUrl} names a test network; prod settles on Base mainnet (chain 8453): give a Base mainnet RPC URL`);
  }
  if (ctx.rpcUrl && stage !== 'prod' && MAINNET_RPC.test(ctx.rpcUrl)) {
    problems.push(`rpcUrl: ${ctx.rpcUrl} names a mainnet; ${stage} settles on Base Sepolia (chain 84532): give a Base Sepolia RPC URL`);
  }
  // Payment payloads and the facilitator's credentials travel on these; the chain's answers decide
  // whether a buyer paid; every resource URL a buyer signs for starts with publicBaseUrl. Plain
  // http would let anyone on the path forge them.
  for (const key of ['facilitatorUrl', 'rpcUrl', 'publicBaseUrl'] as const) {
    const url = ctx[key];
    if (stage === 'prod' && url && /^[a-z][a-z0-9+.-]*:/i.test(url) && !/^https:\/\//i.test(url)) {
      // A URL with a key is not printed (it was reported above without it).
      const shown = key === 'rpcUrl' && KEYED_URL.some((re) => re.test(url)) ? 'a URL that carries a key' : `"${url}"`;
      problems.push(`${key}: prod needs an https URL, got ${shown}`);
      reported.add({ facilitatorUrl: ENV.X402_FACILITATOR_URL, rpcUrl: ENV.X402_RPC_URL, publicBaseUrl: ENV.PUBLIC_BASE_URL }[key]);
    }
  }
  problems.push(...payToChecksumProblems(ctx.payTo, stage));
  // The token contract cannot spend what it receives: payments sent to it are lost.
  for (const network of new Set(Object.values(NETWORK_OF_STAGE))) {
    if (ctx.payTo && HEX_ADDRESS.test(ctx.payTo) && ctx.payTo.toLowerCase() === usdcFor(network).address.toLowerCase()) {
      problems.push(
        `payTo: ${ctx.payTo} is the USDC token contract (${network}), not a wallet; payments to it are lost: set the address of your receiving wallet`,
      );
    }
  }

  // The MCP Registry refuses the anonymous namespace outside development registries.
  if (stage === 'prod' && ctx.mcpRegistryName?.startsWith('io.modelcontextprotocol.anonymous/')) {
    problems.push(
      `mcpRegistryName: ${ctx.mcpRegistryName} is in the anonymous namespace, which the public MCP Registry refuses: use one you own (io.github.<user>/commodity-data or the reverse DNS of your domain)`,
    );
  }

  let domain: DeployConfig['domain'];
  const domainName = ctx.domainName?.toLowerCase() || undefined;
  const certificateArn = ctx.certificateArn || undefined;
  if (Boolean(domainName) !== Boolean(certificateArn)) {
    problems.push('domainName and certificateArn: give both (-c domainName=api.example.com -c certificateArn=arn:aws:acm:<region>:…) or neither');
  } else if (domainName && certificateArn) {
    if (!HOSTNAME.test(domainName)) problems.push(`domainName: not a host name, got "${ctx.domainName}"`);
    if (!ACM_CERTIFICATE_ARN.test(certificateArn)) {
      problems.push(`certificateArn: not an ACM certificate ARN (arn:aws:acm:<the stack's region>:<account>:certificate/<id>), got "${certificateArn}"`);
    }
    if (HOSTNAME.test(domainName)) domain = { name: domainName, certificateArn };
    if (ctx.publicBaseUrl && URL.canParse(ctx.publicBaseUrl) && new URL(ctx.publicBaseUrl).host !== domainName) {
      problems.push(
        `publicBaseUrl: ${ctx.publicBaseUrl} is not on domainName ${domainName}; leave it out (it defaults to https://${domainName}) or make them agree`,
      );
    }
  }
  const edge = onOff(ctx.edge);
  if (ctx.edge !== undefined && edge === undefined) problems.push(`edge: expected 1 or 0, got "${ctx.edge}"`);
  const quiet = onOff(ctx.quietAlarms);
  if (ctx.quietAlarms !== undefined && quiet === undefined) problems.push(`quietAlarms: expected 1 or 0, got "${ctx.quietAlarms}"`);

  const alarmEmail = ctx.alarmEmail || undefined;
  const alarmTopicArn = ctx.alarmTopicArn || undefined;
  if (alarmEmail && !EMAIL.test(alarmEmail)) problems.push(`alarmEmail: not an email address, got "${alarmEmail}"`);
  if (alarmTopicArn && !SNS_TOPIC_ARN.test(alarmTopicArn)) problems.push(`alarmTopicArn: not an SNS topic ARN, got "${alarmTopicArn}"`);
  if (stage === 'prod' && !alarmEmail && !alarmTopicArn) {
    problems.push('alarmEmail or alarmTopicArn: required in prod, so that an alarm reaches someone (-c alarmEmail=ops@… or -c alarmTopicArn=arn:aws:sns:…)');
  }

  let reconcilerConcurrency: number | undefined;
  if (ctx.reconcilerConcurrency) {
    reconcilerConcurrency = Number(ctx.reconcilerConcurrency);
    if (!Number.isInteger(reconcilerConcurrency) || reconcilerConcurrency < 1 || reconcilerConcurrency > 10) {
      problems.push(`reconcilerConcurrency: expected an integer 1..10, got "${ctx.reconcilerConcurrency}"`);
    }
  }

  const prices = { [ENV.STRIPE_PRICE_MONTHLY]: ctx.stripePriceMonthly || undefined, [ENV.STRIPE_PRICE_YEARLY]: ctx.stripePriceYearly || undefined };
  if (Boolean(prices[ENV.STRIPE_PRICE_MONTHLY]) !== Boolean(prices[ENV.STRIPE_PRICE_YEARLY])) {
    problems.push('stripePriceMonthly and stripePriceYearly: give both (checkout sells both plans) or neither');
  }

  const secretsRevision = ctx.secretsRevision || undefined;
  if (secretsRevision && !/^[\w.:-]{1,64}$/.test(secretsRevision))
    problems.push(`secretsRevision: letters, digits and . _ : - only (up to 64), got "${secretsRevision}"`);

  const network = NETWORK_OF_STAGE[stage] ?? NETWORK_OF_STAGE.dev;
  const metricsNamespace = `CommodityData/${stage}`;
  // Every function: STAGE, where metrics go, and the secrets revision (a new one restarts them all).
  const common = { [ENV.STAGE]: stage, [ENV.METRICS_NAMESPACE]: metricsNamespace, ...(secretsRevision ? { [ENV.SECRETS_REVISION]: secretsRevision } : {}) };
  const x402: Record<string, string | undefined> = {
    ...common,
    [ENV.X402_ENFORCE]: enforce ? '1' : '0',
    [ENV.X402_NETWORK]: network,
    [ENV.X402_PAY_TO]: ctx.payTo || undefined,
    [ENV.X402_FACILITATOR_URL]: ctx.facilitatorUrl || undefined,
    [ENV.X402_MAX_TIMEOUT_SECONDS]: ctx.maxTimeoutSeconds || undefined,
    // A custom domain is the address buyers sign for, unless publicBaseUrl says otherwise.
    [ENV.PUBLIC_BASE_URL]: ctx.publicBaseUrl || (domain ? `https://${domain.name}` : undefined),
    [ENV.X402_RPC_URL]: ctx.rpcUrl || undefined,
    [ENV.MCP_REGISTRY_NAME]: ctx.mcpRegistryName || undefined,
    [ENV.OPERATOR_CONTACT]: ctx.operatorContact || undefined,
  };
  // The functions parse exactly this at cold start: check it with the same schema now.
  // Without publicBaseUrl the API stack gives the functions the HTTP API's own endpoint.
  const asConfig = ConfigSchema.safeParse({
    [ENV.PUBLIC_BASE_URL]: 'https://api-endpoint.invalid',
    ...definedOnly(x402),
    ...definedOnly(prices),
    [ENV.OBSERVATIONS_TABLE]: 'synth-check',
    [ENV.CREDITS_TABLE]: 'synth-check',
  });
  if (!asConfig.success) {
    const contextKeyOf: Record<string, string> = {
      [ENV.X402_PAY_TO]: 'payTo',
      [ENV.X402_FACILITATOR_URL]: 'facilitatorUrl',
      [ENV.X402_MAX_TIMEOUT_SECONDS]: 'maxTimeoutSeconds',
      [ENV.PUBLIC_BASE_URL]: 'publicBaseUrl',
      [ENV.X402_RPC_URL]: 'rpcUrl',
      [ENV.STRIPE_PRICE_MONTHLY]: 'stripePriceMonthly',
      [ENV.STRIPE_PRICE_YEARLY]: 'stripePriceYearly',
      [ENV.MCP_REGISTRY_NAME]: 'mcpRegistryName',
      [ENV.OPERATOR_CONTACT]: 'operatorContact',
    };
    for (const i of asConfig.error.issues) {
      const key = String(i.path[0] ?? '');
      if (reported.has(key)) continue;
      problems.push(`${contextKeyOf[key] ?? key} (${key}): ${i.message}`);
    }
  }

  const days = ctx.logRetentionDays === undefined ? undefined : Number(ctx.logRetentionDays);
  const retentionOk = days === undefined || (Object.values(RetentionDays) as unknown[]).includes(days);
  if (!retentionOk) problems.push(`logRetentionDays: not a CloudWatch retention value (e.g. 7, 14, 30, 90, 365), got "${ctx.logRetentionDays}"`);

  if (problems.length) throw new DeployConfigError(problems);
  return {
    stage,
    stackPrefix: `commodity-data-${stage}`,
    apiEnvironment: Object.freeze(definedOnly(x402)),
    ingestEnvironment: Object.freeze(common),
    proEnvironment: Object.freeze(definedOnly(prices)),
    alarms: { ...(alarmEmail ? { email: alarmEmail } : {}), ...(alarmTopicArn ? { topicArn: alarmTopicArn } : {}) },
    ...(reconcilerConcurrency !== undefined ? { reconcilerConcurrency } : {}),
    metricsNamespace,
    logRetention: (days as RetentionDays | undefined) ?? (stage === 'prod' ? RetentionDays.THREE_MONTHS : RetentionDays.ONE_MONTH),
    ...(domain ? { domain } : {}),
    ...(rpcUrlSecretArn ? { rpcUrlSecretArn } : {}),
    alarmActions: quiet !== true,
    capacity: { ...STAGE_CAPACITY[stage], edge: edge ?? STAGE_CAPACITY[stage].edge },
  };
};

/**
 * EIP-55: a mixed-case address carries a checksum, and a wrong one means a typo that would send
 * every payment elsewhere (nothing normalises it silently here). Prod takes only the checksummed
 * form, so a typo cannot pass as an all-lowercase address.
 */
const payToChecksumProblems = (payTo: string | undefined, stage: Stage): string[] => {
  if (!payTo || !HEX_ADDRESS.test(payTo) || ZERO_ADDRESS.test(payTo)) return [];
  const hex = payTo.slice(2);
  const mixedCase = /[a-f]/.test(hex) && /[A-F]/.test(hex);
  const checksummed = getAddress(payTo);
  if (mixedCase && checksummed !== payTo) return [`payTo: the EIP-55 checksum of ${payTo} does not match (a typo?); copy the address from the wallet again`];
  if (!mixedCase && stage === 'prod' && checksummed !== payTo) {
    return [`payTo: prod needs the EIP-55 checksummed (mixed-case) form of the address, as the wallet shows it, so that a typo cannot pass`];
  }
  return [];
};

const definedOnly = (o: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => e[1] !== undefined));

export { readDeployConfig, DeployConfigError };
export type { DeployConfig, Stage };
