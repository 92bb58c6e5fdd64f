import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionEntry, missingEntries, ServiceFunction } from '../../infra/constructs/service-function';
import { familyCharges, isHeavyRoute, routeKeysOf } from '../../infra/stacks/api-stack';
import { STAGE_CAPACITY } from '../../infra/stacks/capacity-settings';
import { ENTRY_NAMES } from '../../infra/stacks/service-stacks';
import { ENV } from '../../shared/config/env-keys';
import { FAMILIES, ROUTES } from '../../shared/routes/table';
import { SOURCES } from '../../shared/sources/registry';
import { releaseInstantExpressions, scheduleExpressions } from '../../shared/sources/schedule';
import { CREDITS_TABLE, OBSERVATIONS_TABLE } from '../../shared/store/tables';
import { actionsOn, logicalId, PAY_TO, refersTo, synthService, type Synthesized } from './synth';

const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:*', '*'];
const API_KEY_ENV = Object.values(ENV).filter((k) => k.endsWith('_API_KEY'));

const envOf = (resource: any): Record<string, unknown> => resource.Properties.Environment?.Variables ?? {};

/** The integration a route targets ("integrations/<Ref>"), or undefined. */
const integrationOf = (template: Synthesized['templates']['api'], route: any): any => {
  const integrations: Record<string, any> = template.findResources('AWS::ApiGatewayV2::Integration');
  const target = JSON.stringify(route.Properties.Target);
  const id = Object.keys(integrations).find((i) => target.includes(`"${i}"`));
  return id ? integrations[id] : undefined;
};

describe('CDK app (staging)', () => {
  let s: Synthesized;
  const fnId = (family: (typeof FAMILIES)[number]) => logicalId(s.api, s.api.functions.get(family)!);
  const obsId = () => logicalId(s.data, s.data.observations);
  const creditsId = () => logicalId(s.data, s.data.credits);

  beforeAll(() => {
    s = synthService({ stage: 'staging', payTo: PAY_TO });
  });

  describe('api stack', () => {
    it('has one route per route-table entry, with its exact route key, integrated with its family function', () => {
      const routes = s.templates.api.findResources('AWS::ApiGatewayV2::Route');
      const byKey = new Map(Object.values(routes).map((r: any) => [r.Properties.RouteKey as string, r]));
      expect(Object.keys(routes)).toHaveLength(ROUTES.flatMap(routeKeysOf).length + 1);
      for (const r of ROUTES) {
        const route = byKey.get(r.id);
        expect(route, r.id).toBeDefined();
        const integration = integrationOf(s.templates.api, route);
        expect(integration, r.id).toBeDefined();
        expect(refersTo(integration.Properties.IntegrationUri, fnId(r.family)), `${r.id} -> ${r.family}`).toBe(true);
        expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
      }
    });

    it("gives every API function a configured base URL: the publicBaseUrl context, else the HTTP API's own endpoint (never a request's Host)", () => {
      const apiId = logicalId(s.api, s.api.api);
      for (const family of FAMILIES) {
        const fn = s.templates.api.toJSON().Resources[fnId(family)];
        expect(refersTo(envOf(fn)[ENV.PUBLIC_BASE_URL], apiId), family).toBe(true);
      }
      const named = synthService({ stage: 'staging', payTo: PAY_TO, publicBaseUrl: 'https://data.example.com' });
      const priceFn = named.templates.api.toJSON().Resources[logicalId(named.api, named.api.functions.get('price')!)];
      expect(envOf(priceFn)[ENV.PUBLIC_BASE_URL]).toBe('https://data.example.com');
    });

    it('lets only the reconciler and the deferred settle worker read the watch index of the credit table', () => {
      const policies = Object.values(s.templates.api.findResources('AWS::IAM::Policy')) as any[];
      const onIndex = policies.filter((p) => JSON.stringify(p.Properties.PolicyDocument).includes('/index/'));
      expect(onIndex).toHaveLength(2);
      for (const p of onIndex) expect(JSON.stringify(p.Properties.PolicyDocument)).toContain('/index/gsi1');
      expect(JSON.stringify(onIndex.map((p) => p.Properties.Roles))).toContain('ReconcilePaymentsFunctionRole');
      expect(JSON.stringify(onIndex.map((p) => p.Properties.Roles))).toContain('SettleDeferredFunctionRole');
    });

    it('answers HEAD on every GET route: a HEAD route beside each GET (an HTTP API routes HEAD only to HEAD), on the same function', () => {
      const routes = Object.values(s.templates.api.findResources('AWS::ApiGatewayV2::Route')) as any[];
      const byKey = new Map(routes.map((r) => [r.Properties.RouteKey as string, r]));
      const gets = ROUTES.filter((r) => r.method === 'GET');
      expect(gets.length).toBeGreaterThan(30);
      for (const r of gets) {
        const head = byKey.get(`HEAD ${r.path}`);
        expect(head, `HEAD ${r.path}`).toBeDefined();
        expect(integrationOf(s.templates.api, head), `HEAD ${r.path}`).toEqual(integrationOf(s.templates.api, byKey.get(r.id)));
      }
      // No HEAD twin for routes that are not GET.
      for (const r of ROUTES.filter((x) => x.method !== 'GET')) expect(byKey.has(`HEAD ${r.path}`) && !gets.some((g) => g.path === r.path), r.id).toBe(false);
    });

    it('throttles the stage, and the bundle routes (snapshots, decision packs, history, MCP) lower on their own', () => {
      const stages = Object.values(s.templates.api.findResources('AWS::ApiGatewayV2::Stage')) as any[];
      expect(stages).toHaveLength(1);
      const { DefaultRouteSettings, RouteSettings } = stages[0].Properties;
      expect(DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1_000 });
      const heavy = [
        'GET /v1/snapshot/all',
        'GET /v1/decision/all',
        'GET /v1/snapshot/{sector}',
        'GET /v1/decision/{sector}',
        'GET /v1/history/{code}',
        'POST /api/mcp',
      ];
      expect(Object.keys(RouteSettings).sort()).toEqual(ROUTES.filter(isHeavyRoute).flatMap(routeKeysOf).sort());
      // A HEAD runs the same handler as its GET (free): it is throttled like it.
      for (const key of [...heavy, 'HEAD /v1/snapshot/all', 'HEAD /v1/history/{code}'])
        expect(RouteSettings[key], key).toEqual({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 });
      expect(RouteSettings['GET /v1/price/{code}']).toBeUndefined();
      for (const c of Object.values(STAGE_CAPACITY)) expect(c.heavy.rateLimit).toBeLessThan(c.stage.rateLimit);
    });

    it('gives MCP its own function behind POST, GET and DELETE /api/mcp (GET/DELETE answer 405 from our code, not a 404)', () => {
      const routes = Object.values(s.templates.api.findResources('AWS::ApiGatewayV2::Route')) as any[];
      for (const key of ['POST /api/mcp', 'GET /api/mcp', 'DELETE /api/mcp']) {
        const route = routes.find((r) => r.Properties.RouteKey === key);
        expect(refersTo(integrationOf(s.templates.api, route).Properties.IntegrationUri, fnId('mcp')), key).toBe(true);
      }
    });

    it('sends $default (unknown paths) to the discovery function, which may be invoked through it', () => {
      const routes = Object.values(s.templates.api.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: '$default' } }));
      expect(routes).toHaveLength(1);
      expect(refersTo(integrationOf(s.templates.api, routes[0])?.Properties.IntegrationUri, fnId('discovery'))).toBe(true);
      // The $default route's source ARN is api/<stage>/$default: only a permission ending in /*/* covers it.
      const perms = Object.values(s.templates.api.findResources('AWS::Lambda::Permission')).filter((p: any) =>
        refersTo(p.Properties.FunctionName, fnId('discovery')),
      );
      const arns = perms.map((p: any) => JSON.stringify(p.Properties.SourceArn));
      expect(
        arns.some((a) => /HttpApi[0-9A-F]+"},"\/\*\/\*"\]/.test(a)),
        arns.join('\n'),
      ).toBe(true);
    });

    it('creates one Node 24 arm64 function per family, traced, with source maps and an explicit log group with retention', () => {
      const fns = s.templates.api.findResources('AWS::Lambda::Function');
      const watchFns = [logicalId(s.api, s.api.watches!.fanOut), logicalId(s.api, s.api.watches!.delivery)];
      const jobs = [s.api.reconciler, s.api.batchSettler, s.api.deferredSettlement.fn].map((f) => logicalId(s.api, f));
      expect(Object.keys(fns).sort()).toEqual([...FAMILIES.map(fnId), ...jobs, ...watchFns].sort());
      const logGroups = s.templates.api.findResources('AWS::Logs::LogGroup');
      for (const [id, fn] of Object.entries(fns) as [string, any][]) {
        expect(fn.Properties, id).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], TracingConfig: { Mode: 'Active' } });
        expect(envOf(fn).NODE_OPTIONS, id).toBe('--enable-source-maps');
        const lg = fn.Properties.LoggingConfig.LogGroup.Ref;
        expect(logGroups[lg]?.Properties.RetentionInDays, id).toBeGreaterThan(0);
        if (!jobs.includes(id) && !watchFns.includes(id)) expect(fn.Properties.Timeout, id).toBeLessThan(30); // API Gateway HTTP APIs give up at 30 s
      }
    });

    it('passes the x402 settings of the stage to every API function, validated (staging: Base Sepolia, enforced)', () => {
      for (const family of FAMILIES) {
        const fn = s.templates.api.toJSON().Resources[fnId(family)];
        expect(envOf(fn), family).toMatchObject({
          [ENV.STAGE]: 'staging',
          [ENV.X402_ENFORCE]: '1',
          [ENV.X402_NETWORK]: 'eip155:84532',
          [ENV.X402_PAY_TO]: PAY_TO,
        });
      }
    });

    it('lets route functions read observations (GetItem, Query) and nothing else on them: no write, no Scan', () => {
      for (const family of FAMILIES) {
        const actions = actionsOn(s.templates.api, fnId(family), obsId(), s.templates.data);
        expect([...actions].sort(), family).toEqual(['dynamodb:GetItem', 'dynamodb:Query']);
        expect(
          actions.filter((a) => WRITE_ACTIONS.includes(a)),
          family,
        ).toEqual([]);
        expect(envOf(s.templates.api.toJSON().Resources[fnId(family)])[ENV.OBSERVATIONS_TABLE], family).toBeDefined();
      }
    });

    it('gives read-write on credits to the families that charge, and nothing on credits to the others', () => {
      const charging = FAMILIES.filter(familyCharges);
      expect(charging).toEqual(expect.arrayContaining(['price', 'spreads', 'decision', 'mcp']));
      expect(charging).not.toContain('discovery');
      for (const family of FAMILIES) {
        const actions = actionsOn(s.templates.api, fnId(family), creditsId(), s.templates.data);
        // Exactly what the payment ledgers issue (Get, Query, Put, Update, Delete of a pending-index
        // entry, transactions of those): no Scan, no BatchWrite, no table administration.
        if (familyCharges(family))
          expect([...actions].sort(), family).toEqual([
            'dynamodb:ConditionCheckItem',
            'dynamodb:DeleteItem',
            'dynamodb:GetItem',
            'dynamodb:PutItem',
            'dynamodb:Query',
            'dynamodb:UpdateItem',
          ]);
        else expect(actions, family).toEqual([]);
      }
    });
  });

  describe('data stack', () => {
    it.each([OBSERVATIONS_TABLE, CREDITS_TABLE])('$id table: on demand, PITR, deletion protection, retained, key schema of tables.ts', (def) => {
      const table = s.data.node.findChild(def.id);
      const resource = s.templates.data.toJSON().Resources[logicalId(s.data, table)];
      expect(resource).toMatchObject({ Type: 'AWS::DynamoDB::Table', DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      expect(resource.Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        KeySchema: [
          { AttributeName: def.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: def.sortKey.name, KeyType: 'RANGE' },
        ],
      });
      expect(resource.Properties.AttributeDefinitions).toEqual(
        expect.arrayContaining([
          { AttributeName: def.partitionKey.name, AttributeType: def.partitionKey.type },
          { AttributeName: def.sortKey.name, AttributeType: def.sortKey.type },
        ]),
      );
    });

    it('credit table: the watch index (reconciler: payer and nonce; deferred worker: state) and the sales index (finance: the sale fields of settled exact-lane claims), nothing else projected', () => {
      const table = s.data.node.findChild(CREDITS_TABLE.id);
      const resource = s.templates.data.toJSON().Resources[logicalId(s.data, table)];
      const indexes = (resource.Properties.GlobalSecondaryIndexes as any[]).map((i) => ({ name: i.IndexName, keys: i.KeySchema, projection: i.Projection }));
      expect(indexes).toEqual([
        {
          name: 'gsi1',
          keys: [
            { AttributeName: 'gsi1pk', KeyType: 'HASH' },
            { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
          ],
          // what DynamoReconcileLedger.listWatched reads; the claim itself (its payment payload) is read by key
          projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['payer', 'nonce', 'state'] },
        },
        {
          name: 'gsi2',
          keys: [
            { AttributeName: 'gsi2pk', KeyType: 'HASH' },
            { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
          ],
          // what salesOfMonth reads of an index item (saleFromItem without extras)
          projection: {
            ProjectionType: 'INCLUDE',
            NonKeyAttributes: [
              'sale_id',
              'lane',
              'route',
              'path',
              'amount',
              'asset',
              'network',
              'pay_to',
              'payer',
              'transaction',
              'settled_at',
              'request_id',
              'nonce',
            ],
          },
        },
      ]);
    });

    it('has exactly the two tables, and retained secrets created without any key in them: one per required source key, Stripe, the facilitator, the receipt key', () => {
      s.templates.data.resourceCountIs('AWS::DynamoDB::Table', 2);
      const secrets = Object.values(s.templates.data.findResources('AWS::SecretsManager::Secret')) as any[];
      expect(secrets.map((x) => String(x.Properties.Name).replace(/^commodity-data-staging\//, '')).sort()).toEqual([
        'etag',
        'facilitator',
        'receipt-signing',
        'source-keys/EIA_API_KEY',
        'source-keys/FAS_API_KEY',
        'source-keys/NASS_API_KEY',
        'stripe',
      ]);
      for (const secret of secrets) {
        // The ETag key (issue 37) is generated by Secrets Manager; the others wait for an operator's value.
        if (String(secret.Properties.Name).endsWith('/etag'))
          expect(secret).toMatchObject({ DeletionPolicy: 'Retain', Properties: { GenerateSecretString: { PasswordLength: 64 } } });
        else expect(secret).toMatchObject({ DeletionPolicy: 'Retain', Properties: { SecretString: '{}' } });
      }
    });
  });

  describe('ingest stack', () => {
    const ingestId = (source: string) => logicalId(s.ingest, s.ingest.functions.get(source)!);
    const dlqId = () => logicalId(s.ingest, s.ingest.deadLetterQueue);

    it('creates one function per registry source, telling it its SOURCE_ID (and the freshness check)', () => {
      const fns = s.templates.ingest.findResources('AWS::Lambda::Function');
      expect(Object.keys(fns)).toHaveLength(SOURCES.length + 1);
      expect(envOf(fns[logicalId(s.ingest, s.ingest.freshnessCheck)])[ENV.SOURCE_ID]).toBeUndefined();
      for (const source of SOURCES) {
        const fn = fns[ingestId(source.id)] as any;
        expect(fn.Properties, source.id).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], TracingConfig: { Mode: 'Active' } });
        expect(envOf(fn)[ENV.SOURCE_ID], source.id).toBe(source.id);
        expect(envOf(fn)[ENV.STAGE], source.id).toBe('staging');
      }
    });

    it('schedules every source with its registry crons (regular run + holiday-shift runs) and time zone, retries and a dead-letter queue', () => {
      const schedules = Object.values(s.templates.ingest.findResources('AWS::Scheduler::Schedule')) as any[];
      // + the freshness check's; + the release-instant runs (issue 37, the next test)
      const runs = (source: (typeof SOURCES)[number]) => scheduleExpressions(source.schedule).length + releaseInstantExpressions(source.schedule).length;
      expect(schedules).toHaveLength(SOURCES.reduce((n, source) => n + runs(source), 0) + 1);
      for (const source of SOURCES) {
        const mine = schedules.filter((sch) => refersTo(sch.Properties.Target.Arn, ingestId(source.id)) && !sch.Properties.Target.Input.includes('until_new'));
        expect(mine.map((m) => m.Properties.ScheduleExpression).sort(), source.id).toEqual([...scheduleExpressions(source.schedule)].sort());
        for (const m of mine) {
          expect(m.Properties, source.id).toMatchObject({
            ScheduleExpressionTimezone: source.schedule.timeZone,
            State: 'ENABLED',
            Target: { RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 }, Input: JSON.stringify({ source: source.id }) },
          });
          expect(refersTo(m.Properties.Target.DeadLetterConfig.Arn, dlqId()), source.id).toBe(true);
        }
      }
    });

    it('runs every source at its release instants too (issue 37: lag 0, each slot), invoked with until_new, retried, dead-lettered', () => {
      const schedules = Object.values(s.templates.ingest.findResources('AWS::Scheduler::Schedule')) as any[];
      const untilNew = (id: string) =>
        schedules.filter((sch) => refersTo(sch.Properties.Target.Arn, ingestId(id)) && JSON.parse(sch.Properties.Target.Input).until_new === true);
      for (const source of SOURCES) {
        const mine = untilNew(source.id);
        expect(mine.map((m) => m.Properties.ScheduleExpression).sort(), source.id).toEqual([...releaseInstantExpressions(source.schedule)].sort());
        for (const m of mine) {
          expect(m.Properties, source.id).toMatchObject({
            ScheduleExpressionTimezone: source.schedule.timeZone,
            State: 'ENABLED',
            Target: { RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 }, Input: JSON.stringify({ source: source.id, until_new: true }) },
          });
          expect(refersTo(m.Properties.Target.DeadLetterConfig.Arn, dlqId()), source.id).toBe(true);
        }
      }
      // The publishers' own times (New York): the WPSR Wednesday 10:30, or Thursday 12:00 in a holiday week;
      // the gas storage report Thursday 10:30 (Wednesday 12:00 or Friday 10:30 around a holiday); the COT Friday 15:30.
      const crons = (id: string) => untilNew(id).map((m) => m.Properties.ScheduleExpression);
      expect(crons('eia-petroleum').sort()).toEqual(['cron(0 12 ? * THU *)', 'cron(30 10 ? * WED *)']);
      expect(crons('eia-gas-storage').sort()).toEqual(['cron(0 12 ? * WED *)', 'cron(30 10 ? * FRI *)', 'cron(30 10 ? * THU *)']);
      expect(crons('cftc-cot').sort()).toEqual(['cron(30 15 ? * FRI *)', 'cron(30 15 ? * MON *)']);
    });

    it('runs the petroleum ingestion on the Thursday after a holiday shift (Thursday 12:00 ET + 15 min), besides its Wednesday run', () => {
      const schedules = (Object.values(s.templates.ingest.findResources('AWS::Scheduler::Schedule')) as any[]).filter(
        (sch) => !sch.Properties.Target.Input?.includes('until_new'),
      );
      const pet = schedules.filter((sch) => refersTo(sch.Properties.Target.Arn, ingestId('eia-petroleum'))).map((m) => m.Properties.ScheduleExpression);
      expect(pet.sort()).toEqual(['cron(15 12 ? * THU *)', 'cron(45 10 ? * WED *)']);
      const cot = schedules.filter((sch) => refersTo(sch.Properties.Target.Arn, ingestId('cftc-cot'))).map((m) => m.Properties.ScheduleExpression);
      expect(cot.sort()).toEqual(['cron(45 15 ? * FRI *)', 'cron(45 15 ? * MON *)']);
    });

    it('retries a failed run (async invoke) and records it in the same retained, encrypted queue', () => {
      s.templates.ingest.hasResource('AWS::SQS::Queue', {
        DeletionPolicy: 'Retain',
        Properties: { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 },
      });
      const configs = Object.values(s.templates.ingest.findResources('AWS::Lambda::EventInvokeConfig')) as any[];
      for (const source of SOURCES) {
        const mine = configs.find((c) => refersTo(c.Properties.FunctionName, ingestId(source.id)));
        expect(mine?.Properties, source.id).toMatchObject({ MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 });
        expect(refersTo(mine.Properties.DestinationConfig.OnFailure.Destination, dlqId()), source.id).toBe(true);
      }
    });

    it('lets ingestion upsert observations (no delete, no scan), read its own source key only, and nothing on credits', () => {
      const keySecrets = [...s.data.sourceKeys].map(([name, secret]) => [name, logicalId(s.data, secret)] as const);
      expect(keySecrets.map(([name]) => name).sort()).toEqual(['EIA_API_KEY', 'FAS_API_KEY', 'NASS_API_KEY']);
      expect(SOURCES.some((src) => !src.requiresKey)).toBe(true);
      for (const source of SOURCES) {
        const id = ingestId(source.id);
        expect([...actionsOn(s.templates.ingest, id, obsId(), s.templates.data)].sort(), source.id).toEqual([
          'dynamodb:BatchWriteItem',
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:Query',
        ]);
        expect(actionsOn(s.templates.ingest, id, creditsId(), s.templates.data), source.id).toEqual([]);
        const env = envOf(s.templates.ingest.toJSON().Resources[id]);
        for (const [name, secretId] of keySecrets) {
          const actions = actionsOn(s.templates.ingest, id, secretId, s.templates.data);
          if (name === source.requiresKey) {
            expect(actions, `${source.id} ${name}`).toContain('secretsmanager:GetSecretValue');
            expect(refersTo(env[ENV.SOURCE_KEYS_SECRET_ARN], secretId, s.templates.data), source.id).toBe(true);
          } else expect(actions, `${source.id} ${name}`).toEqual([]);
        }
        if (!source.requiresKey) expect(env, source.id).not.toHaveProperty(ENV.SOURCE_KEYS_SECRET_ARN);
      }
    });
  });

  it('tells every function where to emit its business metrics (alarms: test/infra/alarms.test.ts); one dashboard', () => {
    s.templates.api.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    for (const [, t] of Object.entries(s.templates)) {
      for (const fn of Object.values(t.findResources('AWS::Lambda::Function')) as any[]) {
        expect(envOf(fn)[ENV.METRICS_NAMESPACE]).toBe('CommodityData/staging');
      }
    }
  });

  it('gives only the Pro function the Stripe secret (read permission and STRIPE_SECRET_ARN), and no Stripe key in any environment', () => {
    const secretId = logicalId(s.data, s.data.stripe);
    for (const family of FAMILIES) {
      const env = envOf(s.templates.api.toJSON().Resources[fnId(family)]);
      const actions = actionsOn(s.templates.api, fnId(family), secretId, s.templates.data);
      if (family === 'pro') {
        expect(refersTo(env[ENV.STRIPE_SECRET_ARN], secretId, s.templates.data)).toBe(true);
        expect(actions).toContain('secretsmanager:GetSecretValue');
      } else {
        expect(env[ENV.STRIPE_SECRET_ARN], family).toBeUndefined();
        expect(actions, family).toEqual([]);
      }
      expect(env[ENV.STRIPE_SECRET_KEY], family).toBeUndefined();
      expect(env[ENV.STRIPE_WEBHOOK_SECRET], family).toBeUndefined();
    }
  });

  it('gives the facilitator secret (read permission and X402_FACILITATOR_SECRET_ARN) to the functions that call the facilitator only', () => {
    const secretId = logicalId(s.data, s.data.facilitator);
    const callers = [...FAMILIES.filter(familyCharges).map((f) => [f, fnId(f)] as const), ['reconciler', logicalId(s.api, s.api.reconciler)] as const];
    expect(callers.map(([f]) => f)).toEqual(expect.arrayContaining(['price', 'mcp', 'reconciler']));
    for (const [name, id] of callers) {
      expect(refersTo(envOf(s.templates.api.toJSON().Resources[id])[ENV.X402_FACILITATOR_SECRET_ARN], secretId, s.templates.data), name).toBe(true);
      expect(actionsOn(s.templates.api, id, secretId, s.templates.data), name).toContain('secretsmanager:GetSecretValue');
    }
    for (const family of FAMILIES.filter((f) => !familyCharges(f))) {
      expect(envOf(s.templates.api.toJSON().Resources[fnId(family)])[ENV.X402_FACILITATOR_SECRET_ARN], family).toBeUndefined();
      expect(actionsOn(s.templates.api, fnId(family), secretId, s.templates.data), family).toEqual([]);
    }
  });

  it('gives the receipt key secret (read permission and RECEIPT_SIGNING_SECRET_ARN) to the charging functions and discovery only', () => {
    const secretId = logicalId(s.data, s.data.receiptSigning);
    const readers = FAMILIES.filter((f) => familyCharges(f) || f === 'discovery');
    expect(readers).toEqual(expect.arrayContaining(['price', 'mcp', 'discovery']));
    for (const family of FAMILIES) {
      const id = fnId(family);
      const env = envOf(s.templates.api.toJSON().Resources[id]);
      if (readers.includes(family)) {
        expect(refersTo(env[ENV.RECEIPT_SIGNING_SECRET_ARN], secretId, s.templates.data), family).toBe(true);
        expect(actionsOn(s.templates.api, id, secretId, s.templates.data), family).toContain('secretsmanager:GetSecretValue');
      } else {
        expect(env[ENV.RECEIPT_SIGNING_SECRET_ARN], family).toBeUndefined();
        expect(actionsOn(s.templates.api, id, secretId, s.templates.data), family).toEqual([]);
      }
      // The key itself never in an environment.
      expect(env[ENV.RECEIPT_SIGNING_KEY], family).toBeUndefined();
    }
  });

  it('puts no API key in any function environment, and the secret ARN only on ingestion functions', () => {
    expect(API_KEY_ENV).toEqual(expect.arrayContaining([ENV.EIA_API_KEY, ENV.NASS_API_KEY, ENV.FAS_API_KEY, ENV.FRED_API_KEY]));
    for (const [name, template] of Object.entries(s.templates)) {
      for (const [id, fn] of Object.entries(template.findResources('AWS::Lambda::Function'))) {
        const env = envOf(fn);
        for (const key of API_KEY_ENV) expect(env, `${name}/${id}`).not.toHaveProperty(key);
        if (name !== 'ingest') expect(env, `${name}/${id}`).not.toHaveProperty(ENV.SOURCE_KEYS_SECRET_ARN);
      }
    }
  });
});

describe('CDK app (prod and dev)', () => {
  it('charges on Base mainnet in prod with the given facilitator, and keeps the stateful stack termination-protected', () => {
    const s = synthService({
      stage: 'prod',
      payTo: PAY_TO,
      facilitatorUrl: 'https://facilitator.example.com/x402',
      alarmEmail: 'ops@example.com',
      rpcUrl: 'https://base.rpc.example.com',
    });
    s.templates.api.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          [ENV.STAGE]: 'prod',
          [ENV.X402_ENFORCE]: '1',
          [ENV.X402_NETWORK]: 'eip155:8453',
          [ENV.X402_FACILITATOR_URL]: 'https://facilitator.example.com/x402',
        }),
      },
    });
    expect(s.data.terminationProtection).toBe(true);
    expect(s.api.stackName).toBe('commodity-data-prod-api');
  });

  it('runs the x402 reconciler every minute (the 504 says retry after 60 s) with RW on credits only', () => {
    const s = synthService({ stage: 'staging', payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', rpcUrl: 'https://rpc.example/base-sepolia' });
    const id = logicalId(s.api, s.api.reconciler);
    // The reconciler's schedule; the batch settler's is tested in test/payment/batch/settle-schedule.test.ts.
    const schedules = (Object.values(s.templates.api.findResources('AWS::Scheduler::Schedule')) as any[]).filter((x) =>
      JSON.stringify(x.Properties.Target.Arn).includes(id),
    );
    expect(schedules).toHaveLength(1);
    expect(schedules[0].Properties.ScheduleExpression).toBe('rate(1 minute)');
    expect(JSON.stringify(schedules[0].Properties.Target.Arn)).toContain(id);
    const fn = s.templates.api.toJSON().Resources[id];
    expect(envOf(fn)).toMatchObject({ [ENV.X402_RPC_URL]: 'https://rpc.example/base-sepolia', [ENV.X402_NETWORK]: 'eip155:84532' });
    // Nothing reserved unless asked, in prod too: an account at its default concurrency quota cannot
    // reserve any and the deploy would roll back.
    expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    const prodContext = {
      stage: 'prod',
      payTo: PAY_TO,
      facilitatorUrl: 'https://facilitator.example.com/x402',
      alarmEmail: 'ops@example.com',
      rpcUrl: 'https://base.rpc.example.com',
    };
    const prod = synthService(prodContext);
    expect(prod.templates.api.toJSON().Resources[logicalId(prod.api, prod.api.reconciler)].Properties.ReservedConcurrentExecutions).toBeUndefined();
    const reserved = synthService({ ...prodContext, reconcilerConcurrency: '1' });
    expect(reserved.templates.api.toJSON().Resources[logicalId(reserved.api, reserved.api.reconciler)].Properties.ReservedConcurrentExecutions).toBe(1);
  });

  it('synthesizes a dev stage without any context, in demo mode on Base Sepolia', () => {
    const s = synthService();
    const fns = Object.values(s.templates.api.findResources('AWS::Lambda::Function'));
    expect(fns).toHaveLength(FAMILIES.length + 5); // + the x402 reconciler, the batch settler, the deferred settle worker and the two watch functions (issue 37)
    for (const fn of fns) expect(envOf(fn)).toMatchObject({ [ENV.STAGE]: 'dev', [ENV.X402_ENFORCE]: '0', [ENV.X402_NETWORK]: 'eip155:84532' });
    expect(s.data.terminationProtection).toBe(false);
  });
});

describe('ServiceFunction entries', () => {
  it('maps each function name to functions/<name>.ts and bundles one entry per family plus ingest', () => {
    expect(functionEntry('price')).toMatch(/\/functions\/price\.ts$/);
    expect([...ENTRY_NAMES].sort()).toEqual(
      [...FAMILIES, 'ingest', 'reconcile-payments', 'settle-batches', 'settle-deferred', 'source-freshness', 'watch-fan-out', 'watch-deliver'].sort(),
    );
    expect(missingEntries(['ingest', 'price', 'no-such-family'])).toEqual(['no-such-family']);
  });

  it('binds a table and its env var together, recording the access', () => {
    const s = synthService({ stage: 'staging', payTo: PAY_TO });
    const price = s.api.functions.get('price')!;
    const discovery = s.api.functions.get('discovery')!;
    expect(price).toBeInstanceOf(ServiceFunction);
    expect(price.tableAccess).toEqual({ [ENV.OBSERVATIONS_TABLE]: 'READ', [ENV.CREDITS_TABLE]: 'LEDGER' });
    expect(discovery.tableAccess).toEqual({ [ENV.OBSERVATIONS_TABLE]: 'READ', [ENV.CREDITS_TABLE]: 'NAME_ONLY' });
    expect(s.ingest.functions.get('fred')!.tableAccess).toEqual({ [ENV.OBSERVATIONS_TABLE]: 'INGEST', [ENV.CREDITS_TABLE]: 'NAME_ONLY' });
  });
});
