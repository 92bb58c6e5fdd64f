/**
 * The README's operator runbook, run as written: every ```bash block of its section, in order, in one
 * bash shell, against the embedded stack. What stands in for what cannot be reached from here:
 * - AWS DynamoDB: the local runtime's embedded store (AWS_ENDPOINT_URL_DYNAMODB, honoured by the AWS
 *   SDK the CLIs use); the API at the stack's ApiUrl is the local runtime over it;
 * - AWS CloudFormation and Secrets Manager: loopback stand-ins answering the AWS CLI
 *   (AWS_ENDPOINT_URL_CLOUDFORMATION / _SECRETS_MANAGER), with the outputs and secret names of the
 *   stage as synthesized;
 * - `npx cdk bootstrap` / `deploy`: test/helpers/cdk-stand-in.ts, which synthesizes the app with the
 *   command's context (what `cdk deploy` does before deploying) and logs what it would deploy;
 * - the publishers: their recorded payloads (test/helpers/offline-publishers.ts).
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
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
    const synth = synthService({ stage: 'prod', payTo: PAY_TO, facilitatorUrl: vars.FACILITATOR_URL, rpcUrl: vars.RPC_URL, alarmEmail: vars.ALARM_EMAIL });
    const outputValue: Record<string, string> = {
      ApiUrl: `${stack.url}/`,
      ObservationsTableName: stack.config.OBSERVATIONS_TABLE,
      CreditsTableName: stack.config.CREDITS_TABLE,
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
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const deploys = () =>
    readFileSync(join(dir, 'deploys.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stacks: string[]; context: Record<string, string>; price: Record<string, string>; pro: Record<string, string> });

  it('runs every block to its end (9 blocks: helpers, bootstrap, deploy, secrets, backfill, verify, two rotations, pay-to)', () => {
    expect(result.status, result.stderr.slice(-3000)).toBe(0);
    expect(result.blocks).toHaveLength(9);
  });

  it('deploys the prod stage with the context it names, then restarts the functions for the secrets, and moves the pay-to', () => {
    const d = deploys();
    expect(d.map((x) => [x.stacks.length, x.context.secretsRevision ?? null, x.context.payTo])).toEqual([
      [3, null, PAY_TO],
      [3, '1', PAY_TO],
      [1, expect.stringMatching(/^\d{8}T\d{6}$/), PAY_TO],
      [1, expect.stringMatching(/^\d{8}T\d{6}$/), PAY_TO],
      [1, null, NEW_PAY_TO],
    ]);
    expect(d[0]!.price).toMatchObject({
      [ENV.STAGE]: 'prod',
      [ENV.X402_NETWORK]: 'eip155:8453',
      [ENV.X402_ENFORCE]: '1',
      [ENV.X402_FACILITATOR_URL]: vars.FACILITATOR_URL,
      [ENV.X402_PAY_TO]: PAY_TO,
    });
    expect(d[0]!.pro).toMatchObject({ [ENV.STRIPE_PRICE_MONTHLY]: vars.STRIPE_PRICE_MONTHLY, [ENV.STRIPE_PRICE_YEARLY]: vars.STRIPE_PRICE_YEARLY });
    expect(d[1]!.price[ENV.SECRETS_REVISION]).toBe('1');
    expect(d[2]!.stacks).toEqual(['commodity-data-prod-api']);
    expect(d[4]!.price[ENV.X402_PAY_TO]).toBe(NEW_PAY_TO);
    expect(stacksAsked).toEqual(['commodity-data-prod-api', 'commodity-data-prod-data', 'commodity-data-prod-data']);
  });

  it('stores each secret under a name the data stack creates, in the format its function reads', async () => {
    expect(secretsPut.map((p) => p.id)).toEqual([
      'commodity-data-prod/facilitator',
      'commodity-data-prod/stripe',
      'commodity-data-prod/source-keys/EIA_API_KEY',
      'commodity-data-prod/source-keys/NASS_API_KEY',
      'commodity-data-prod/source-keys/FAS_API_KEY',
      'commodity-data-prod/stripe',
      'commodity-data-prod/facilitator',
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

  it('verifies: /health (status and stale sources), an unpaid call is 402, a Pro key pays a call and is revoked', async () => {
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
    expect(rest.at(-1)).toMatch(/ revoked /);
    const keys = await new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE).list();
    expect(keys.map((k) => [k.label, k.status, k.creditsLeft])).toEqual([['smoke-test', 'revoked', 2999]]);
  });

  it('the pay-to step ends by printing the address the challenges name (the stand-in API was not redeployed: the old one)', () => {
    expect(result.blocks[8]!.trim().split('\n').at(-1)).toBe(PAY_TO);
  });
});
