import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../shared/config';

describe('loadConfig', () => {
  it('applies defaults and freezes the result', () => {
    const c = loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c' });
    expect(c).toMatchObject({ STAGE: 'dev', X402_ENFORCE: false, X402_NETWORK: 'eip155:84532', INDICATIVE_FUTURES: false });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it.each([
    ['1', true],
    ['true', true],
    ['ON', true],
    ['0', false],
    ['false', false],
    ['', false],
  ])('reads X402_ENFORCE=%j as %s', (v, expected) => {
    expect(loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', X402_ENFORCE: v }).X402_ENFORCE).toBe(expected);
  });

  it('lists every problem in one error', () => {
    try {
      loadConfig({ X402_NETWORK: 'eip155:1', X402_PAY_TO: 'me' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      for (const key of ['OBSERVATIONS_TABLE', 'CREDITS_TABLE', 'X402_NETWORK', 'X402_PAY_TO']) expect(problems).toContain(key);
    }
  });
});
