/**
 * The settle worker of deferred exact payments on AWS (shared/payment/exact/deferred-worker.ts):
 * a function fed by the credit table's DynamoDB stream, with retries, a dead-letter queue and alarms.
 *
 * Why the table's stream and not an SQS queue: the claim item is the work item. The move
 * CLAIMED -> DEFERRED is one DynamoDB transaction with the payer's cap; the stream carries exactly
 * the moves that committed, in order per payer (its partition), with no second write to lose (a
 * message sent after the transaction can be lost when the Lambda dies in between, or sent for a
 * transaction that failed). The filter passes only CLAIMED -> DEFERRED, so the worker's own lease
 * writes never call it again. What the stream gives up on (retries spent, record too old) goes to
 * the dead-letter queue, and the reconciler (every minute) settles any DEFERRED claim it meets:
 * the backstop.
 *
 * Alarms: a message in the dead-letter queue, a worker falling behind (iterator age), and any
 * deferred loss booked (DeferredLossUsdcAtomic > 0: a payer whose settlement failed after its answer).
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config/env-keys';
import { METRIC, METRIC_SERVICE } from '../../shared/observability/metrics';
import { CREDITS_WATCH_INDEX } from '../../shared/store/tables';
import { functionEntry, ServiceFunction } from './service-function';

interface DeferredSettlementProps {
  /** The function's entry file (default functions/settle-deferred.ts; tests give a stub). */
  entry?: string;
  /** The credit table, with its stream on (NEW_AND_OLD_IMAGES: the filter reads the state before and after). */
  credits: ITable;
  observations: ITable;
  environment: Record<string, string>;
  facilitator?: ISecret;
  namespace: string;
  topic: ITopic;
  logRetention?: RetentionDays;
}

/** Stream retries of a batch before its records go to the dead-letter queue (the reconciler still settles them). */
const STREAM_RETRIES = 5;

class DeferredSettlement extends Construct {
  readonly fn: ServiceFunction;
  readonly deadLetterQueue: Queue;
  readonly alarms: Alarm[];

  constructor(scope: Construct, id: string, props: DeferredSettlementProps) {
    super(scope, id);
    this.fn = new ServiceFunction(this, 'SettleDeferredFunction', {
      entry: props.entry ?? functionEntry('settle-deferred'),
      description: 'settles deferred x402 exact payments (answered before settlement) from the credit table stream',
      // Two /settle calls (one retry) and the chain checks of a batch of claims settled side by side.
      timeout: Duration.seconds(60),
      environment: props.environment,
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    this.fn.bindTableNameOnly(props.observations, ENV.OBSERVATIONS_TABLE);
    this.fn.bindTable(props.credits, { access: 'LEDGER', envKey: ENV.CREDITS_TABLE, indexes: [CREDITS_WATCH_INDEX] });
    if (props.facilitator) this.fn.bindSecret(props.facilitator, ENV.X402_FACILITATOR_SECRET_ARN);

    this.deadLetterQueue = new Queue(this, 'SettleDeferredFailures', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'this queue is the dead-letter queue of the deferred settle worker: stream records it gave up on end here for an operator (14 days)',
    });
    this.fn.addEventSource(
      new DynamoEventSource(props.credits, {
        startingPosition: StartingPosition.LATEST,
        batchSize: 10,
        // Settlements of different payers run side by side (order holds per payer: the partition key).
        parallelizationFactor: 10,
        retryAttempts: STREAM_RETRIES,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        // An authorization is valid for X402_MAX_TIMEOUT_SECONDS (60 s by default): older records are the reconciler's.
        maxRecordAge: Duration.minutes(5),
        onFailure: new SqsDlq(this.deadLetterQueue),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('MODIFY'),
            dynamodb: { OldImage: { state: { S: FilterRule.isEqual('CLAIMED') } }, NewImage: { state: { S: FilterRule.isEqual('DEFERRED') } } },
          }),
        ],
      }),
    );

    const notify = (alarm: Alarm): Alarm => {
      alarm.addAlarmAction(new SnsAction(props.topic));
      alarm.addOkAction(new SnsAction(props.topic));
      return alarm;
    };
    this.alarms = [
      notify(
        new Alarm(this, 'DeferredLossAlarm', {
          alarmDescription:
            'a deferred x402 settlement failed after its answer: a loss is booked (npm run usage lists it) and the payer settles first from now on',
          metric: new Metric({
            namespace: props.namespace,
            metricName: METRIC.deferredLossAtomic,
            dimensionsMap: { service: METRIC_SERVICE.api },
            statistic: 'Sum',
            period: Duration.minutes(5),
          }),
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      ),
      notify(
        new Alarm(this, 'DeferredDeadLetterAlarm', {
          alarmDescription: 'deferred settlements the stream gave up on (the reconciler still settles them; look at why)',
          metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      ),
      notify(
        new Alarm(this, 'DeferredBehindAlarm', {
          alarmDescription: 'the deferred settle worker is behind: authorizations may expire before they are settled',
          metric: new Metric({
            namespace: 'AWS/Lambda',
            metricName: 'IteratorAge',
            dimensionsMap: { FunctionName: this.fn.functionName },
            statistic: 'Maximum',
            period: Duration.minutes(1),
          }),
          // Milliseconds: half of the 60 s an authorization is valid for by default.
          threshold: 30_000,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 2,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      ),
    ];
  }
}

export { DeferredSettlement };
export type { DeferredSettlementProps };
