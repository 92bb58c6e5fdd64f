import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { DeployConfigError, readDeployConfig } from '../../infra/stacks/deploy-config';
import { ENV } from '../../shared/config/env-keys';

const PAY_TO = '0x2222222222222222222222222222222222222222';
const ctx = (values: Record<string, unknown>) => ({ tryGetContext: (k: string) => values[k] });

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
    const cfg = readDeployConfig(ctx({ stage: 'prod', payTo: PAY_TO, facilitatorUrl: 'https://facilitator.example.com' }));
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
    expect(problemsOf({ stage: 'prod', payTo: PAY_TO })).toEqual([expect.stringMatching(/^facilitatorUrl: required in prod/)]);
    expect(problemsOf({ stage: 'prod', payTo: PAY_TO, facilitatorUrl: 'https://x402.org/facilitator' })).toEqual([expect.stringMatching(/testnets only/)]);
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
