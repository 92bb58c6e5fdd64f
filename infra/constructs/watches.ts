/**
 * Webhook watches on AWS (issue 37):
 *
 *   observation table stream (keys only) -> fan-out function -> delivery queue -> delivery function
 *
 * The fan-out computes each watched path's answer once per batch of writes and queues one message
 * per watch whose answer changed (shared/watches/fan-out.ts); the delivery function signs, charges
 * and POSTs (shared/watches/deliver.ts) and re-queues its own retries with their backoff (SQS delays
 * up to 15 minutes; a longer wait goes round again). Messages a delivery function fails on (a crash,
 * a timeout, not a receiver's refusal: that is the retry schedule's) go to the dead-letter queue after
 * five receives; stream batches the fan-out cannot handle go to a failure queue. A schedule runs the
 * delivery function's sweep every 15 minutes: an attempt that stopped with credits held and whose
 * message never came back gets its credits back (shared/watches/deliver.ts). Alarms: anything in
 * either queue, a delivery backlog older than 5 minutes, and either function failing.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../../shared/config/env-keys';
import { ATTEMPT_LEASE_S, SWEEP_EVENT } from '../../shared/watches/lease';
import { schedulerRoleFor, ServiceFunction } from './service-function';

interface WatchesProps {
  /** The observation table; its stream (KEYS_ONLY, shared/store/tables.ts) triggers the fan-out. */
  observations: ITable;
  credits: ITable;
  /** The ETag secret: the fan-out tags answers as the API does. */
  etagSecret: ISecret;
  alarmTopic: ITopic;
  entry: (name: string) => string;
  environment: Record<string, string>;
  logRetention?: RetentionDays;
}

/**
 * Seconds a delivery function has per message batch (10 POSTs of at most 10 s each, in parallel, and
 * their bookkeeping): half an attempt's lease, so a lease that ended belongs to a stopped attempt.
 */
const DELIVERY_TIMEOUT_S = ATTEMPT_LEASE_S / 2;
/** Minutes between sweeps of stopped attempts. */
const SWEEP_EVERY_MINUTES = 15;

class Watches extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly fanOut: ServiceFunction;
  readonly delivery: ServiceFunction;
  readonly alarms: Alarm[];

  constructor(scope: Construct, id: string, props: WatchesProps) {
    super(scope, id);
    const queueDefaults = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true } as const;
    this.deadLetters = new Queue(this, 'DeliveryDeadLetters', { ...queueDefaults, retentionPeriod: Duration.days(14) });
    this.queue = new Queue(this, 'DeliveryQueue', {
      ...queueDefaults,
      // Six times the function's timeout (AWS's advice for SQS event sources).
      visibilityTimeout: Duration.seconds(DELIVERY_TIMEOUT_S * 6),
      retentionPeriod: Duration.days(2),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: 5 },
    });
    const streamFailures = new Queue(this, 'FanOutFailures', { ...queueDefaults, retentionPeriod: Duration.days(14) });
    for (const q of [this.deadLetters, streamFailures]) {
      Validations.of(q).acknowledge({ id: 'AwsSolutions-SQS3', reason: 'this queue is itself a dead-letter queue' });
    }
    const environment = { ...props.environment, [ENV.WATCH_QUEUE_URL]: this.queue.queueUrl };

    this.fanOut = new ServiceFunction(this, 'FanOutFunction', {
      entry: props.entry('watch-fan-out'),
      description: 'webhook watches: after observation writes, finds the watched paths whose answer changed and queues their deliveries',
      timeout: Duration.minutes(5),
      memorySize: 1024,
      environment,
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    this.fanOut.bindTable(props.observations, { access: 'READ', envKey: ENV.OBSERVATIONS_TABLE });
    this.fanOut.bindTable(props.credits, { access: 'LEDGER', envKey: ENV.CREDITS_TABLE });
    this.fanOut.bindSecret(props.etagSecret, ENV.ETAG_SECRET_ARN);
    this.queue.grantSendMessages(this.fanOut);
    this.fanOut.addEventSource(
      new DynamoEventSource(props.observations, {
        startingPosition: StartingPosition.LATEST,
        // One fan-out per ingestion run rather than per item: a run writes its items within seconds.
        batchSize: 1000,
        maxBatchingWindow: Duration.seconds(5),
        retryAttempts: 3,
        onFailure: new SqsDlq(streamFailures),
      }),
    );

    this.delivery = new ServiceFunction(this, 'DeliveryFunction', {
      entry: props.entry('watch-deliver'),
      description: 'webhook watches: signs, charges (once, on 2xx) and posts one delivery; re-queues its retries',
      timeout: Duration.seconds(DELIVERY_TIMEOUT_S),
      environment,
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    this.delivery.bindTableNameOnly(props.observations, ENV.OBSERVATIONS_TABLE);
    this.delivery.bindTable(props.credits, { access: 'LEDGER', envKey: ENV.CREDITS_TABLE });
    this.queue.grantSendMessages(this.delivery);
    this.delivery.addEventSource(new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true }));
    new Schedule(this, 'SweepSchedule', {
      description: 'webhook watches: gives back the credits of delivery attempts that stopped and whose message is gone',
      schedule: ScheduleExpression.rate(Duration.minutes(SWEEP_EVERY_MINUTES)),
      target: new LambdaInvoke(this.delivery, {
        input: ScheduleTargetInput.fromObject(SWEEP_EVENT),
        retryAttempts: 0,
        role: schedulerRoleFor(this, 'SweepScheduleRole', this.delivery),
      }),
    });

    const alarm = (alarmId: string, description: string, a: Omit<ConstructorParameters<typeof Alarm>[2], 'alarmDescription'>) => {
      const made = new Alarm(this, alarmId, { alarmDescription: description, treatMissingData: TreatMissingData.NOT_BREACHING, ...a });
      made.addAlarmAction(new SnsAction(props.alarmTopic));
      made.addOkAction(new SnsAction(props.alarmTopic));
      return made;
    };
    const visible = (q: Queue) => q.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' });
    this.alarms = [
      alarm('DeadLettersAlarm', 'webhook deliveries the delivery function failed on five times are in the dead-letter queue', {
        metric: visible(this.deadLetters),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      }),
      alarm('FanOutFailuresAlarm', 'observation writes the watch fan-out could not handle (their stream batches are in the failure queue)', {
        metric: visible(streamFailures),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      }),
      alarm('DeliveryBacklogAlarm', 'webhook deliveries wait more than 5 minutes in the queue (releases are late to agents)', {
        metric: this.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: 300,
        evaluationPeriods: 2,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      }),
      ...[this.fanOut, this.delivery].map((fn, i) =>
        alarm(i === 0 ? 'FanOutErrorsAlarm' : 'DeliveryErrorsAlarm', `${i === 0 ? 'watch fan-out' : 'watch delivery'}: the Lambda function failed`, {
          metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        }),
      ),
    ];
  }
}

export { Watches };
export type { WatchesProps };
