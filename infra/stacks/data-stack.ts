/**
 * The stateful part: both DynamoDB tables (key schema from shared/store/tables.ts), the secrets
 * (one per source API key, one for Stripe, one for the facilitator's credentials) and the alarm
 * topic. Everything here is retained when the stack goes, and the tables are deletion-protected, so
 * the API and ingestion stacks can be torn down and redeployed freely (an email subscription to the
 * topic, once confirmed, survives them too).
 */
import { CfnOutput, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Secret, type ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { SOURCES } from '../../shared/sources/registry';
import { CREDITS_TABLE, OBSERVATIONS_TABLE, type KeyAttr, type TableDef } from '../../shared/store/tables';
import type { DeployConfig } from './deploy-config';

interface DataStackProps extends StackProps {
  config: DeployConfig;
}

const attr = (k: KeyAttr) => ({ name: k.name, type: k.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER });

/** A table from its shared definition: on demand, PITR, deletion protection, retained. */
const tableFromDef = (scope: Construct, def: TableDef): Table => {
  const table = new Table(scope, def.id, {
    partitionKey: attr(def.partitionKey),
    sortKey: attr(def.sortKey),
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
    ...(def.timeToLiveAttribute ? { timeToLiveAttribute: def.timeToLiveAttribute } : {}),
    // The credit table's stream feeds the deferred settle worker (infra/constructs/deferred-settlement.ts).
    ...(def.id === CREDITS_TABLE.id ? { stream: StreamViewType.NEW_AND_OLD_IMAGES } : def.stream ? { stream: StreamViewType.KEYS_ONLY } : {}),
  });
  for (const index of def.globalIndexes ?? []) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: attr(index.partitionKey),
      sortKey: attr(index.sortKey),
      // Only what the index's readers use (TableDef): an index write then stays at 1 unit, whatever the item holds.
      ...(index.projected.length
        ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projected] }
        : { projectionType: ProjectionType.KEYS_ONLY }),
    });
  }
  return table;
};

/** The env keys the registry's sources require (one secret each), and which sources use each. */
const sourceKeyNames = (): string[] => [...new Set(SOURCES.flatMap((s) => (s.requiresKey ? [s.requiresKey] : [])))];
const usersOf = (name: string): string =>
  SOURCES.filter((s) => s.requiresKey === name)
    .map((s) => s.id)
    .join(', ');

/**
 * Tables, the source-key secrets and the Stripe secret.
 * @example const data = new DataStack(app, 'commodity-data-prod-data', { config });
 */
class DataStack extends Stack {
  readonly observations: ITable;
  readonly credits: ITable;
  /** The secret of each source API key a registry source requires, by env key; values are set by an operator. */
  readonly sourceKeys: ReadonlyMap<string, ISecret>;
  /** Stripe keys of the Pro checkout as JSON {STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET}; "{}" until an operator sets it. */
  readonly stripe: ISecret;
  /** Credentials of a hosted x402 facilitator (shared/payment/facilitator-auth.ts); "{}": none are sent. */
  readonly facilitator: ISecret;
  /** The key that signs offers and receipts (shared/payment/receipt-secret.ts); "{}": nothing is signed. */
  readonly receiptSigning: ISecret;
  /** Where every alarm of the stage notifies: the topic of -c alarmTopicArn, or the stage's own. */
  readonly alarmTopic: ITopic;
  /** Issue 37: the server secret of the paid answers' ETags (generated; rotate it with the other secrets and a new secretsRevision). */
  readonly etagSecret: ISecret;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    this.observations = tableFromDef(this, OBSERVATIONS_TABLE);
    this.credits = tableFromDef(this, CREDITS_TABLE);

    // One secret per source API key, so each ingestion function may read its own source's key only
    // (IAM cannot split one JSON secret). Each holds JSON {"<NAME>": "…"}, the format the config loader
    // reads. Created holding "{}" (no key: live runs of that source are skipped, not failed);
    // CloudFormation only writes the value on creation, so a value put later survives every deploy.
    const sourceKeys = new Map<string, ISecret>();
    for (const name of sourceKeyNames()) {
      const secretName = `${props.config.stackPrefix}/source-keys/${name}`;
      const secret = new Secret(this, `SourceKey${name}`, {
        secretName,
        description: `${name} of ${usersOf(name)} as JSON {"${name}": "…"}; read by that ingestion only`,
        secretObjectValue: {},
        removalPolicy: RemovalPolicy.RETAIN,
      });
      sourceKeys.set(name, secret);
      new CfnOutput(this, `${name}SecretName`, { value: secretName });
    }
    this.sourceKeys = sourceKeys;
    this.stripe = new Secret(this, 'Stripe', {
      secretName: `${props.config.stackPrefix}/stripe`,
      description: 'Pro checkout: JSON {"STRIPE_SECRET_KEY": "sk_…", "STRIPE_WEBHOOK_SECRET": "whsec_…"}; {} keeps checkout off',
      secretObjectValue: {},
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.facilitator = new Secret(this, 'Facilitator', {
      secretName: `${props.config.stackPrefix}/facilitator`,
      description:
        'x402 facilitator credentials: JSON {"CDP_API_KEY_ID": "…", "CDP_API_KEY_SECRET": "…"} (Coinbase CDP) or {"headers": {"Authorization": "…"}}; {} sends none',
      secretObjectValue: {},
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.etagSecret = new Secret(this, 'EtagSecret', {
      secretName: `${props.config.stackPrefix}/etag`,
      description: "The key of the paid answers' ETags (HMAC): never served; a new value changes every tag (clients get one full answer)",
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.etagSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'rotated by operators with the other secrets (a new value and -c secretsRevision, so every function reads it again); no rotation Lambda needed',
    });
    this.receiptSigning = new Secret(this, 'ReceiptSigning', {
      secretName: `${props.config.stackPrefix}/receipt-signing`,
      description:
        'Signs x402 offers and receipts: JSON {"RECEIPT_SIGNING_KEY": "<Ed25519 PKCS#8 PEM>", "RECEIPT_PREVIOUS_KIDS": ["did:jwk:…"]}; {} signs nothing',
      secretObjectValue: {},
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.receiptSigning).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'rotating the receipt key also publishes the old kid (RECEIPT_PREVIOUS_KIDS) so receipts signed with it stay attributable: an operator step (README), not a rotation Lambda',
    });

    for (const secret of [...sourceKeys.values(), this.stripe, this.facilitator]) {
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          "third-party API keys (EIA, NASS, FAS, Stripe, the facilitator's) issued in the providers' consoles: they cannot be rotated by a Lambda; operators replace them",
      });
    }

    const alarms = props.config.alarms;
    if (alarms.topicArn) {
      this.alarmTopic = Topic.fromTopicArn(this, 'AlarmTopic', alarms.topicArn);
    } else {
      const topic = new Topic(this, 'AlarmTopic', { topicName: `${props.config.stackPrefix}-alarms`, enforceSSL: true });
      Validations.of(topic).acknowledge({
        id: 'AwsSolutions-SNS2',
        reason:
          'alarm notifications carry alarm names and metric values, nothing secret; CloudWatch cannot publish to a topic encrypted with the AWS-managed SNS key',
      });
      this.alarmTopic = topic;
    }
    if (alarms.email) this.alarmTopic.addSubscription(new EmailSubscription(alarms.email));

    new CfnOutput(this, 'ObservationsTableName', { value: this.observations.tableName });
    new CfnOutput(this, 'CreditsTableName', { value: this.credits.tableName });
    new CfnOutput(this, 'StripeSecretName', { value: `${props.config.stackPrefix}/stripe` });
    new CfnOutput(this, 'FacilitatorSecretName', { value: `${props.config.stackPrefix}/facilitator` });
    new CfnOutput(this, 'ReceiptSigningSecretName', { value: `${props.config.stackPrefix}/receipt-signing` });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topicArn });
  }
}

export { DataStack };
export type { DataStackProps };
