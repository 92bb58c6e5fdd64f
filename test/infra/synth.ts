/**
 * Synthesizes the service stacks in-process for assertion tests: bundling skipped (context
 * aws:cdk:bundling-stacks = []), the built-in CloudFormation validation off (it costs seconds per
 * synth; `cdk synth` runs it), and a stub entry for every function, so the tests depend neither on
 * esbuild nor on which functions/<family>.ts exist yet.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, type CfnResource, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { readDeployConfig } from '../../infra/stacks/deploy-config';
import { addServiceStacks, APP_CONTEXT, type ServiceStacks } from '../../infra/stacks/service-stacks';

const STUB_ENTRY = fileURLToPath(new URL('./stub-entry.ts', import.meta.url));
const PAY_TO = '0x1111111111111111111111111111111111111111';

interface Synthesized extends ServiceStacks {
  templates: { data: Template; api: Template; ingest: Template };
}

/** Builds the app for a deployment context and returns the stacks with their templates. */
const synthService = (context: Record<string, string> = {}): Synthesized => {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-test-'));
  try {
    const app = new App({
      outdir,
      context: { 'aws:cdk:bundling-stacks': [], ...context },
      postCliContext: { ...APP_CONTEXT },
      builtinCloudFormationValidation: false,
    });
    const stacks = addServiceStacks(app, readDeployConfig(app.node), { entry: () => STUB_ENTRY });
    return {
      ...stacks,
      templates: { data: Template.fromStack(stacks.data), api: Template.fromStack(stacks.api), ingest: Template.fromStack(stacks.ingest) },
    };
  } finally {
    // The templates are read into memory above; the cloud assembly on disk is not used again.
    rmSync(outdir, { recursive: true, force: true });
  }
};

/** Logical id of a construct's CloudFormation resource in its stack. */
const logicalId = (stack: Stack, c: IConstruct): string => stack.getLogicalId(c.node.defaultChild as CfnResource);

/**
 * Whether a template value points at a resource of the producing stack, directly (Ref / GetAtt)
 * or through a cross-stack export (Fn::ImportValue of an output of `producer`).
 */
const refersTo = (value: unknown, id: string, producer?: Template): boolean => {
  if (Array.isArray(value)) return value.some((v) => refersTo(v, id, producer));
  if (!value || typeof value !== 'object') return false;
  const o = value as Record<string, unknown>;
  if (o.Ref === id) return true;
  if (Array.isArray(o['Fn::GetAtt']) && o['Fn::GetAtt'][0] === id) return true;
  if (typeof o['Fn::ImportValue'] === 'string' && producer) {
    const outputs = producer.toJSON().Outputs ?? {};
    return Object.values(outputs).some((out: any) => out.Export?.Name === o['Fn::ImportValue'] && refersTo(out.Value, id));
  }
  return Object.values(o).some((v) => refersTo(v, id, producer));
};

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

/** Every IAM statement attached to a function's execution role in its template. */
const roleStatements = (template: Template, functionId: string): Statement[] => {
  const fn = template.toJSON().Resources[functionId];
  const roleId: string = fn.Properties.Role['Fn::GetAtt'][0];
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p: any) => p.Properties.Roles.some((r: any) => r.Ref === roleId))
    .flatMap((p: any) => p.Properties.PolicyDocument.Statement as Statement[]);
};

/** Actions a function may perform on the resource `id` (of `producer`, when cross-stack). */
const actionsOn = (template: Template, functionId: string, id: string, producer?: Template): string[] =>
  roleStatements(template, functionId)
    .filter((s) => s.Effect === 'Allow' && refersTo(s.Resource, id, producer))
    .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));

export { synthService, logicalId, refersTo, actionsOn, PAY_TO };
export type { Synthesized, Statement };
