import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../shared/config';
import { loadConfigWithSecrets, loadConfigWithStripeSecret, parseSourceKeys, type SecretReader } from '../../shared/config/secrets';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:commodity-data-prod/source-keys-AbCdEf';
const BASE = { OBSERVATIONS_TABLE: 'obs', CREDITS_TABLE: 'credits', AWS_REGION: 'eu-west-1' };

/** A reader that records what it was asked and answers `text`. */
const reader = (text: string | undefined) => {
  const calls: Array<[string, string]> = [];
  const read: SecretReader = async (id, region) => {
    calls.push([id, region]);
    return text;
  };
  return { read, calls };
};

describe('loadConfigWithSecrets', () => {
  it('is plain loadConfig without a secret ARN (local runs keep reading keys from the environment)', async () => {
    const r = reader('{}');
    const config = await loadConfigWithSecrets({ ...BASE, EIA_API_KEY: 'from-env' }, r.read);
    expect(config.EIA_API_KEY).toBe('from-env');
    expect(r.calls).toEqual([]);
  });

  it('merges the keys of the secret into the configuration, the secret winning, read in the configured region', async () => {
    const r = reader(JSON.stringify({ EIA_API_KEY: 'eia-from-secret', NASS_API_KEY: 'nass-from-secret', FAS_API_KEY: '' }));
    const config = await loadConfigWithSecrets({ ...BASE, SOURCE_KEYS_SECRET_ARN: ARN, EIA_API_KEY: 'stale-env-key' }, r.read);
    expect(config).toMatchObject({ EIA_API_KEY: 'eia-from-secret', NASS_API_KEY: 'nass-from-secret', SOURCE_KEYS_SECRET_ARN: ARN });
    expect(config.FAS_API_KEY).toBeUndefined(); // an empty value means "not set", as in the environment
    expect(r.calls).toEqual([[ARN, 'eu-west-1']]);
  });

  it('accepts the secret as CDK creates it ({}): keyed sources are then skipped, not failed', async () => {
    const config = await loadConfigWithSecrets({ ...BASE, SOURCE_KEYS_SECRET_ARN: ARN }, reader('{}').read);
    expect(config.EIA_API_KEY).toBeUndefined();
  });

  it('reports an unreadable secret by ARN and error name only', async () => {
    const denied: SecretReader = async () => {
      throw Object.assign(new Error('User is not authorized to perform secretsmanager:GetSecretValue'), { name: 'AccessDeniedException' });
    };
    await expect(loadConfigWithSecrets({ ...BASE, SOURCE_KEYS_SECRET_ARN: ARN }, denied)).rejects.toThrow(
      `source keys secret ${ARN}: cannot be read (AccessDeniedException)`,
    );
  });

  it('checks the environment before calling AWS', async () => {
    const r = reader('{}');
    await expect(loadConfigWithSecrets({ ...BASE, SOURCE_KEYS_SECRET_ARN: 'not-an-arn' }, r.read)).rejects.toThrow(ConfigError);
    expect(r.calls).toEqual([]);
  });
});

describe('parseSourceKeys', () => {
  it('never echoes the secret text when it is not JSON', () => {
    const text = 'EIA_API_KEY=abc123secret';
    const err = (() => {
      try {
        parseSourceKeys(text, ARN);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err?.message).toMatch(/value is not JSON/);
    expect(err?.message).not.toContain('abc123secret');
  });

  it('names unknown keys (a typo would otherwise skip a source forever) and non-string values, without values', () => {
    expect(() => parseSourceKeys(JSON.stringify({ EIA_KEY: 'v1' }), ARN)).toThrow(
      /unknown keys EIA_KEY \(allowed: EIA_API_KEY, NASS_API_KEY, FAS_API_KEY, FRED_API_KEY\)/,
    );
    expect(() => parseSourceKeys(JSON.stringify({ NASS_API_KEY: 777999 }), ARN)).toThrow(/NASS_API_KEY: /);
    expect(() => parseSourceKeys(JSON.stringify({ NASS_API_KEY: 777999 }), ARN)).not.toThrow(/777999/);
    expect(() => parseSourceKeys('["EIA_API_KEY"]', ARN)).toThrow(/source keys secret/);
  });
});

describe('loadConfigWithStripeSecret (the Pro function)', () => {
  const STRIPE_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:commodity-data-prod/stripe-AbCdEf';
  it('adds the Stripe keys of the secret; "{}" (as created) leaves checkout off without failing', async () => {
    const r = reader(JSON.stringify({ STRIPE_SECRET_KEY: 'sk_live_x', STRIPE_WEBHOOK_SECRET: 'whsec_y' }));
    const config = await loadConfigWithStripeSecret({ ...BASE, STRIPE_SECRET_ARN: STRIPE_ARN }, r.read);
    expect(config).toMatchObject({ STRIPE_SECRET_KEY: 'sk_live_x', STRIPE_WEBHOOK_SECRET: 'whsec_y' });
    expect(r.calls).toEqual([[STRIPE_ARN, 'eu-west-1']]);
    const empty = await loadConfigWithStripeSecret({ ...BASE, STRIPE_SECRET_ARN: STRIPE_ARN }, reader('{}').read);
    expect(empty.STRIPE_SECRET_KEY).toBeUndefined();
  });

  it('names the problem of a secret that is not the expected JSON, without echoing its value', async () => {
    await expect(loadConfigWithStripeSecret({ ...BASE, STRIPE_SECRET_ARN: STRIPE_ARN }, reader('sk_live_plain').read)).rejects.toThrow(/not JSON/);
    await expect(loadConfigWithStripeSecret({ ...BASE, STRIPE_SECRET_ARN: STRIPE_ARN }, reader('{"STRIPE_KEY":"sk_live_q"}').read)).rejects.not.toThrow(
      /sk_live_q/,
    );
  });
});
