/**
 * The HTTP API: one function per route family (functions/<family>.ts) and one API Gateway route per
 * entry of the route table, method and path exactly as there. Unknown paths fall to `$default`, served
 * by the discovery function as a JSON 404. Route functions read observations; only families that
 * charge get write access to the credits table (nonce claims, Pro credits, payment records).
 */
import { DeferredSettlement } from '../constructs/deferred-settlement';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { CfnOutput, Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { type CfnStage, CorsHttpMethod, HttpApi, HttpMethod, HttpRoute, HttpRouteKey, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Schedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { Construct } from 'constructs';
import { ENV } from '../../shared/config/env-keys';
import { CREDITS_TABLE, CREDITS_WATCH_INDEX } from '../../shared/store/tables';
import { FAMILIES, ROUTES, routesOf, type Family, type RouteDef } from '../../shared/routes/table';
import { CustomDomain } from '../constructs/custom-domain';
import { Edge } from '../constructs/edge';
import { functionEntry, schedulerRoleFor, ServiceFunction } from '../constructs/service-function';
import { Watches } from '../constructs/watches';
import type { DeployConfig } from './deploy-config';
import { addApiAlarms, addDashboard } from './observability';
import { addMoneyJobAlarms } from './money-job-alarms';
import { addOperationsAlarms } from './operations-alarms';
import { DEFAULT_WITHDRAW_DELAY_S } from '../../shared/payment/batch/config';
import { SETTLE_PASS_ENV } from '../../shared/payment/batch/settle-settings';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';

/** True when a family's function takes payments or debits credits (a priced route, or paid MCP tool calls). */
const familyCharges = (family: Family): boolean => routesOf(family).some((r) => r.priceKey !== null || r.usesCredits === true);

/** Browsers (and browser-hosted MCP clients) may call the API; no cookies, so any origin. */
const CORS_ALLOW_HEADERS = [
  'content-type',
  'accept',
  'authorization',
  'x-payment',
  'payment-signature',
  'x-force-402',
  // x402 v1 clients ask for the v1 body of a 402 with it (shared/payment/challenge.ts).
  'x402-version',
  'mcp-protocol-version',
  'mcp-session-id',
  'last-event-id',
  // @x402/fetch sends this request header on its paying retry, so browsers preflight it.
  'access-control-expose-headers',
];
const CORS_EXPOSE_HEADERS = [
  'payment-required',
  'payment-response',
  'x-payment-response',
  'x-request-id',
  'mcp-session-id',
  'mcp-protocol-version',
  'www-authenticate',
];

/** Minutes between reconciliation passes of pending x402 settlements (the 504 tells payers to retry after 60 s). */
const RECONCILE_EVERY_MINUTES = 1;
/**
 * Minutes between x402 batch-settlement passes (claims, settlement, idle refunds): each pass is a few
 * transactions whatever the number of calls, and far inside a channel's withdrawal delay (one day).
 */
const SETTLE_BATCHES_EVERY_MINUTES = 10;

const pascal = (s: string): string => s.replace(/(^|[-_])(\w)/g, (_m, _sep, c: string) => c.toUpperCase());

interface ApiStackProps extends StackProps {
  config: DeployConfig;
  observations: ITable;
  credits: ITable;
  /** The Pro function reads the Stripe keys from it. */
  stripe?: ISecret;
  /** The functions that call the facilitator read its credentials from it. */
  facilitator?: ISecret;
  /** The functions that sign offers and receipts (every charging one), and discovery, which publishes its kid. */
  receiptSigning?: ISecret;
  /** Every alarm notifies it. */
  alarmTopic: ITopic;
  /** Issue 37: the ETag secret (paid answers' tags, webhook watches); absent in stand-alone stack tests. */
  etagSecret?: ISecret;
  /** Entry file of a function name (default functions/<name>.ts; tests pass a stub). */
  entry?: (name: string) => string;
  /** Per-second request limits of the stage (defaults: rate 100, burst 200). */
  throttle?: { rateLimit: number; burstLimit: number };
}

/**
 * Routes that compute a bundle over many series (snapshots, decision packs, history windows, MCP
 * sessions) get a lower limit of their own (DeployConfig.capacity.heavy, per stage), so that a
 * runaway client of one of them cannot take the whole stage's capacity (and the functions'
 * concurrency) from the cheap reads.
 */
const isHeavyRoute = (r: Pick<RouteDef, 'family' | 'path'>): boolean =>
  r.family === 'snapshot' || r.family === 'decision' || r.family === 'mcp' || r.path.startsWith('/v1/history/');

/**
 * The API Gateway route keys of an entry. An HTTP API matches HEAD only to a HEAD route (a GET route
 * does not take it; `$default` would answer 404), so each GET route gets a HEAD twin on the same
 * function, which answers it as the GET without a body and without payment (shared/http/family-handler.ts).
 */
const routeKeysOf = (r: Pick<RouteDef, 'id' | 'method' | 'path'>): string[] => (r.method === 'GET' ? [r.id, `HEAD ${r.path}`] : [r.id]);

/**
 * HTTP API, family functions and their grants.
 * @example new ApiStack(app, 'commodity-data-prod-api', { config, observations: data.observations, credits: data.credits });
 */
class ApiStack extends Stack {
  readonly api: HttpApi;
  readonly functions: ReadonlyMap<Family, ServiceFunction>;
  /** Base URL of the API (the `$default` stage). */
  readonly url: string;
  /** Scheduled resolver of pending x402 settlements. */
  readonly reconciler: ServiceFunction;
  readonly deferredSettlement: DeferredSettlement;
  /** Scheduled claims, settlement and idle refunds of x402 batch-settlement channels. */
  readonly batchSettler: ServiceFunction;
  /** 5xx, failed functions, unresolved payments, a silent reconciler (infra/stacks/observability.ts). */
  readonly alarms: Alarm[];
  /** CloudFront + WAF in front of the API, when the stage has it (DeployConfig.capacity.edge). */
  readonly edge?: Edge;
  /** The stage's access log (metric filters count its 429s). */
  readonly accessLogs: LogGroup;
  /** Issue 37: the webhook watches' stream fan-out, queue and delivery (absent without the ETag secret). */
  readonly watches?: Watches;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const entry = props.entry ?? functionEntry;

    this.api = new HttpApi(this, 'HttpApi', {
      apiName: props.config.stackPrefix,
      description: 'Commodity data service: pay-per-call observations (x402 / Pro credits) and MCP',
      // Our own $default stage below carries throttling and access logs.
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: ['*'],
        allowMethods: [CorsHttpMethod.GET, CorsHttpMethod.POST, CorsHttpMethod.DELETE, CorsHttpMethod.OPTIONS],
        allowHeaders: CORS_ALLOW_HEADERS,
        exposeHeaders: CORS_EXPOSE_HEADERS,
        maxAge: Duration.hours(1),
      },
    });
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: props.config.logRetention });
    this.accessLogs = accessLogs;
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? props.config.capacity.stage,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            routeKey: '$context.routeKey',
            status: '$context.status',
            latencyMs: '$context.responseLatency',
            integrationLatencyMs: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            userAgent: '$context.identity.userAgent',
          }),
        ),
      },
    });
    this.url = stage.url;
    const capacity = props.config.capacity;
    // With the edge, the domain is the distribution's (so that no request bypasses WAF by name); without, the API's own.
    if (capacity.edge) {
      this.edge = new Edge(this, 'Edge', {
        api: this.api,
        anonymousPerIpPer5Min: capacity.anonymousPerIpPer5Min,
        domain: props.config.domain,
        metricPrefix: props.config.stackPrefix,
      });
    } else if (props.config.domain) new CustomDomain(this, 'CustomDomain', { ...props.config.domain, api: this.api, stage });
    // HttpStage has no per-route setting; the CloudFormation stage does (RouteSettings: JSON by route
    // key, so the property names are CloudFormation's own).
    (stage.node.defaultChild as CfnStage).routeSettings = Object.fromEntries(
      ROUTES.filter(isHeavyRoute).flatMap((r) =>
        routeKeysOf(r).map((key) => [
          key,
          { ThrottlingRateLimit: props.config.capacity.heavy.rateLimit, ThrottlingBurstLimit: props.config.capacity.heavy.burstLimit },
        ]),
      ),
    );

    // Every URL the service writes (402 resource.url, discovery documents) comes from configuration:
    // the publicBaseUrl context, else this API's own endpoint (never a request's Host header).
    const environment = { [ENV.PUBLIC_BASE_URL]: this.api.apiEndpoint, ...props.config.apiEnvironment };
    const functions = new Map<Family, ServiceFunction>();
    for (const family of FAMILIES) {
      const fn = new ServiceFunction(this, `${pascal(family)}Function`, {
        entry: entry(family),
        description: `${family} routes: ${routesOf(family)
          .map((r) => r.id)
          .join(', ')}`.slice(0, 256),
        environment: { ...environment, ...(family === 'pro' ? props.config.proEnvironment : {}) },
        logRetention: props.config.logRetention,
      });
      fn.bindTable(props.observations, { access: 'READ', envKey: ENV.OBSERVATIONS_TABLE });
      if (familyCharges(family)) fn.bindTable(props.credits, { access: 'LEDGER', envKey: ENV.CREDITS_TABLE });
      else fn.bindTableNameOnly(props.credits, ENV.CREDITS_TABLE);
      if (family === 'pro' && props.stripe) fn.bindSecret(props.stripe, ENV.STRIPE_SECRET_ARN);
      if (familyCharges(family) && props.facilitator) fn.bindSecret(props.facilitator, ENV.X402_FACILITATOR_SECRET_ARN);
      if (familyCharges(family) && props.etagSecret) fn.bindSecret(props.etagSecret, ENV.ETAG_SECRET_ARN);
      if ((familyCharges(family) || family === 'discovery') && props.receiptSigning) fn.bindSecret(props.receiptSigning, ENV.RECEIPT_SIGNING_SECRET_ARN);
      functions.set(family, fn);
    }
    this.functions = functions;

    // One integration per function, with one invoke permission per route (CDK's default). Not the
    // API-wide permission (scopePermissionToRoute: false): its source ARN api/*/*/* does not match the
    // $default route's api/<stage>/$default, so the JSON 404 would become API Gateway's 500.
    const integrations = new Map([...functions].map(([family, fn]) => [family, new HttpLambdaIntegration(`${pascal(family)}Integration`, fn)]));
    const routes = ROUTES.flatMap((r) =>
      routeKeysOf(r).map(
        (key) =>
          new HttpRoute(this, `Route ${key}`, {
            httpApi: this.api,
            routeKey: HttpRouteKey.with(r.path, HttpMethod[key.split(' ')[0] as keyof typeof HttpMethod]),
            integration: integrations.get(r.family)!,
          }),
      ),
    );
    routes.push(new HttpRoute(this, 'Route $default', { httpApi: this.api, routeKey: HttpRouteKey.DEFAULT, integration: integrations.get('discovery')! }));
    for (const route of routes) {
      Validations.of(route).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          'a public pay-per-call API: anyone may call; paid routes authorize each call in the function (x402 payment or Pro key), free routes are discovery documents',
      });
    }

    // Pending x402 settlements (facilitator timed out after broadcasting) are resolved against the
    // chain on a timer, so a buyer's retry of the same header finds them settled or unpaid.
    this.reconciler = new ServiceFunction(this, 'ReconcilePaymentsFunction', {
      entry: entry('reconcile-payments'),
      description: 'resolves pending x402 settlements against the chain',
      timeout: Duration.minutes(2),
      // Nothing reserved unless asked (-c reconcilerConcurrency=1): an account whose concurrency quota
      // is still the default cannot reserve any (the unreserved minimum) and the deploy rolls back.
      // Overlapping sweeps are harmless without it (the ledger writes are conditional), only wasted.
      reservedConcurrentExecutions: props.config.reconcilerConcurrency,
      environment,
      logRetention: props.config.logRetention,
    });
    this.reconciler.bindTableNameOnly(props.observations, ENV.OBSERVATIONS_TABLE);
    this.reconciler.bindTable(props.credits, { access: 'LEDGER', envKey: ENV.CREDITS_TABLE, indexes: [CREDITS_WATCH_INDEX] });
    if (props.facilitator) this.reconciler.bindSecret(props.facilitator, ENV.X402_FACILITATOR_SECRET_ARN);
    new Schedule(this, 'ReconcilePaymentsSchedule', {
      description: 'x402 pending-settlement reconciliation',
      schedule: ScheduleExpression.rate(Duration.minutes(RECONCILE_EVERY_MINUTES)),
      target: new LambdaInvoke(this.reconciler, { retryAttempts: 0, role: schedulerRoleFor(this, 'ReconcilePaymentsScheduleRole', this.reconciler) }),
    });

    // Batch-settlement vouchers are claimed on chain in batches, settled, and idle channels refunded, on a timer.
    this.batchSettler = new ServiceFunction(this, 'SettleBatchesFunction', {
      entry: entry('settle-batches'),
      description: 'claims and settles x402 batch-settlement vouchers, refunds idle channels',
      // A pass closes every open sale, 50 per transaction, a page at a time and several at once (the
      // stage's settler settings); a pass near its timeout stops and the next continues (npm run
      // capacity gives the pass time per rate). 9 minutes stays under the 10-minute schedule (no overlap).
      timeout: Duration.minutes(9),
      memorySize: 2048,
      // Nothing reserved unless asked (-c reconcilerConcurrency=1, as the reconciler): overlapping passes
      // would only submit the same claims twice (refused on chain, a wasted transaction).
      reservedConcurrentExecutions: props.config.reconcilerConcurrency,
      environment,
      logRetention: props.config.logRetention,
    });
    // The pass's page size and parallel bounds, per stage (a pass pages through open sales and stops before its timeout).
    for (const [key, name] of Object.entries(SETTLE_PASS_ENV))
      this.batchSettler.addEnvironment(name, String(props.config.capacity.settler[key as keyof typeof SETTLE_PASS_ENV]));
    this.batchSettler.bindTableNameOnly(props.observations, ENV.OBSERVATIONS_TABLE);
    this.batchSettler.bindTable(props.credits, { access: 'CHANNELS', envKey: ENV.CREDITS_TABLE });
    if (props.facilitator) this.batchSettler.bindSecret(props.facilitator, ENV.X402_FACILITATOR_SECRET_ARN);
    new Schedule(this, 'SettleBatchesSchedule', {
      description: 'x402 batch-settlement claims, settlement and idle refunds',
      schedule: ScheduleExpression.rate(Duration.minutes(SETTLE_BATCHES_EVERY_MINUTES)),
      target: new LambdaInvoke(this.batchSettler, { retryAttempts: 0, role: schedulerRoleFor(this, 'SettleBatchesScheduleRole', this.batchSettler) }),
    });

    // Deferred exact settlements: the credit table's stream feeds their settle worker (DLQ, alarms).
    this.deferredSettlement = new DeferredSettlement(this, 'DeferredSettlement', {
      entry: entry('settle-deferred'),
      credits: props.credits,
      observations: props.observations,
      environment,
      ...(props.facilitator ? { facilitator: props.facilitator } : {}),
      namespace: props.config.metricsNamespace,
      topic: props.alarmTopic,
      logRetention: props.config.logRetention,
    });
    // Issue 37: webhook watches (stream -> fan-out -> queue -> delivery).
    if (props.etagSecret) {
      this.watches = new Watches(this, 'Watches', { ...props, etagSecret: props.etagSecret, entry, environment, logRetention: props.config.logRetention });
    }

    // The chain-reading functions get the RPC secret's ARN (read at cold start), never the URL.
    if (props.config.rpcUrlSecretArn) {
      const rpc = Secret.fromSecretCompleteArn(this, 'RpcUrlSecret', props.config.rpcUrlSecretArn);
      for (const fn of [this.reconciler, this.batchSettler, this.deferredSettlement.fn]) fn.bindSecret(rpc, ENV.X402_RPC_SECRET_ARN);
    }

    this.alarms = addApiAlarms(this, {
      api: this.api,
      namespace: props.config.metricsNamespace,
      topic: props.alarmTopic,
      functions,
      reconciler: this.reconciler,
      batchSettler: this.batchSettler,
    });
    this.alarms.push(
      ...addOperationsAlarms(this, {
        api: this.api,
        accessLogs,
        namespace: props.config.metricsNamespace,
        topic: props.alarmTopic,
        functions: [
          ...functions.values(),
          this.reconciler,
          this.batchSettler,
          this.deferredSettlement.fn,
          ...(this.watches ? [this.watches.fanOut, this.watches.delivery] : []),
        ],
        tables: [
          { table: props.credits, indexes: CREDITS_TABLE.globalIndexes?.map((i) => i.name) ?? [] },
          { table: props.observations, indexes: [] },
        ],
        revenueWatchRequestsPerHour: props.config.capacity.revenueWatchRequestsPerHour,
      }),
      ...addMoneyJobAlarms(this, {
        namespace: props.config.metricsNamespace,
        topic: props.alarmTopic,
        batchSettler: this.batchSettler,
        everyMinutes: SETTLE_BATCHES_EVERY_MINUTES,
        withdrawDelaySeconds: DEFAULT_WITHDRAW_DELAY_S,
      }),
    );
    addDashboard(this, { name: `${props.config.stackPrefix}`, namespace: props.config.metricsNamespace, api: this.api });

    new CfnOutput(this, 'ApiUrl', { value: this.url, description: 'Base URL of the API' });
  }
}

export { ApiStack, familyCharges, isHeavyRoute, routeKeysOf, SETTLE_BATCHES_EVERY_MINUTES };
export type { ApiStackProps };
