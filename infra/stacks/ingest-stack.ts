/**
 * Ingestion: one function per source of the registry (all from functions/ingest.ts, told apart by
 * SOURCE_ID) and its EventBridge Scheduler schedules, built from the source's release schedule in
 * the publisher's time zone: the regular run plus a run in each slot the publisher's holiday rule
 * can move a release to (shared/calendar), each twice: at the release instant with `until_new`
 * (issue 37: re-polls the publisher, bounded, until the new figure is out, so watches hear of it
 * within a minute) and 15 minutes later as the catch-up of a publisher later than that bound. The
 * schedules come from SOURCES, not from ADAPTERS, so a source is scheduled as soon as it is registered.
 *
 * Failures have two layers, both ending in one retained, encrypted queue:
 * - the scheduler retries a delivery it could not make (throttling, missing permission) and then
 *   sends the event to the queue;
 * - the scheduler invokes Lambda asynchronously, so a run that throws (status "failed") is retried
 *   by Lambda's async configuration and then recorded in the same queue by the on-failure destination.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, TimeZone, Validations, type StackProps } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ENV } from '../../shared/config/env-keys';
import { SOURCES } from '../../shared/sources/registry';
import { releaseInstantExpressions, scheduleExpressions } from '../../shared/sources/schedule';
import { functionEntry, schedulerRoleFor, ServiceFunction } from '../constructs/service-function';
import type { DeployConfig } from './deploy-config';
import { addIngestAlarms, FRESHNESS_CHECK_EVERY_MINUTES } from './observability';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';

/** Retries after the first attempt, and how long a run may still start after its scheduled time. */
const RETRY_ATTEMPTS = 2;
const MAX_EVENT_AGE = Duration.hours(1);

const pascal = (s: string): string => s.replace(/(^|[-_])(\w)/g, (_m, _sep, c: string) => c.toUpperCase());

interface IngestStackProps extends StackProps {
  config: DeployConfig;
  observations: ITable;
  credits: ITable;
  /** Secret of each source API key, by env key (DataStack.sourceKeys). */
  sourceKeys: ReadonlyMap<string, ISecret>;
  /** Every alarm notifies it. */
  alarmTopic: ITopic;
  /** Entry file of a function name (default functions/<name>.ts; tests pass a stub). */
  entry?: (name: string) => string;
}

/**
 * Ingestion functions, their schedules and the failure queue.
 * @example new IngestStack(app, 'commodity-data-prod-ingest', { config, observations, credits, sourceKeys });
 */
class IngestStack extends Stack {
  readonly functions: ReadonlyMap<string, ServiceFunction>;
  /** Per source: the regular run first, then its holiday-shift runs. */
  readonly schedules: ReadonlyMap<string, readonly Schedule[]>;
  /** Per source: the runs at the release instants (`until_new`), in the same order (issue 37). */
  readonly releaseSchedules: ReadonlyMap<string, readonly Schedule[]>;
  readonly deadLetterQueue: Queue;
  /** Judges every source's freshness on a timer and emits SourceStale (the stale alarms read it). */
  readonly freshnessCheck: ServiceFunction;
  /** Failed runs and stale sources (infra/stacks/observability.ts). */
  readonly alarms: Alarm[];

  constructor(scope: Construct, id: string, props: IngestStackProps) {
    super(scope, id, props);
    const entry = props.entry ?? functionEntry;

    this.deadLetterQueue = new Queue(this, 'IngestFailures', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'this queue is the dead-letter queue of the ingestion functions and schedules: failed runs end here for an operator (14 days)',
    });

    const functions = new Map<string, ServiceFunction>();
    const schedules = new Map<string, readonly Schedule[]>();
    const releaseSchedules = new Map<string, readonly Schedule[]>();
    for (const source of SOURCES) {
      const name = pascal(source.id);
      const fn = new ServiceFunction(this, `Ingest${name}Function`, {
        entry: entry('ingest'),
        description: `ingestion of ${source.id}: ${source.feeds}`.slice(0, 256),
        // Large workbooks (World Bank) and multi-year backfills take longer than an API call.
        timeout: Duration.minutes(5),
        environment: { ...props.config.ingestEnvironment, [ENV.SOURCE_ID]: source.id },
        logRetention: props.config.logRetention,
        retryAttempts: RETRY_ATTEMPTS,
        maxEventAge: MAX_EVENT_AGE,
        onFailure: new SqsDestination(this.deadLetterQueue),
      });
      fn.bindTable(props.observations, { access: 'INGEST', envKey: ENV.OBSERVATIONS_TABLE });
      fn.bindTableNameOnly(props.credits, ENV.CREDITS_TABLE);
      // Its own source's key only: a keyless source gets no secret, the EIA functions never see NASS's key.
      if (source.requiresKey) {
        const secret = props.sourceKeys.get(source.requiresKey);
        if (!secret) throw new Error(`${source.id}: no secret for ${source.requiresKey}`);
        fn.bindSecret(secret, ENV.SOURCE_KEYS_SECRET_ARN);
      }
      functions.set(source.id, fn);

      // The regular run, then a run in each slot a holiday can move the release to (the day
      // after a holiday shift), all through one role.
      const role = schedulerRoleFor(this, `Ingest${name}ScheduleRole`, fn);
      const scheduleOf = (id: string, description: string, cron: string, input: Record<string, unknown>) =>
        new Schedule(this, id, {
          description: `${source.id}: ${description}`.slice(0, 512),
          schedule: ScheduleExpression.expression(cron, TimeZone.of(source.schedule.timeZone)),
          target: new LambdaInvoke(fn, {
            input: ScheduleTargetInput.fromObject(input),
            retryAttempts: RETRY_ATTEMPTS,
            maxEventAge: MAX_EVENT_AGE,
            deadLetterQueue: this.deadLetterQueue,
            role,
          }),
        });
      schedules.set(
        source.id,
        scheduleExpressions(source.schedule).map((cron, i) =>
          i === 0
            ? scheduleOf(`Ingest${name}Schedule`, source.releaseText, cron, { source: source.id })
            : scheduleOf(`Ingest${name}HolidaySchedule${i}`, 'holiday-shifted release run', cron, { source: source.id }),
        ),
      );
      // Issue 37: at the release instant, re-polled until the new figure is out (the function's until_new path).
      releaseSchedules.set(
        source.id,
        releaseInstantExpressions(source.schedule).map((cron, i) =>
          scheduleOf(`Ingest${name}ReleaseSchedule${i}`, 'at the release instant, re-polled until the new figure is out', cron, {
            source: source.id,
            until_new: true,
          }),
        ),
      );
    }
    this.functions = functions;
    this.schedules = schedules;
    this.releaseSchedules = releaseSchedules;

    this.freshnessCheck = new ServiceFunction(this, 'SourceFreshnessFunction', {
      entry: entry('source-freshness'),
      description: 'judges every source by the GET /health rule and emits SourceStale per source',
      timeout: Duration.minutes(1),
      environment: { ...props.config.ingestEnvironment },
      logRetention: props.config.logRetention,
    });
    this.freshnessCheck.bindTable(props.observations, { access: 'READ', envKey: ENV.OBSERVATIONS_TABLE });
    this.freshnessCheck.bindTableNameOnly(props.credits, ENV.CREDITS_TABLE);
    new Schedule(this, 'SourceFreshnessSchedule', {
      description: 'source freshness check (stale-source alarms)',
      schedule: ScheduleExpression.rate(Duration.minutes(FRESHNESS_CHECK_EVERY_MINUTES)),
      target: new LambdaInvoke(this.freshnessCheck, { retryAttempts: 0, role: schedulerRoleFor(this, 'SourceFreshnessScheduleRole', this.freshnessCheck) }),
    });

    this.alarms = addIngestAlarms(this, {
      failures: this.deadLetterQueue,
      namespace: props.config.metricsNamespace,
      topic: props.alarmTopic,
      sources: SOURCES,
      freshnessCheck: this.freshnessCheck,
    });

    new CfnOutput(this, 'IngestFailuresQueueUrl', { value: this.deadLetterQueue.queueUrl });
  }
}

export { IngestStack };
export type { IngestStackProps };
