/**
 * The one Lambda shape of this service: Node 24 on ARM64, bundled by the locally installed esbuild
 * with the service's one bundle configuration (infra/bundle/options.ts), an explicit log group with
 * retention, X-Ray tracing, and binding helpers that grant a permission and set the matching env var
 * in one call, so a function never has a table name it may not use or a permission without the name.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, type CfnElement, DockerImage, Duration, type ILocalBundling, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, Code, Function as LambdaFunction, type FunctionProps, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { ENV } from '../../shared/config/env-keys';

/** The repository root (entries, package-lock.json and tsconfig.json live there). */
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Path of a Lambda entry point under functions/. */
const functionEntry = (name: string): string => join(PROJECT_ROOT, 'functions', `${name}.ts`);

const BUNDLE_CLI = fileURLToPath(new URL('../bundle/cli.ts', import.meta.url));

/**
 * Builds a function's asset with infra/bundle/options.ts, the configuration the bundle test measures
 * (CDK's NodejsFunction cannot take esbuild plugins, so this replaces its bundling). It runs the
 * asynchronous esbuild API in a child process because CDK asks synchronously. Never falls back to
 * Docker: a failed build fails the synth. Its `entry` is part of CDK's asset cache key, so the ten
 * ingestion functions share one build.
 */
class EsbuildBundling implements ILocalBundling {
  constructor(readonly entry: string) {}

  tryBundle(outputDir: string): boolean {
    const run = spawnSync(process.execPath, ['--import', 'tsx', BUNDLE_CLI, this.entry, outputDir], {
      cwd: PROJECT_ROOT,
      // stdout may be the synthesized template (`cdk synth`); esbuild's warnings go to stderr.
      stdio: ['ignore', process.stderr, 'inherit'],
    });
    if (run.status !== 0) throw new Error(`bundling ${this.entry} failed (${run.error?.message ?? `exit ${run.status}`})`);
    return true;
  }
}

/** Env keys that carry a table name. */
type TableEnvKey = typeof ENV.OBSERVATIONS_TABLE | typeof ENV.CREDITS_TABLE;
/**
 * What a function may do on a table, as the exact DynamoDB actions its code issues (no Scan, no
 * BatchWrite where nothing batches, no table administration):
 * - READ: routes reading observations (GetItem, Query);
 * - LEDGER: the payment lanes on the credit table (claims, debits, usage and sales entries, the
 *   pending index; TransactWriteItems is authorized per contained Put/Update/Delete/ConditionCheck);
 * - INGEST: ingestion writing observations in batches and its run status;
 * - CHANNELS: the batch-settlement job on the credit table (channels, sales, the job cursor).
 */
const TABLE_ACTIONS = Object.freeze({
  READ: ['dynamodb:GetItem', 'dynamodb:Query'],
  LEDGER: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'],
  INGEST: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem'],
  CHANNELS: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
} as const);
type TableAccess = keyof typeof TABLE_ACTIONS;

interface BindTableOptions {
  access: TableAccess;
  envKey: TableEnvKey;
  /** Secondary indexes it may also Query (the payment reconciler's watch index); the table alone by default. */
  indexes?: readonly string[];
}

interface ServiceFunctionProps extends Omit<FunctionProps, 'code' | 'handler' | 'runtime' | 'architecture' | 'logGroup' | 'logRetention' | 'tracing'> {
  /** Absolute path of the entry file (see functionEntry). */
  entry: string;
  /** Log retention (default one month). */
  logRetention?: RetentionDays;
}

/**
 * A Lambda function with the service's fixed runtime, bundling, logging and tracing.
 * @example
 * const fn = new ServiceFunction(this, 'PriceFunction', { entry: functionEntry('price') });
 * fn.bindTable(observations, { access: 'READ', envKey: ENV.OBSERVATIONS_TABLE });
 */
class ServiceFunction extends LambdaFunction {
  /** Table access granted through bindTable, by env key (read by tests and reviews). */
  readonly tableAccess: Partial<Record<TableEnvKey, TableAccess | 'NAME_ONLY'>> = {};

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const { entry, logRetention, environment, ...rest } = props;
    // An explicit log group (not the implicit /aws/lambda/<name>) so retention is ours and CloudFormation owns it.
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: logRetention ?? RetentionDays.ONE_MONTH });
    // Its own role instead of AWSLambdaBasicExecutionRole: it may write to its own log group only.
    const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions, so * is their only resource',
    });
    super(scope, id, {
      role,
      memorySize: 1024,
      timeout: Duration.seconds(28),
      ...rest,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      logGroup,
      handler: 'index.handler',
      code: Code.fromAsset(PROJECT_ROOT, {
        // Hash of the bundle, not of the project: an unchanged bundle is not redeployed.
        assetHashType: AssetHashType.OUTPUT,
        // `image` is required by the type and never used: the local build answers or throws.
        bundling: { image: DockerImage.fromRegistry('unused-local-bundling'), local: new EsbuildBundling(entry) },
      }),
      environment: {
        // Stack traces point at the TypeScript sources instead of the minified bundle.
        NODE_OPTIONS: '--enable-source-maps',
        ...environment,
      },
    });
  }

  /**
   * Grants access to a table and sets its name under `envKey`, together.
   * @returns this, for chaining
   */
  bindTable(table: ITable, opts: BindTableOptions): this {
    // Not table.grant: it adds every index of an indexed table, and only the reconciler reads one.
    this.addToRolePolicy(new PolicyStatement({ actions: [...TABLE_ACTIONS[opts.access]], resources: [table.tableArn] }));
    if (opts.indexes?.length) {
      this.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: opts.indexes.map((i) => `${table.tableArn}/index/${i}`) }));
    }
    this.addEnvironment(opts.envKey, table.tableName);
    this.tableAccess[opts.envKey] = opts.access;
    return this;
  }

  /**
   * Sets a table's name without any permission. `loadConfig` requires both table names in every
   * function; one that never uses a table gets only its name, so an accidental access is denied.
   */
  bindTableNameOnly(table: ITable, envKey: TableEnvKey): this {
    this.addEnvironment(envKey, table.tableName);
    this.tableAccess[envKey] ??= 'NAME_ONLY';
    return this;
  }

  /**
   * Grants read access to a secret and sets its ARN (never its value) under `envKey`.
   * @returns this, for chaining
   */
  bindSecret(
    secret: ISecret,
    envKey:
      | typeof ENV.SOURCE_KEYS_SECRET_ARN
      | typeof ENV.STRIPE_SECRET_ARN
      | typeof ENV.X402_FACILITATOR_SECRET_ARN
      | typeof ENV.X402_RPC_SECRET_ARN
      | typeof ENV.ETAG_SECRET_ARN
      | typeof ENV.RECEIPT_SIGNING_SECRET_ARN,
  ): this {
    secret.grantRead(this);
    this.addEnvironment(envKey, secret.secretArn);
    return this;
  }
}

/**
 * The role EventBridge Scheduler assumes to invoke one function. CDK's grantInvoke also covers the
 * function's versions and aliases (`<arn>:*`), which cdk-nag reports; that wildcard is acknowledged
 * here, next to the role, for exactly this function.
 */
const schedulerRoleFor = (scope: Construct, id: string, fn: ServiceFunction): Role => {
  const role = new Role(scope, id, { assumedBy: new ServicePrincipal('scheduler.amazonaws.com') });
  const logicalId = Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnElement);
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>:*]`,
    reason: 'lambda:InvokeFunction on this one function and its versions/aliases (CDK grantInvoke); no other function',
  });
  return role;
};

/** True when every named entry exists (synth fails early with a clear list otherwise). */
const missingEntries = (names: readonly string[]): string[] => names.filter((n) => !existsSync(functionEntry(n)));

export { ServiceFunction, functionEntry, missingEntries, schedulerRoleFor };
export type { ServiceFunctionProps, BindTableOptions, TableAccess, TableEnvKey };
