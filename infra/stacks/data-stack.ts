/**
 * The stateful part: both DynamoDB tables (key schema from shared/store/tables.ts) and the secret that
 * holds the source API keys. Everything here is retained when the stack goes, and the tables are
 * deletion-protected, so the API and ingestion stacks can be torn down and redeployed freely.
 */
import { CfnOutput, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Secret, type ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { SOURCE_KEY_NAMES } from '../../shared/config/env-keys';
import { CREDITS_TABLE, OBSERVATIONS_TABLE, type KeyAttr, type TableDef } from '../../shared/store/tables';
import type { DeployConfig } from './deploy-config';

interface DataStackProps extends StackProps {
  config: DeployConfig;
}

const attr = (k: KeyAttr) => ({ name: k.name, type: k.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER });

/** A table from its shared definition: on demand, PITR, deletion protection, retained. */
const tableFromDef = (scope: Construct, def: TableDef): Table =>
  new Table(scope, def.id, {
    partitionKey: attr(def.partitionKey),
    sortKey: attr(def.sortKey),
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
    ...(def.timeToLiveAttribute ? { timeToLiveAttribute: def.timeToLiveAttribute } : {}),
  });

/**
 * Tables and the source-keys secret.
 * @example const data = new DataStack(app, 'commodity-data-prod-data', { config });
 */
class DataStack extends Stack {
  readonly observations: ITable;
  readonly credits: ITable;
  /** JSON object of source API keys (names: SOURCE_KEY_NAMES); the value is set by an operator, not by CDK. */
  readonly sourceKeys: ISecret;
  /** Stripe keys of the Pro checkout as JSON {STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET}; "{}" until an operator sets it. */
  readonly stripe: ISecret;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    this.observations = tableFromDef(this, OBSERVATIONS_TABLE);
    this.credits = tableFromDef(this, CREDITS_TABLE);

    // Created holding "{}" (no keys: live runs of keyed sources are skipped, not failed). CloudFormation
    // only writes the value on creation, so a value put later with the CLI survives every deploy.
    const sourceKeys = new Secret(this, 'SourceKeys', {
      secretName: `${props.config.stackPrefix}/source-keys`,
      description: `Source API keys as JSON; allowed names: ${SOURCE_KEY_NAMES.join(', ')}`,
      secretObjectValue: {},
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.sourceKeys = sourceKeys;
    this.stripe = new Secret(this, 'Stripe', {
      secretName: `${props.config.stackPrefix}/stripe`,
      description: 'Pro checkout: JSON {"STRIPE_SECRET_KEY": "sk_…", "STRIPE_WEBHOOK_SECRET": "whsec_…"}; {} keeps checkout off',
      secretObjectValue: {},
      removalPolicy: RemovalPolicy.RETAIN,
    });

    for (const secret of [sourceKeys, this.stripe]) {
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason: "third-party API keys (EIA, NASS, FAS, Stripe) issued in the publishers' consoles: they cannot be rotated by a Lambda; operators replace them",
      });
    }

    new CfnOutput(this, 'ObservationsTableName', { value: this.observations.tableName });
    new CfnOutput(this, 'CreditsTableName', { value: this.credits.tableName });
    new CfnOutput(this, 'SourceKeysSecretName', { value: `${props.config.stackPrefix}/source-keys` });
    new CfnOutput(this, 'StripeSecretName', { value: `${props.config.stackPrefix}/stripe` });
  }
}

export { DataStack };
export type { DataStackProps };
