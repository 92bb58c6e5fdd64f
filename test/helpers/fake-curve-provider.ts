/**
 * A fake licensed curve provider for the CurveSource seam tests. Answers per root:
 * CL: three contracts; NG: one contract; HG: none (null); GC: throws; SI: quotes the wrong unit;
 * ZC: contracts out of order; anything else: null.
 */
import type { CurveProviderFactory, CurveSource } from '../../shared/sources/curve-source';

const FAKE_PROVIDER_ID = 'fake-licensed';
const FAKE_RETRIEVED_AT = '2025-06-16T20:15:00.000Z';

/** Settlements of the fake CL curve, front first (synthetic figures, not market data). */
const FAKE_CL = [
  { contract: 'CLN25', month: '2025-07', value: 71.77, as_of: '2025-06-16', observed_at: '2025-06-16T19:30:00.000Z' },
  { contract: 'CLQ25', month: '2025-08', value: 70.52, as_of: '2025-06-16', observed_at: '2025-06-16T19:30:00.000Z' },
  { contract: 'CLU25', month: '2025-09', value: 69.4, as_of: '2025-06-16', observed_at: null },
];

interface FakeProviderOptions {
  /** Every call, for asserting that the read cache spares the provider. */
  calls?: string[];
}

const fakeCurveProvider =
  (opts: FakeProviderOptions = {}): CurveProviderFactory =>
  (settings) => {
    if (!settings.apiKey) throw new Error('CURVE_PROVIDER_API_KEY is required');
    const source: CurveSource = {
      id: FAKE_PROVIDER_ID,
      name: 'Fake Licensed Futures Data (test double)',
      licenseTag: 'licensed: redistribution per provider agreement (test)',
      url: settings.url ?? null,
      curve: async (root) => {
        opts.calls?.push(root);
        const quote = (unit: string, contracts: unknown[]) => ({ root, unit, contracts, retrieved_at: FAKE_RETRIEVED_AT });
        switch (root) {
          case 'CL':
            return quote('USD/bbl', FAKE_CL);
          case 'NG':
            return quote('USD/MMBtu', [{ contract: 'NGN25', month: '2025-07', value: 3.89, as_of: '2025-06-16', observed_at: null }]);
          case 'GC':
            throw new Error('connection reset by provider');
          case 'SI':
            return quote('USD/kg', [{ contract: 'SIN25', month: '2025-07', value: 1180, as_of: '2025-06-16', observed_at: null }]);
          case 'ZC':
            return quote(
              'USD/bu',
              [...FAKE_CL].reverse().map((c) => ({ ...c, contract: c.contract.replace('CL', 'ZC') })),
            );
          default:
            return null;
        }
      },
    };
    return source;
  };

export { FAKE_PROVIDER_ID, FAKE_RETRIEVED_AT, fakeCurveProvider };
