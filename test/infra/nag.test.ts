/**
 * cdk-nag's AwsSolutions pack over the whole app (every stack, staging and prod): zero findings
 * that are not acknowledged next to their resource with a reason.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { readDeployConfig } from '../../infra/stacks/deploy-config';
import { addServiceStacks, APP_CONTEXT } from '../../infra/stacks/service-stacks';
import { PAY_TO } from './synth';

const STUB_ENTRY = fileURLToPath(new URL('./stub-entry.ts', import.meta.url));

/** Synthesizes the app with the pack; returns every unacknowledged finding as "rule at path". */
const findings = (context: Record<string, string>, extra?: (app: App) => void): string[] => {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-nag-'));
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], ...context }, postCliContext: { ...APP_CONTEXT } });
  addServiceStacks(app, readDeployConfig(app.node), { entry: () => STUB_ENTRY });
  extra?.(app);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const report = join(outdir, 'validation-report.json');
  try {
    try {
      app.synth();
    } catch (err) {
      // A failed validation throws after writing its report; anything else is a real error.
      if (!existsSync(report)) throw err;
    }
    if (!existsSync(report)) return [];
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      pluginReports: Array<{ violations: Array<{ ruleName: string; violatingConstructs: Array<{ constructPath: string }> }> }>;
    };
    return json.pluginReports.flatMap((r) => r.violations.flatMap((v) => v.violatingConstructs.map((c) => `${v.ruleName} at ${c.constructPath}`)));
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
};

describe('cdk-nag AwsSolutionsChecks', () => {
  it.each([
    ['staging', { stage: 'staging', payTo: PAY_TO }],
    [
      'prod',
      {
        stage: 'prod',
        payTo: PAY_TO,
        facilitatorUrl: 'https://facilitator.example.com/x402',
        alarmEmail: 'ops@example.com',
        rpcUrl: 'https://base.rpc.example.com',
      },
    ],
    [
      'prod with a custom domain, the pager held and the RPC URL in a secret',
      {
        stage: 'prod',
        payTo: PAY_TO,
        facilitatorUrl: 'https://facilitator.example.com/x402',
        alarmEmail: 'ops@example.com',
        rpcUrlSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:commodity-data-prod/rpc-url-AbC123',
        domainName: 'api.example.com',
        certificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/0b7c2f4e-1111-2222-3333-444455556666',
        quietAlarms: '1',
      },
    ],
  ])(
    '%s: no unacknowledged finding',
    (_name, context) => {
      expect(findings(context)).toEqual([]);
    },
    120_000,
  );

  it('is not vacuous: an unacknowledged secret in the app is reported', () => {
    const found = findings({ stage: 'staging', payTo: PAY_TO }, (app) => {
      new Secret(new Stack(app, 'NagProbe'), 'Unrotated');
    });
    expect(found).toEqual(['AwsSolutions-SMG4 at NagProbe/Unrotated/Resource']);
  }, 120_000);
});
