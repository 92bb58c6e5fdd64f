import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { DeployConfigError, readDeployConfig } from '../../infra/stacks/deploy-config';
import { ENV } from '../../shared/config/env-keys';

const PAY_TO = '0x2222222222222222222222222222222222222222';
/** A prod context that passes: a mainnet facilitator over https and somewhere for alarms to go. */
const PROD = {
  stage: 'prod',
  payTo: PAY_TO,
  facilitatorUrl: 'https://facilitator.example.com',
  alarmEmail: 'ops@example.com',
  rpcUrl: 'https://base.rpc.example.com/v2/key',
};
const ctx = (values: Record<string, unknown>) => ({
  tryGetContext: (k: string) => values[k],
  getAllContext: () => Object.fromEntries(Object.entries(values).filter((e) => e[1] !== undefined)),
});

/** The problems of a rejected context (fails the test when it is accepted). */
const problemsOf = (values: Record<string, unknown>): string[] => {
  try {
    readDeployConfig(ctx(values));
  } catch (err) {
    expect(err).toBeInstanceOf(DeployConfigError);
    return (err as DeployConfigError).problems;
  }
  throw new Error(`context was accepted: ${JSON.stringify(values)}`);
};

describe('readDeployConfig', () => {
  it('defaults to a dev stage in demo mode on Base Sepolia, with no pay-to address needed', () => {
    const cfg = readDeployConfig(ctx({}));
    expect(cfg.stage).toBe('dev');
    expect(cfg.stackPrefix).toBe('commodity-data-dev');
    expect(cfg.apiEnvironment).toEqual({
      [ENV.STAGE]: 'dev',
      [ENV.METRICS_NAMESPACE]: 'CommodityData/dev',
      [ENV.X402_ENFORCE]: '0',
      [ENV.X402_NETWORK]: 'eip155:84532',
    });
    expect(cfg.ingestEnvironment).toEqual({ [ENV.STAGE]: 'dev', [ENV.METRICS_NAMESPACE]: 'CommodityData/dev' });
    expect(cfg.logRetention).toBe(RetentionDays.ONE_MONTH);
  });

  it('enforces payment in staging on Base Sepolia and passes the optional settings through', () => {
    const cfg = readDeployConfig(
      ctx({ stage: 'staging', payTo: PAY_TO, maxTimeoutSeconds: 120, publicBaseUrl: 'https://api.example.com', logRetentionDays: '14' }),
    );
    expect(cfg.apiEnvironment).toEqual({
      [ENV.STAGE]: 'staging',
      [ENV.METRICS_NAMESPACE]: 'CommodityData/staging',
      [ENV.X402_ENFORCE]: '1',
      [ENV.X402_NETWORK]: 'eip155:84532',
      [ENV.X402_PAY_TO]: PAY_TO,
      [ENV.X402_MAX_TIMEOUT_SECONDS]: '120',
      [ENV.PUBLIC_BASE_URL]: 'https://api.example.com',
    });
    expect(cfg.logRetention).toBe(RetentionDays.TWO_WEEKS);
  });

  it("passes the MCP Registry name and the operator's contact to the functions, checked as they check them", () => {
    const cfg = readDeployConfig(ctx({ mcpRegistryName: 'com.example/commodity-data', operatorContact: 'https://example.com/contact' }));
    expect(cfg.apiEnvironment).toMatchObject({ [ENV.MCP_REGISTRY_NAME]: 'com.example/commodity-data', [ENV.OPERATOR_CONTACT]: 'https://example.com/contact' });
    expect(problemsOf({ mcpRegistryName: 'api.example.com', operatorContact: 'call us' })).toEqual([
      expect.stringMatching(/^mcpRegistryName \(MCP_REGISTRY_NAME\): expected namespace\/name/),
      expect.stringMatching(/^operatorContact \(OPERATOR_CONTACT\): expected an email address or an https URL/),
    ]);
  });

  it('uses Base mainnet in prod and keeps logs three months by default', () => {
    const cfg = readDeployConfig(ctx(PROD));
    expect(cfg.apiEnvironment[ENV.X402_NETWORK]).toBe('eip155:8453');
    expect(cfg.apiEnvironment[ENV.X402_ENFORCE]).toBe('1');
    expect(cfg.logRetention).toBe(RetentionDays.THREE_MONTHS);
  });

  it('lets a dev stack opt into enforcement, and then needs a pay-to address', () => {
    expect(readDeployConfig(ctx({ x402Enforce: '1', payTo: PAY_TO })).apiEnvironment[ENV.X402_ENFORCE]).toBe('1');
    expect(problemsOf({ x402Enforce: 'true' })).toEqual([expect.stringMatching(/^payTo: required/)]);
  });

  it('refuses demo mode outside dev', () => {
    expect(problemsOf({ stage: 'staging', payTo: PAY_TO, x402Enforce: '0' })).toEqual([expect.stringMatching(/only in the dev stage/)]);
  });

  it('refuses a prod stage without a mainnet facilitator', () => {
    expect(problemsOf({ ...PROD, facilitatorUrl: undefined })).toEqual([expect.stringMatching(/^facilitatorUrl: required in prod/)]);
    expect(problemsOf({ ...PROD, facilitatorUrl: 'https://x402.org/facilitator' })).toEqual([expect.stringMatching(/testnets only/)]);
  });

  it('refuses every form of a testnet-only facilitator in prod, saying what to set', () => {
    for (const url of [
      'https://x402.org',
      'https://x402.org/',
      'https://www.x402.org/facilitator',
      'https://x402.org?x=1',
      'https://facilitator.base-sepolia.example.com',
    ]) {
      expect(problemsOf({ ...PROD, facilitatorUrl: url }), url).toEqual([expect.stringMatching(/testnets only; prod .* -c facilitatorUrl=https:\/\/api\.cdp/)]);
    }
    // a host that merely contains the name is another service
    expect(readDeployConfig(ctx({ ...PROD, facilitatorUrl: 'https://x402.org.example.com/f' })).apiEnvironment[ENV.X402_FACILITATOR_URL]).toBe(
      'https://x402.org.example.com/f',
    );
  });

  it("requires an RPC URL in prod, of the stage's own chain", () => {
    expect(problemsOf({ ...PROD, rpcUrl: undefined })).toEqual([
      expect.stringMatching(/^rpcUrlSecretArn or rpcUrl: required in prod: .*-c rpcUrlSecretArn=arn:aws:secretsmanager:.*-c rpcUrl=https:/),
    ]);
    for (const url of ['https://sepolia.base.org', 'https://base-sepolia.g.alchemy.com/v2/k', 'https://base-testnet.example.com']) {
      expect(problemsOf({ ...PROD, rpcUrl: url }), url).toEqual([
        expect.stringMatching(/^rpcUrl: .* names a test network; prod settles on Base mainnet \(chain 8453\)/),
      ]);
    }
    expect(problemsOf({ stage: 'staging', payTo: PAY_TO, rpcUrl: 'https://mainnet.base.org' })).toEqual([
      expect.stringMatching(/^rpcUrl: .* names a mainnet; staging settles on Base Sepolia \(chain 84532\)/),
    ]);
    expect(readDeployConfig(ctx(PROD)).apiEnvironment[ENV.X402_RPC_URL]).toBe(PROD.rpcUrl);
  });

  it('refuses the USDC token contract as the pay-to address (payments to it are lost)', () => {
    // Circle's USDC on Base and on Base Sepolia (https://developers.circle.com/stablecoins/usdc-contract-addresses)
    expect(problemsOf({ ...PROD, payTo: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' })).toEqual([
      expect.stringMatching(/^payTo: .* is the USDC token contract \(eip155:8453\)/),
    ]);
    expect(problemsOf({ stage: 'staging', payTo: '0x036cbd53842c5426634e7929541ec2318f3dcf7e' })).toEqual([
      expect.stringMatching(/^payTo: .* is the USDC token contract \(eip155:84532\)/),
    ]);
  });

  it('refuses an http publicBaseUrl in prod (buyers sign for URLs under it)', () => {
    expect(problemsOf({ ...PROD, publicBaseUrl: 'http://api.example.com' })).toEqual(['publicBaseUrl: prod needs an https URL, got "http://api.example.com"']);
  });

  it("refuses a context key it does not know, naming the nearest, and leaves CDK's own keys alone", () => {
    expect(problemsOf({ ...PROD, facilitatorURL: 'https://f.example.com' })).toEqual([
      expect.stringMatching(/^facilitatorURL: not a setting of this app \(did you mean facilitatorUrl\?\)/),
    ]);
    expect(problemsOf({ ...PROD, paytoo: PAY_TO })).toEqual([expect.stringMatching(/^paytoo: not a setting of this app; the settings are stage, payTo/)]);
    const cdkKeys = {
      '@aws-cdk/core:newStyleStackSynthesis': true,
      'aws:cdk:bundling-stacks': [],
      'cli-telemetry': false,
      'availability-zones:account=1:region=x': [],
    };
    expect(readDeployConfig(ctx({ ...PROD, ...cdkKeys })).stage).toBe('prod');
  });

  it('takes a custom domain with its certificate (both or neither) and makes it the public base URL', () => {
    const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/0b7c2f4e-1111-2222-3333-444455556666';
    const cfg = readDeployConfig(ctx({ ...PROD, domainName: 'API.example.com', certificateArn }));
    expect(cfg.domain).toEqual({ name: 'api.example.com', certificateArn });
    expect(cfg.apiEnvironment[ENV.PUBLIC_BASE_URL]).toBe('https://api.example.com');
    expect(readDeployConfig(ctx(PROD)).domain).toBeUndefined();
    expect(problemsOf({ ...PROD, domainName: 'api.example.com' })).toEqual([expect.stringMatching(/^domainName and certificateArn: give both/)]);
    expect(problemsOf({ ...PROD, domainName: 'api example', certificateArn: 'arn:aws:iam::123456789012:server-certificate/x' })).toEqual([
      'domainName: not a host name, got "api example"',
      expect.stringMatching(/^certificateArn: not an ACM certificate ARN/),
    ]);
    expect(problemsOf({ ...PROD, domainName: 'api.example.com', certificateArn, publicBaseUrl: 'https://other.example.com' })).toEqual([
      expect.stringMatching(/^publicBaseUrl: https:\/\/other\.example\.com is not on domainName api\.example\.com/),
    ]);
  });

  it('refuses the MCP Registry anonymous namespace in prod', () => {
    expect(problemsOf({ ...PROD, mcpRegistryName: 'io.modelcontextprotocol.anonymous/commodity-data' })).toEqual([
      expect.stringMatching(/^mcpRegistryName: .* anonymous namespace, which the public MCP Registry refuses: use one you own/),
    ]);
    expect(readDeployConfig(ctx({ ...PROD, mcpRegistryName: 'io.github.alice/commodity-data' })).apiEnvironment[ENV.MCP_REGISTRY_NAME]).toBe(
      'io.github.alice/commodity-data',
    );
  });

  it('holds the pager when asked (-c quietAlarms=1), and only with 1 or 0', () => {
    expect(readDeployConfig(ctx(PROD)).alarmActions).toBe(true);
    expect(readDeployConfig(ctx({ ...PROD, quietAlarms: '1' })).alarmActions).toBe(false);
    expect(readDeployConfig(ctx({ ...PROD, quietAlarms: '0' })).alarmActions).toBe(true);
    expect(problemsOf({ ...PROD, quietAlarms: 'soon' })).toEqual(['quietAlarms: expected 1 or 0, got "soon"']);
  });

  it('refuses plain http for the facilitator and the RPC in prod (payments, credentials and settlement verdicts travel on them)', () => {
    expect(problemsOf({ ...PROD, facilitatorUrl: 'http://facilitator.example.com' })).toEqual([
      'facilitatorUrl: prod needs an https URL, got "http://facilitator.example.com"',
    ]);
    expect(problemsOf({ ...PROD, rpcUrl: 'http://rpc.example.com' })).toEqual(['rpcUrl: prod needs an https URL, got "http://rpc.example.com"']);
    // staging may use a plain-http facilitator or RPC (a self-hosted one on a private network)
    expect(readDeployConfig(ctx({ stage: 'staging', payTo: PAY_TO, facilitatorUrl: 'http://10.0.0.5:4021' })).apiEnvironment[ENV.X402_FACILITATOR_URL]).toBe(
      'http://10.0.0.5:4021',
    );
  });

  it('refuses a pay-to address whose EIP-55 checksum is wrong, and in prod one written without a checksum', () => {
    // Hardhat's account 1, as wallets show it, and with one letter's case flipped (a typo in a checksummed address)
    const good = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const typo = '0x70997970C51812dc3A010C7d01b50e0d17dc79c8';
    for (const stage of ['staging', 'prod']) {
      expect(problemsOf({ ...PROD, stage, payTo: typo })).toEqual([expect.stringMatching(/^payTo: the EIP-55 checksum of 0x7099.* does not match/)]);
      expect(readDeployConfig(ctx({ ...PROD, stage, payTo: good })).apiEnvironment[ENV.X402_PAY_TO]).toBe(good);
    }
    expect(problemsOf({ ...PROD, payTo: good.toLowerCase() })).toEqual([expect.stringMatching(/^payTo: prod needs the EIP-55 checksummed/)]);
    expect(readDeployConfig(ctx({ stage: 'staging', payTo: good.toLowerCase() })).apiEnvironment[ENV.X402_PAY_TO]).toBe(good.toLowerCase());
  });

  it('needs somewhere for alarms to go in prod (an email or an SNS topic), and checks both', () => {
    expect(problemsOf({ ...PROD, alarmEmail: undefined })).toEqual([expect.stringMatching(/^alarmEmail or alarmTopicArn: required in prod/)]);
    const arn = 'arn:aws:sns:us-east-1:123456789012:oncall';
    expect(readDeployConfig(ctx({ ...PROD, alarmEmail: undefined, alarmTopicArn: arn })).alarms).toEqual({ topicArn: arn });
    expect(readDeployConfig(ctx(PROD)).alarms).toEqual({ email: 'ops@example.com' });
    expect(readDeployConfig(ctx({})).alarms).toEqual({});
    expect(problemsOf({ alarmEmail: 'ops at example', alarmTopicArn: 'arn:aws:sqs:us-east-1:123456789012:q' })).toEqual([
      'alarmEmail: not an email address, got "ops at example"',
      'alarmTopicArn: not an SNS topic ARN, got "arn:aws:sqs:us-east-1:123456789012:q"',
    ]);
  });

  it('takes the Stripe prices of both plans for the Pro function, or neither', () => {
    const cfg = readDeployConfig(ctx({ ...PROD, stripePriceMonthly: 'price_1Month', stripePriceYearly: 'price_1Year' }));
    expect(cfg.proEnvironment).toEqual({ [ENV.STRIPE_PRICE_MONTHLY]: 'price_1Month', [ENV.STRIPE_PRICE_YEARLY]: 'price_1Year' });
    expect(cfg.apiEnvironment).not.toHaveProperty(ENV.STRIPE_PRICE_MONTHLY);
    expect(readDeployConfig(ctx({})).proEnvironment).toEqual({});
    expect(problemsOf({ stripePriceMonthly: 'price_1Month' })).toEqual([expect.stringMatching(/^stripePriceMonthly and stripePriceYearly: give both/)]);
    expect(problemsOf({ stripePriceMonthly: 'prod_1Month', stripePriceYearly: 'price_1Year' })).toEqual([
      expect.stringMatching(/^stripePriceMonthly \(STRIPE_PRICE_MONTHLY\)/),
    ]);
  });

  it('puts a secrets revision (-c secretsRevision) on every function, so a new one restarts them after a rotation', () => {
    const cfg = readDeployConfig(ctx({ ...PROD, secretsRevision: '2026-11-26.1' }));
    expect(cfg.apiEnvironment[ENV.SECRETS_REVISION]).toBe('2026-11-26.1');
    expect(cfg.ingestEnvironment[ENV.SECRETS_REVISION]).toBe('2026-11-26.1');
    expect(readDeployConfig(ctx(PROD)).apiEnvironment).not.toHaveProperty(ENV.SECRETS_REVISION);
    expect(problemsOf({ secretsRevision: 'two words' })).toEqual([expect.stringMatching(/^secretsRevision: letters, digits/)]);
  });

  it('reserves concurrency for the reconciler only when asked', () => {
    expect(readDeployConfig(ctx(PROD)).reconcilerConcurrency).toBeUndefined();
    expect(readDeployConfig(ctx({ ...PROD, reconcilerConcurrency: '1' })).reconcilerConcurrency).toBe(1);
    expect(problemsOf({ reconcilerConcurrency: '0' })).toEqual(['reconcilerConcurrency: expected an integer 1..10, got "0"']);
  });

  it('lists every problem at once, with the same checks the functions run at cold start', () => {
    const problems = problemsOf({
      stage: 'staging',
      payTo: '0x1234',
      facilitatorUrl: 'not a url',
      maxTimeoutSeconds: '5',
      logRetentionDays: '8',
    });
    expect(problems).toEqual([
      expect.stringMatching(/^payTo \(X402_PAY_TO\): expected a 0x-prefixed 20-byte address/),
      expect.stringMatching(/^facilitatorUrl \(X402_FACILITATOR_URL\)/),
      expect.stringMatching(/^maxTimeoutSeconds \(X402_MAX_TIMEOUT_SECONDS\)/),
      expect.stringMatching(/^logRetentionDays: not a CloudWatch retention value/),
    ]);
  });

  it('rejects an unknown stage, a garbled switch and the zero address', () => {
    expect(problemsOf({ stage: 'production' })).toEqual(expect.arrayContaining([expect.stringMatching(/^stage: expected one of dev, staging, prod/)]));
    expect(problemsOf({ x402Enforce: 'maybe' })).toEqual([expect.stringMatching(/^x402Enforce: expected 1 or 0/)]);
    expect(problemsOf({ stage: 'staging', payTo: '0x0000000000000000000000000000000000000000' })).toEqual([expect.stringMatching(/zero address/)]);
  });
});
