/**
 * The CDK app (cdk.json: `npx tsx infra/app.ts`). One stage per synth, chosen with context:
 *
 *   npx cdk deploy --all -c stage=prod -c payTo=0x… -c facilitatorUrl=https://…
 *
 * Stacks are environment-agnostic: the account and region are the CLI profile's.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readDeployConfig } from './stacks/deploy-config';
import { addServiceStacks, APP_CONTEXT } from './stacks/service-stacks';

const app = new App({ postCliContext: { ...APP_CONTEXT } });
addServiceStacks(app, readDeployConfig(app.node));
// cdk-nag's AwsSolutions pack: a finding that is not acknowledged next to its resource fails the synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
