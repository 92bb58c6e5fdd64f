/**
 * The whole service as three stacks of one stage: data (tables, secret), api (HTTP API and the
 * family functions, MCP included), ingest (source functions and schedules). Three, not one, so the
 * stateless stacks can be destroyed and redeployed without touching the retained data; four
 * (a separate MCP stack) would only add cross-stack references for one more function of the API.
 */
import { Aspects, type App, type IAspect } from 'aws-cdk-lib';
import { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { IConstruct } from 'constructs';
import { FAMILIES } from '../../shared/routes/table';
import { missingEntries } from '../constructs/service-function';
import { ApiStack } from './api-stack';
import { DataStack } from './data-stack';
import type { DeployConfig } from './deploy-config';
import { IngestStack } from './ingest-stack';

interface ServiceStacks {
  data: DataStack;
  api: ApiStack;
  ingest: IngestStack;
}

interface ServiceStacksOptions {
  /** Entry file of a function name (tests pass a stub; bundling is skipped there). */
  entry?: (name: string) => string;
}

/**
 * Context the app fixes (the CLI cannot override it). Cross-stack references stay "strong"
 * (Fn::ImportValue): CloudFormation then refuses to delete the data stack while the API or
 * ingestion stack still uses its tables, which is the protection we want.
 */
const APP_CONTEXT: Readonly<Record<string, string>> = Object.freeze({
  '@aws-cdk/core:defaultCrossStackReferences': 'strong',
});

/** Entry points the deployed app bundles: one per family, ingestion, the x402 reconciler and batch settler, and the freshness check. */
const ENTRY_NAMES: readonly string[] = [
  ...FAMILIES,
  'ingest',
  'reconcile-payments',
  'settle-batches',
  'settle-deferred',
  'source-freshness',
  'watch-fan-out',
  'watch-deliver',
];

/**
 * Adds the stacks of one stage to an app.
 * @throws Error listing every missing functions/<name>.ts (real entries only)
 * @example addServiceStacks(app, readDeployConfig(app.node));
 */
const addServiceStacks = (app: App, config: DeployConfig, opts: ServiceStacksOptions = {}): ServiceStacks => {
  if (!opts.entry) {
    const missing = missingEntries(ENTRY_NAMES);
    if (missing.length) throw new Error(`missing Lambda entry points: ${missing.map((n) => `functions/${n}.ts`).join(', ')}`);
  }
  const p = config.stackPrefix;
  const description = (what: string) => `Commodity data service (${config.stage}): ${what}`;
  const data = new DataStack(app, `${p}-data`, {
    config,
    description: description('tables, secrets (source keys, Stripe, facilitator) and the alarm topic'),
    terminationProtection: config.stage === 'prod',
  });
  const api = new ApiStack(app, `${p}-api`, {
    config,
    description: description('HTTP API and route-family functions'),
    observations: data.observations,
    credits: data.credits,
    stripe: data.stripe,
    facilitator: data.facilitator,
    receiptSigning: data.receiptSigning,
    alarmTopic: data.alarmTopic,
    etagSecret: data.etagSecret,
    entry: opts.entry,
  });
  const ingest = new IngestStack(app, `${p}-ingest`, {
    config,
    description: description('ingestion functions and release schedules'),
    observations: data.observations,
    credits: data.credits,
    sourceKeys: data.sourceKeys,
    alarmTopic: data.alarmTopic,
    entry: opts.entry,
  });
  if (!config.alarmActions) for (const stack of [data, api, ingest]) Aspects.of(stack).add(new HoldAlarmActions());
  return { data, api, ingest };
};

/**
 * The pager held (-c quietAlarms=1): every alarm of the stage, whoever added it, is created with its
 * actions disabled. It still evaluates and shows its state; the next deploy without the setting
 * turns the notifications on (an alarm already in ALARM then notifies at its next change).
 */
class HoldAlarmActions implements IAspect {
  visit(node: IConstruct): void {
    if (node instanceof CfnAlarm) node.actionsEnabled = false;
  }
}

export { addServiceStacks, ENTRY_NAMES, APP_CONTEXT };
export type { ServiceStacks, ServiceStacksOptions };
