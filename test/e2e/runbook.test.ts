/**
 * The README's operator runbook, run as written: every ```bash block of its section, in order, in one
 * bash shell, against the embedded stack. What stands in for what cannot be reached from here:
 * - AWS DynamoDB: the local runtime's embedded store (AWS_ENDPOINT_URL_DYNAMODB, honoured by the AWS
 *   SDK the CLIs use); the API at the stack's ApiUrl is the local runtime over it;
 * - AWS CloudFormation, Secrets Manager and SQS: loopback stand-ins answering the AWS CLI
 *   (AWS_ENDPOINT_URL_CLOUDFORMATION / _SECRETS_MANAGER / _SQS), with the outputs and secret names of
 *   the stage as synthesized, and one failed ingestion run in the IngestFailures queue;
 * - `npx cdk bootstrap` / `deploy`: test/helpers/cdk-stand-in.ts, which synthesizes the app with the
 *   command's context (what `cdk deploy` does before deploying) and logs what it would deploy;
 * - the publishers: their recorded payloads (test/helpers/offline-publishers.ts).
 */
import { spawn } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { ENV } from '../../shared/config/env-keys';
import { loadConfigWithStripeSecret, parseSourceKeys } from '../../shared/config/secrets';
import { parseFacilitatorSecret } from '../../shared/payment/facilitator-auth';
import { DynamoCreditLedger } from '../../shared/pro/credit-ledger';
import { createDocumentClient } from '../../shared/store/client';
import { SOURCES } from '../../shared/sources/registry';
import { getJson, startTestStack } from '../helpers/stack';
import { synthService } from '../infra/synth';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PUBLISHERS = fileURLToPath(new URL('../helpers/offline-publishers.ts', import.meta.url));
const CDK_STAND_IN = fileURLToPath(new URL('../helpers/cdk-stand-in.ts', import.meta.url));

// Hardhat's accounts 1 and 2, checksummed as wallets show them.
const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const NEW_PAY_TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

/** The ```bash blocks of the README's runbook section. */
const runbookBlocks = (): string[] => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Operator runbook');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 5));
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
};

/** A stand-in server; `handle` answers (status, content type, body). */
const serve = async (handle: (body: string, headers: Record<string, string | string[] | undefined>) => [number, string, string]) => {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const [status, type, out] = handle(body, req.headers);
      res.writeHead(status, { 'content-type': type });
      res.end(out);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
};

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

describe('README operator runbook, run as written against the embedded stack', () => {
  let stack: LocalStack;
  let cloudformation: Awaited<ReturnType<typeof serve>>;
  let secretsManager: Awaited<ReturnType<typeof serve>>;
  let sqs: Awaited<ReturnType<typeof serve>>;
  const sqsCalls: Array<{ action: string; input: Record<string, unknown> }> = [];
  /** A failed scheduled run of fred as Lambda's failure destination records it (its retries exhausted). */
  const failedRun = JSON.stringify({
    version: '1.0',
    timestamp: '2026-11-27T14:15:03.118Z',
    requestContext: {
      requestId: 'c0ffee00-0000-4000-8000-000000000001',
      functionArn: 'arn:aws:lambda:us-east-1:123456789012:function:ingest-fred:$LATEST',
      condition: 'RetriesExhausted',
      approximateInvokeCount: 3,
    },
    requestPayload: { source: 'fred' },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    responsePayload: { errorType: 'Error', errorMessage: 'fred: HTTP 503 from api.stlouisfed.org' },
  });
  let dir: string;
  const stacksAsked: string[] = [];
  const secretsPut: Array<{ id: string; value: string }> = [];
  let result: { status: number | null; blocks: string[]; stderr: string };

  const cdp = (() => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const jwk = privateKey.export({ format: 'jwk' });
    return {
      id: 'organizations/0000/apiKeys/runbook',
      secret: Buffer.concat([Buffer.from(jwk.d!, 'base64url'), Buffer.from(jwk.x!, 'base64url')]).toString('base64'),
    };
  })();
  const vars = {
    STAGE: 'prod',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    PAY_TO,
    NEW_PAY_TO,
    FACILITATOR_URL: 'https://api.cdp.coinbase.com/platform/v2/x402',
    RPC_URL: 'https://base.rpc.example.com/v2/runbook',
    MCP_REGISTRY_NAME: 'com.example/commodity-data',
    DOMAIN_NAME: 'api.example.com',
    CERTIFICATE_ARN: 'arn:aws:acm:us-east-1:123456789012:certificate/0b7c2f4e-1111-2222-3333-444455556666',
    KEY_NAME: 'EIA_API_KEY',
    ALARM_EMAIL: 'ops@example.com',
    STRIPE_PRICE_MONTHLY: 'price_runbook_monthly',
    STRIPE_PRICE_YEARLY: 'price_runbook_yearly',
    CDP_API_KEY_ID: cdp.id,
    CDP_API_KEY_SECRET: cdp.secret,
    STRIPE_SECRET_KEY: 'sk_live_runbook',
    STRIPE_WEBHOOK_SECRET: 'whsec_runbook',
    EIA_API_KEY: 'eia-runbook',
    NASS_API_KEY: 'nass-runbook',
    FAS_API_KEY: 'fas-runbook',
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'runbook-'));
    // The deployed API: the local runtime, enforcing payment, its tables empty as after a first deploy.
    stack = await startTestStack({ X402_ENFORCE: '1', X402_PAY_TO: PAY_TO }, false);

    // What the stage's stacks output and which secrets exist, from the prod synthesis of the runbook's context.
    const synth = synthService({
      stage: 'prod',
      payTo: PAY_TO,
      facilitatorUrl: vars.FACILITATOR_URL,
      rpcUrl: vars.RPC_URL,
      alarmEmail: vars.ALARM_EMAIL,
      domainName: vars.DOMAIN_NAME,
      certificateArn: vars.CERTIFICATE_ARN,
    });
    sqs = await serve((body, headers) => {
      const action = String(headers['x-amz-target'] ?? '').replace(/^AmazonSQS\./, '');
      const input = JSON.parse(body || '{}') as Record<string, unknown>;
      sqsCalls.push({ action, input });
      const type = 'application/x-amz-json-1.0';
      if (action === 'ReceiveMessage') {
        const md5 = createHash('md5').update(failedRun).digest('hex');
        return [200, type, JSON.stringify({ Messages: [{ MessageId: 'm-1', ReceiptHandle: 'receipt-1', MD5OfBody: md5, Body: failedRun }] })];
      }
      if (action === 'DeleteMessage') return [200, type, '{}'];
      return [400, type, JSON.stringify({ __type: 'com.amazonaws.sqs#InvalidAction', message: action })];
    });
    const outputValue: Record<string, string> = {
      ApiUrl: `${stack.url}/`,
      ObservationsTableName: stack.config.OBSERVATIONS_TABLE,
      CreditsTableName: stack.config.CREDITS_TABLE,
      IngestFailuresQueueUrl: `${sqs.url}/123456789012/commodity-data-prod-ingest-IngestFailures`,
      CustomDomainTarget: 'd111111abcdef8.cloudfront.net',
    };
    const outputs = new Map(
      [synth.data, synth.api, synth.ingest].map((st, i) => [
        st.stackName,
        Object.keys([synth.templates.data, synth.templates.api, synth.templates.ingest][i]!.toJSON().Outputs ?? {}).map((k): [string, string] => [
          k,
          outputValue[k] ?? `output-${k}`,
        ]),
      ]),
    );
    const secretNames = new Set(Object.values(synth.templates.data.findResources('AWS::SecretsManager::Secret')).map((r: any) => String(r.Properties.Name)));

    cloudformation = await serve((body) => {
      const p = new URLSearchParams(body);
      const name = p.get('StackName') ?? '';
      stacksAsked.push(name);
      const out = outputs.get(name);
      if (p.get('Action') !== 'DescribeStacks' || !out) {
        return [
          400,
          'text/xml',
          `<ErrorResponse><Error><Type>Sender</Type><Code>ValidationError</Code><Message>Stack with id ${xml(name)} does not exist</Message></Error></ErrorResponse>`,
        ];
      }
      const members = out.map(([k, v]) => `<member><OutputKey>${xml(k)}</OutputKey><OutputValue>${xml(v)}</OutputValue></member>`).join('');
      return [
        200,
        'text/xml',
        `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member><StackName>${xml(name)}</StackName><StackId>arn:aws:cloudformation:us-east-1:123456789012:stack/${xml(name)}/1</StackId><CreationTime>2026-11-26T00:00:00Z</CreationTime><StackStatus>CREATE_COMPLETE</StackStatus><Outputs>${members}</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></DescribeStacksResponse>`,
      ];
    });
    secretsManager = await serve((body, headers) => {
      const input = JSON.parse(body || '{}') as { SecretId?: string; SecretString?: string };
      const id = String(input.SecretId);
      if (headers['x-amz-target'] !== 'secretsmanager.PutSecretValue' || !secretNames.has(id)) {
        return [400, 'application/x-amz-json-1.1', JSON.stringify({ __type: 'ResourceNotFoundException', message: `Secrets Manager can't find ${id}` })];
      }
      secretsPut.push({ id, value: String(input.SecretString) });
      return [
        200,
        'application/x-amz-json-1.1',
        JSON.stringify({ ARN: `arn:aws:secretsmanager:us-east-1:123456789012:secret:${id}-AbCdEf`, Name: id, VersionId: 'v' }),
      ];
    });

    const blocks = runbookBlocks();
    const script = [
      'set -euo pipefail',
      // `npx cdk …` goes to the stand-in; every other npx as usual
      'npx() { if [ "$1" = cdk ]; then shift; node "$CDK_STAND_IN" "$@"; else command npx "$@"; fi; }',
      // AWS CLI v1 does not take AWS_ENDPOINT_URL_SQS (v2 does): point its sqs commands at the stand-in explicitly
      'aws() { if [ "$1" = sqs ]; then command aws --endpoint-url "$AWS_ENDPOINT_URL_SQS" "$@"; else command aws "$@"; fi; }',
      ...blocks.flatMap((b, i) => [`echo "::block ${i}::"`, b]),
    ].join('\n');
    result = await new Promise((resolve, reject) => {
      const child = spawn('bash', ['-c', script], {
        cwd: ROOT,
        env: {
          ...process.env,
          ...vars,
          AWS_ACCESS_KEY_ID: 'operator',
          AWS_SECRET_ACCESS_KEY: 'operator',
          AWS_ENDPOINT_URL_DYNAMODB: stack.config.DYNAMODB_ENDPOINT!,
          AWS_ENDPOINT_URL_CLOUDFORMATION: cloudformation.url,
          AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.url,
          AWS_ENDPOINT_URL_SQS: sqs.url,
          NODE_OPTIONS: `--import tsx --import ${PUBLISHERS}`,
          CDK_STAND_IN: CDK_STAND_IN,
          CDK_STAND_IN_LOG: join(dir, 'deploys.jsonl'),
          // no local store for the CLIs to fall back on
          DYNAMODB_ENDPOINT: '',
          DYNAMODB_PORT: '1',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => {
        stdout += c;
      });
      child.stderr.on('data', (c) => {
        stderr += c;
      });
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, blocks: stdout.split(/::block \d+::\n/).slice(1), stderr }));
    });
  }, 600_000);
  afterAll(async () => {
    await stack?.close();
    await cloudformation?.close();
    await secretsManager?.close();
    await sqs?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const deploys = () =>
    readFileSync(join(dir, 'deploys.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stacks: string[]; context: Record<string, string>; price: Record<string, string>; pro: Record<string, string> });

  it('runs every block to its end (11 blocks: helpers, bootstrap, first deploy, Stripe, backfill and pager, verify, ingest failures, three rotations, pay-to)', () => {
    expect(result.status, result.stderr.slice(-3000)).toBe(0);
    expect(result.blocks).toHaveLength(11);
  });

  it('deploys the data stack first, the rest with the pager held until the backfill, restarts the functions for the secrets, and moves the pay-to', () => {
    const d = deploys();
    expect(d.map((x) => [x.stacks, x.context.secretsRevision ?? null, x.context.quietAlarms ?? null, x.context.payTo])).toEqual([
      [['commodity-data-prod-data'], null, null, PAY_TO],
      [expect.arrayContaining(['commodity-data-prod-api']), null, '1', PAY_TO],
      [expect.arrayContaining(['commodity-data-prod-api']), '1', '1', PAY_TO],
      [expect.arrayContaining(['commodity-data-prod-api']), '1', null, PAY_TO],
      [['commodity-data-prod-api'], expect.stringMatching(/^\d{8}T\d{6}$/), null, PAY_TO],
      [['commodity-data-prod-api'], expect.stringMatching(/^\d{8}T\d{6}$/), null, PAY_TO],
      [['commodity-data-prod-ingest'], expect.stringMatching(/^\d{8}T\d{6}$/), null, PAY_TO],
      [['commodity-data-prod-api'], null, null, NEW_PAY_TO],
    ]);
    for (const x of d.slice(1, 4)) expect(x.stacks).toHaveLength(3);
    expect(d[1]!.price).toMatchObject({
      [ENV.STAGE]: 'prod',
      [ENV.X402_NETWORK]: 'eip155:8453',
      [ENV.X402_ENFORCE]: '1',
      [ENV.X402_FACILITATOR_URL]: vars.FACILITATOR_URL,
      [ENV.X402_RPC_URL]: vars.RPC_URL,
      [ENV.X402_PAY_TO]: PAY_TO,
      [ENV.MCP_REGISTRY_NAME]: vars.MCP_REGISTRY_NAME,
      // the custom domain is the address buyers sign for
      [ENV.PUBLIC_BASE_URL]: `https://${vars.DOMAIN_NAME}`,
    });
    expect(d[1]!.context).toMatchObject({ domainName: vars.DOMAIN_NAME, certificateArn: vars.CERTIFICATE_ARN });
    expect(d[1]!.pro).toMatchObject({ [ENV.STRIPE_PRICE_MONTHLY]: vars.STRIPE_PRICE_MONTHLY, [ENV.STRIPE_PRICE_YEARLY]: vars.STRIPE_PRICE_YEARLY });
    expect(d[2]!.price[ENV.SECRETS_REVISION]).toBe('1');
    expect(d[7]!.price[ENV.X402_PAY_TO]).toBe(NEW_PAY_TO);
    expect(stacksAsked).toEqual([
      'commodity-data-prod-api',
      'commodity-data-prod-data',
      'commodity-data-prod-data',
      'commodity-data-prod-api',
      'commodity-data-prod-ingest',
    ]);
  });

  it('puts the facilitator credentials in place before the API stack is first deployed (no paid call without them)', () => {
    const firstApiDeploy = deploys().findIndex((x) => x.stacks.includes('commodity-data-prod-api'));
    expect(firstApiDeploy).toBe(1);
    // the secrets of block 2 are stored between the data stack's deploy and the API's
    expect(result.blocks[2]!.indexOf('commodity-data-prod/facilitator')).toBeLessThan(
      result.blocks[2]!.indexOf('synthesized commodity-data-prod-data, commodity-data-prod-api'),
    );
    expect(result.blocks[2]!.trim().split('\n').at(-1)).toBe(`DNS: ${vars.DOMAIN_NAME} CNAME d111111abcdef8.cloudfront.net`);
  });

  it('stores each secret under a name the data stack creates, in the format its function reads', async () => {
    expect(secretsPut.map((p) => p.id)).toEqual([
      'commodity-data-prod/facilitator',
      'commodity-data-prod/source-keys/EIA_API_KEY',
      'commodity-data-prod/source-keys/NASS_API_KEY',
      'commodity-data-prod/source-keys/FAS_API_KEY',
      'commodity-data-prod/stripe',
      'commodity-data-prod/stripe',
      'commodity-data-prod/facilitator',
      'commodity-data-prod/source-keys/EIA_API_KEY',
    ]);
    const value = (id: string) => secretsPut.find((p) => p.id === id)!.value;
    expect(parseFacilitatorSecret(value('commodity-data-prod/facilitator'), 'f')).toEqual({ CDP_API_KEY_ID: cdp.id, CDP_API_KEY_SECRET: cdp.secret });
    const stripe = await loadConfigWithStripeSecret(
      { OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', STRIPE_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:s' },
      async () => value('commodity-data-prod/stripe'),
    );
    expect(stripe).toMatchObject({ STRIPE_SECRET_KEY: vars.STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET: vars.STRIPE_WEBHOOK_SECRET });
    for (const name of ['EIA_API_KEY', 'NASS_API_KEY', 'FAS_API_KEY'] as const) {
      expect(parseSourceKeys(value(`commodity-data-prod/source-keys/${name}`), name)).toEqual({ [name]: vars[name] });
    }
  });

  it('backfills every source into the stage table, repairs a range and writes it back', async () => {
    const backfill = result.blocks[4]!;
    const runs = backfill.split('\n').filter((l) => /^(ok|skipped|failed) /.test(l));
    expect(runs.filter((l) => !l.startsWith('ok '))).toEqual([]);
    expect(runs.filter((l) => l.startsWith('ok ')).length).toBe(SOURCES.length + 1); // every source, then fred again after the repair
    expect(backfill).toContain('removed 4 observation(s) of PRICE#EURUSD dated 2025-11-24..2025-11-30');
    const health = await getJson(stack.url, '/health');
    for (const s of health.body.sources as Array<{ id: string; last_success_at: string | null; last_error: string | null }>) {
      expect(s.last_success_at, s.id).not.toBeNull();
      expect(s.last_error, s.id).toBeNull();
    }
  });

  it("verifies: /health (status and stale sources), an unpaid call is 402, a Pro key pays a call and is revoked, and today's earnings show that call", async () => {
    const lines = result.blocks[5]!.trim().split('\n');
    const health = JSON.parse(lines.slice(0, lines.indexOf('}') + 1).join('\n'));
    expect(Object.keys(health)).toEqual(['status', 'stale_sources']);
    // The recorded payloads end in 2025-2026, so their newest figures are old today: stale for their data, not their runs.
    const served = await getJson(stack.url, '/health');
    expect(health).toEqual({ status: served.body.status, stale_sources: served.body.stale_sources });
    for (const s of served.body.sources.filter((x: { stale: boolean }) => x.stale)) expect(s.stale_reason, s.id).toMatch(/^its newest figure is dated/);
    const rest = lines.slice(lines.indexOf('}') + 1);
    expect(rest[0]).toBe('402');
    expect(JSON.parse(rest.slice(1, rest.indexOf('}') + 1).join('\n'))).toMatchObject({ instrument: 'CL' });
    const revoked = rest.findIndex((l) => / revoked /.test(l));
    expect(revoked).toBeGreaterThan(0);
    // npm run usage -- --day <today>: the Pro call, one credit (0.01 USD list), by lane and route
    const today = new Date().toISOString().slice(0, 10);
    expect(rest.slice(revoked + 1)).toEqual([
      `${today}  pro         GET /v1/price/{code}: 1 calls, 1 credits = 0.01 USD list`,
      `${today}  pro         total: 1 calls, 1 credits = 0.01 USD list`,
    ]);
    const keys = await new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE).list();
    expect(keys.map((k) => [k.label, k.status, k.creditsLeft])).toEqual([['smoke-test', 'revoked', 2999]]);
  });

  it('reads a failed ingestion run from the queue, runs its source again, and deletes the record only then', () => {
    const lines = result.blocks[6]!.trim().split('\n');
    expect(lines[0]).toBe('fred  2026-11-27T14:15:03.118Z  fred: HTTP 503 from api.stlouisfed.org');
    expect(lines.filter((l) => /^(ok|skipped|failed) /.test(l))).toEqual([expect.stringMatching(/^ok +fred\b/)]);
    expect(sqsCalls.map((c) => c.action)).toEqual(['ReceiveMessage', 'DeleteMessage']);
    expect(sqsCalls[0]!.input).toMatchObject({ MaxNumberOfMessages: 10, VisibilityTimeout: 900 });
    expect(sqsCalls[1]!.input).toMatchObject({ ReceiptHandle: 'receipt-1', QueueUrl: expect.stringContaining('IngestFailures') });
  });

  it('the pay-to step ends by printing the address the challenges name (the stand-in API was not redeployed: the old one)', () => {
    expect(result.blocks[10]!.trim().split('\n').at(-1)).toBe(PAY_TO);
  });
});
