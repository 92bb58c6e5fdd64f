import { execFile } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../shared/config';
import {
  CurveProviderError,
  checkCurveConfig,
  curveSourceFor,
  fetchCurve,
  registerCurveProvider,
  unregisterCurveProvider,
} from '../../shared/sources/curve-source';
import { FAKE_PROVIDER_ID, fakeCurveProvider } from '../helpers/fake-curve-provider';

const config = (env: Record<string, string> = {}) => loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', ...env });
const ON = { INDICATIVE_FUTURES: 'on' };

describe('CurveSource seam: configuration', () => {
  afterEach(() => unregisterCurveProvider(FAKE_PROVIDER_ID));

  it('is off by default: no source, no error', () => {
    expect(curveSourceFor(config())).toBeNull();
    expect(() => checkCurveConfig(config())).not.toThrow();
    // a provider named while the flag is off is not started
    expect(curveSourceFor(config({ CURVE_PROVIDER: 'anything' }))).toBeNull();
  });

  it('refuses to start with the flag on and no provider, saying what to set', () => {
    const err = (() => {
      try {
        checkCurveConfig(config(ON));
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.message).toMatch(/INDICATIVE_FUTURES is on but CURVE_PROVIDER is not set/);
    expect(err!.message).toMatch(/no licensed provider is bundled/);
  });

  it('refuses an unknown provider id, listing the registered ones', () => {
    registerCurveProvider(FAKE_PROVIDER_ID, fakeCurveProvider());
    expect(() => checkCurveConfig(config({ ...ON, CURVE_PROVIDER: 'nope' }))).toThrow(
      new RegExp(`CURVE_PROVIDER=nope is not a registered curve provider \\(registered providers: ${FAKE_PROVIDER_ID}\\)`),
    );
  });

  it('refuses a provider that cannot start (missing key), with its reason', () => {
    registerCurveProvider(FAKE_PROVIDER_ID, fakeCurveProvider());
    expect(() => checkCurveConfig(config({ ...ON, CURVE_PROVIDER: FAKE_PROVIDER_ID }))).toThrow(/cannot start: CURVE_PROVIDER_API_KEY is required/);
  });

  it('starts a registered provider once per configuration', () => {
    registerCurveProvider(FAKE_PROVIDER_ID, fakeCurveProvider());
    const c = config({ ...ON, CURVE_PROVIDER: FAKE_PROVIDER_ID, CURVE_PROVIDER_API_KEY: 'k', CURVE_PROVIDER_URL: 'https://curves.example.com/v1' });
    const s = curveSourceFor(c)!;
    expect(s).toMatchObject({ id: FAKE_PROVIDER_ID, url: 'https://curves.example.com/v1' });
    expect(curveSourceFor(c)).toBe(s);
  });
});

describe('CurveSource seam: provider answers are validated', () => {
  const source = fakeCurveProvider()({ url: undefined, apiKey: 'k', fetch });

  it('passes a well-formed curve through', async () => {
    const q = await fetchCurve(source, 'CL', 'USD/bbl');
    expect(q!.contracts.map((c) => c.contract)).toEqual(['CLN25', 'CLQ25', 'CLU25']);
  });

  it('returns null when the provider has no curve', async () => {
    expect(await fetchCurve(source, 'HG', 'USD/metric ton')).toBeNull();
  });

  it.each([
    ['a provider failure', 'GC', 'USD/oz', /failed for GC: connection reset/],
    ['a unit other than the catalog unit', 'SI', 'USD/oz', /quotes SI in USD\/kg, not the catalog unit USD\/oz/],
    ['contracts out of order', 'ZC', 'USD/bu', /front month first/],
  ])('refuses %s as a CurveProviderError', async (_n, root, unit, msg) => {
    await expect(fetchCurve(source, root, unit)).rejects.toSatisfy((e: unknown) => e instanceof CurveProviderError && msg.test((e as Error).message));
  });

  it('refuses a curve of another root and a non-finite price', async () => {
    const liar = { ...source, curve: async () => ({ root: 'BZ', unit: 'USD/bbl', contracts: [], retrieved_at: '2025-06-16T20:00:00Z' }) };
    await expect(fetchCurve(liar, 'CL', 'USD/bbl')).rejects.toThrow(/answered root BZ for CL/);
    const nan = {
      ...source,
      curve: async () => ({
        root: 'CL',
        unit: 'USD/bbl',
        retrieved_at: '2025-06-16T20:00:00Z',
        contracts: [{ contract: 'CLN25', month: '2025-07', value: Number.NaN, as_of: '2025-06-16', observed_at: null }],
      }),
    };
    await expect(fetchCurve(nan, 'CL', 'USD/bbl')).rejects.toThrow(/invalid curve for CL: contracts\.0\.value/);
  });
});

describe('curve function cold start (a fresh process with the Lambda environment)', () => {
  /** Imports the Lambda entry in a new Node process, as a cold start does; resolves to its exit and stderr. */
  const coldStart = (env: Record<string, string>) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', '-e', "import('./functions/curve.ts').then((m) => { if (typeof m.handler !== 'function') process.exit(3); })"],
        { env: { PATH: process.env.PATH ?? '', POWERTOOLS_LOG_LEVEL: 'SILENT', OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', ...env } },
        (_err, _stdout, stderr) => resolve({ code: child.exitCode, stderr }),
      );
    });

  it('fails to initialise with INDICATIVE_FUTURES on and no CURVE_PROVIDER', async () => {
    const { code, stderr } = await coldStart({ INDICATIVE_FUTURES: '1' });
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/invalid configuration:[\s\S]*CURVE_PROVIDER is not set/);
  });

  it('initialises with the flag off', async () => {
    expect(await coldStart({ INDICATIVE_FUTURES: '0' })).toEqual({ code: 0, stderr: '' });
  });
});
