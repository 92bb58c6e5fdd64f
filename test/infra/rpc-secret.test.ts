/**
 * The prod RPC URL as a secret (issue 35): a provider URL carries its key, so prod takes it from a
 * Secrets Manager secret (-c rpcUrlSecretArn) or a key-less -c rpcUrl, and synth refuses prod with
 * neither and any URL that carries a key. On the synthesized templates: no RPC URL at all, the
 * three chain-reading functions get the secret's ARN and read access to it, nothing else does. At
 * cold start the URL is read from the secret (plain or JSON), and errors never show its value.
 * Provider URLs and keys below are synthetic (the shapes Alchemy, Infura and QuickNode use).
 */
import { describe, expect, it } from 'vitest';
import { DeployConfigError, readDeployConfig } from '../../infra/stacks/deploy-config';
import { ENV } from '../../shared/config/env-keys';
import { parseRpcSecret, withRpcUrlFromSecret } from '../../shared/config/rpc-secret';
import { synthService } from './synth';

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:commodity-data/prod/rpc-url-AbC123';
const PROD = {
  stage: 'prod',
  payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  facilitatorUrl: 'https://api.cdp.coinbase.com/platform/v2/x402',
  alarmEmail: 'ops@example.com',
};
const KEY = 'Zx9vQ2mT7rLp4sKd8WnB3yHc6FgJ1aEu';
const KEYED = [
  `https://base-mainnet.g.alchemy.com/v2/${KEY}`,
  'https://base-mainnet.infura.io/v3/0f1e2d3c4b5a69788796a5b4c3d2e1f0',
  'https://wild-frosty-sound.base-mainnet.quiknode.pro/4a1b2c3d4e5f60718293a4b5c6d7e8f901234567/',
  'https://rpc.example.com/base?apikey=abc123',
  'https://user:secret@rpc.example.com/base',
];

const problemsOf = (values: Record<string, string | undefined>): string[] => {
  const ctx = { tryGetContext: (k: string) => values[k], getAllContext: () => Object.fromEntries(Object.entries(values).filter((e) => e[1] !== undefined)) };
  try {
    readDeployConfig(ctx);
  } catch (err) {
    expect(err).toBeInstanceOf(DeployConfigError);
    return (err as DeployConfigError).problems;
  }
  throw new Error(`context was accepted: ${JSON.stringify(values)}`);
};

describe('prod RPC URL: a secret, never in the template', () => {
  it('synth refuses prod with neither a secret nor a URL, a URL that carries a key (without printing it), both, and a malformed ARN', () => {
    expect(problemsOf(PROD)).toEqual([expect.stringMatching(/^rpcUrlSecretArn or rpcUrl: required in prod/)]);
    for (const url of KEYED) {
      const problems = problemsOf({ ...PROD, rpcUrl: url });
      expect(problems, url).toEqual([expect.stringMatching(/^rpcUrl: the URL carries a key .* -c rpcUrlSecretArn=/)]);
      expect(problems.join(' '), url).not.toContain(url);
    }
    // over http too: both problems, neither printing it
    const insecure = problemsOf({ ...PROD, rpcUrl: `http://base-mainnet.g.alchemy.com/v2/${KEY}` });
    expect(insecure).toEqual([expect.stringMatching(/^rpcUrl: the URL carries a key/), 'rpcUrl: prod needs an https URL, got a URL that carries a key']);
    // a key is a key in staging too
    expect(problemsOf({ stage: 'staging', payTo: PROD.payTo, rpcUrl: `https://base-sepolia.g.alchemy.com/v2/${KEY}` })).toEqual([
      expect.stringMatching(/^rpcUrl: the URL carries a key/),
    ]);
    expect(problemsOf({ ...PROD, rpcUrl: 'https://base.rpc.example.com', rpcUrlSecretArn: ARN })).toEqual([
      'rpcUrl and rpcUrlSecretArn: give one (the secret is read instead of the URL)',
    ]);
    expect(problemsOf({ ...PROD, rpcUrlSecretArn: 'commodity/rpc' })).toEqual([
      expect.stringMatching(/^rpcUrlSecretArn: not the complete ARN of a Secrets Manager secret/),
    ]);
  });

  it('the prod templates carry no RPC URL: the reconciler, the batch settler and the deferred worker get the secret ARN and read access, no other function', () => {
    const s = synthService({ ...PROD, rpcUrlSecretArn: ARN });
    const all = JSON.stringify([s.templates.data.toJSON(), s.templates.api.toJSON(), s.templates.ingest.toJSON()]);
    expect(all).not.toContain(ENV.X402_RPC_URL);
    expect(all).not.toMatch(/https:\/\/[^"]*(alchemy|infura|quiknode|\/v[23]\/[A-Za-z0-9]{20,})/i);
    const fns = Object.entries(s.templates.api.findResources('AWS::Lambda::Function')) as Array<[string, any]>;
    const withSecret = fns.filter(([, f]) => f.Properties.Environment?.Variables?.[ENV.X402_RPC_SECRET_ARN] === ARN).map(([id]) => id);
    const idOf = (c: { node: { defaultChild?: unknown } }) => s.api.getLogicalId(c.node.defaultChild as never);
    expect(withSecret.sort()).toEqual([idOf(s.api.reconciler), idOf(s.api.batchSettler), idOf(s.api.deferredSettlement.fn)].sort());
    // each of them may read exactly that secret
    const policies = Object.values(s.templates.api.findResources('AWS::IAM::Policy')) as any[];
    const readers = policies.filter((p) =>
      p.Properties.PolicyDocument.Statement.some(
        (st: any) => JSON.stringify(st.Action).includes('secretsmanager:GetSecretValue') && JSON.stringify(st.Resource) === JSON.stringify(ARN),
      ),
    );
    const roles = readers.flatMap((p) => p.Properties.Roles.map((r: { Ref: string }) => r.Ref));
    for (const [id, f] of fns) {
      const role = f.Properties.Role['Fn::GetAtt'][0];
      expect(roles.includes(role), id).toBe(withSecret.includes(id));
    }
  });

  it('at cold start the URL comes from the secret (plain or JSON), read once; errors name the secret, never its value', async () => {
    const url = `https://base-mainnet.g.alchemy.com/v2/${KEY}`;
    const config = { X402_RPC_SECRET_ARN: ARN, AWS_REGION: 'us-east-1', X402_RPC_URL: undefined };
    let reads = 0;
    const read = async (id: string) => {
      reads++;
      expect(id).toBe(ARN);
      return url;
    };
    expect((await withRpcUrlFromSecret(config, read)).X402_RPC_URL).toBe(url);
    expect((await withRpcUrlFromSecret(config, read)).X402_RPC_URL).toBe(url);
    expect(reads).toBe(1);
    expect(parseRpcSecret(JSON.stringify({ X402_RPC_URL: url }), ARN)).toBe(url);
    // without the ARN: the environment's URL, no read
    expect(await withRpcUrlFromSecret({ AWS_REGION: 'us-east-1', X402_RPC_URL: 'https://mainnet.base.org' }, read)).toMatchObject({
      X402_RPC_URL: 'https://mainnet.base.org',
    });
    expect(reads).toBe(1);
    for (const bad of [`{"X402_RPC_URL": "${KEY}"`, KEY, '{"rpc": "x"}']) {
      let message = '';
      try {
        parseRpcSecret(bad, ARN);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(new RegExp(`^rpc secret ${ARN}: `));
      expect(message).not.toContain(KEY);
    }
    const other = { ...config, X402_RPC_SECRET_ARN: `${ARN.slice(0, -6)}XyZ789` };
    await expect(
      withRpcUrlFromSecret(other, async () => {
        throw Object.assign(new Error(`denied ${KEY}`), { name: 'AccessDeniedException' });
      }),
    ).rejects.toThrow(/^rpc secret .*: cannot be read \(AccessDeniedException\)$/);
  });
});
