/**
 * The CurveSource seam: where a licensed futures-curve provider plugs in.
 *
 * No primary source publishes current futures curves (EIA stopped its NYMEX contract 1-4
 * series in April 2024), so /v1/curve/{root} and /v1/spreads/calendar/{root} are free stubs
 * while INDICATIVE_FUTURES is off. With the flag on, CURVE_PROVIDER must name a registered
 * provider; otherwise the curve function refuses to start (checkCurveConfig at cold start).
 *
 * A provider is a factory registered under an id. None ships with the service: a licensed
 * provider's adapter registers itself here (one line, like shared/sources/adapters.ts), and
 * the tests register a fake. Whatever a provider returns is validated by CurveQuoteSchema
 * before anything is served from it.
 */
import * as z from '../zod';
import { ConfigError, type Config } from '../config';
import { IsoDateSchema, IsoDateTimeSchema } from '../observation/schema';
import type { FetchLike } from './types';

/** One futures contract on a provider's curve, in the catalog unit of its root. */
const CurveContractSchema = z.object({
  /** Exchange contract code, e.g. CLN25. */
  contract: z.string().check(z.regex(/^[A-Z0-9]{2,16}$/, 'contract code: upper-case letters and digits')),
  /** Delivery month, YYYY-MM. */
  month: z.string().check(z.regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected YYYY-MM')),
  /** Settlement (or last) price; finite (zod 4's number refuses Infinity and NaN). */
  value: z.number(),
  /** Trading date of the price. */
  as_of: IsoDateSchema,
  /** When the provider observed it, if it says. */
  observed_at: z.nullable(IsoDateTimeSchema),
});
type CurveContract = z.infer<typeof CurveContractSchema>;

/** A provider's curve of one root: contracts front month first, delivery months strictly ascending. */
const CurveQuoteSchema = z
  .object({
    root: z.string().check(z.minLength(1)),
    unit: z.string().check(z.minLength(1)),
    contracts: z.array(CurveContractSchema).check(z.maxLength(240)),
    /** When the provider answered, ISO date-time. */
    retrieved_at: IsoDateTimeSchema,
  })
  .check(
    z.refine((q) => q.contracts.every((c, i) => i === 0 || c.month > q.contracts[i - 1]!.month), {
      message: 'contracts must be ordered front month first, one per delivery month',
      path: ['contracts'],
    }),
  );
type CurveQuote = z.infer<typeof CurveQuoteSchema>;

/** A licensed curve provider, as the curve family sees it. */
interface CurveSource {
  /** Registered id (the CURVE_PROVIDER value). */
  readonly id: string;
  /** Shown as `source.name` of every curve observation. */
  readonly name: string;
  /** The provider's license terms, as `license_tag`. */
  readonly licenseTag: string;
  /** A page describing the data, or null. */
  readonly url: string | null;
  /**
   * The current curve of a futures root (catalog code such as CL), or null when the provider
   * has none for it. The result is validated by CurveQuoteSchema.
   */
  curve(root: string, opts: { signal?: AbortSignal }): Promise<unknown>;
}

/** What a provider factory gets from the configuration (and the injected fetch). */
interface CurveProviderSettings {
  url: string | undefined;
  apiKey: string | undefined;
  fetch: FetchLike;
}

/** Builds a provider; throws an Error whose message says which setting is missing or wrong. */
type CurveProviderFactory = (settings: CurveProviderSettings) => CurveSource;

/** Registered providers by id. Empty in the product until a licensed provider is contracted. */
const CURVE_PROVIDERS = new Map<string, CurveProviderFactory>();

/** Registers a provider factory under the id CURVE_PROVIDER names. */
const registerCurveProvider = (id: string, factory: CurveProviderFactory): void => {
  CURVE_PROVIDERS.set(id, factory);
};

/** Removes a provider (tests). */
const unregisterCurveProvider = (id: string): void => {
  CURVE_PROVIDERS.delete(id);
};

/** A provider failed or answered something that is not a valid curve (the route maps it to 502). */
class CurveProviderError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CurveProviderError';
  }
}

/** How to turn the curves on, as stub bodies and configuration errors say it. */
const HOW_TO_ENABLE =
  'set INDICATIVE_FUTURES=on and CURVE_PROVIDER=<id of a registered licensed provider> ' +
  '(plus CURVE_PROVIDER_URL / CURVE_PROVIDER_API_KEY as that provider needs)';

const resolved = new WeakMap<Config, CurveSource | null>();

/**
 * The configured curve source, or null while INDICATIVE_FUTURES is off. One instance per
 * configuration (a warm Lambda reuses it).
 * @throws ConfigError when the flag is on and no usable provider is configured
 */
const curveSourceFor = (config: Config, fetchImpl: FetchLike = fetch): CurveSource | null => {
  if (resolved.has(config)) return resolved.get(config)!;
  let source: CurveSource | null = null;
  if (config.INDICATIVE_FUTURES) {
    const id = config.CURVE_PROVIDER;
    const known = [...CURVE_PROVIDERS.keys()];
    const registered = known.length ? known.join(', ') : 'none: no licensed provider is bundled';
    if (!id) {
      throw new ConfigError([
        `INDICATIVE_FUTURES is on but CURVE_PROVIDER is not set (registered providers: ${registered}); ${HOW_TO_ENABLE}, or turn INDICATIVE_FUTURES off`,
      ]);
    }
    const factory = CURVE_PROVIDERS.get(id);
    if (!factory) {
      throw new ConfigError([`CURVE_PROVIDER=${id} is not a registered curve provider (registered providers: ${registered})`]);
    }
    try {
      source = factory({ url: config.CURVE_PROVIDER_URL, apiKey: config.CURVE_PROVIDER_API_KEY, fetch: fetchImpl });
    } catch (err) {
      throw new ConfigError([`CURVE_PROVIDER=${id} cannot start: ${(err as Error).message}`]);
    }
  }
  resolved.set(config, source);
  return source;
};

/**
 * Cold-start check of the curve function (and of any function that serves curves): fails
 * start-up with a ConfigError when INDICATIVE_FUTURES is on without a usable provider.
 */
const checkCurveConfig = (config: Config): void => {
  curveSourceFor(config);
};

/**
 * Asks the provider for a root's curve and validates the answer.
 * @param unit the catalog unit the provider must quote in
 * @returns the curve, or null when the provider has none for this root
 * @throws CurveProviderError when the provider fails or answers an invalid curve
 */
const fetchCurve = async (source: CurveSource, root: string, unit: string, signal?: AbortSignal): Promise<CurveQuote | null> => {
  let raw: unknown;
  try {
    raw = await source.curve(root, { signal });
  } catch (err) {
    throw new CurveProviderError(`curve provider ${source.id} failed for ${root}: ${(err as Error).message ?? String(err)}`, { cause: err });
  }
  if (raw === null || raw === undefined) return null;
  const parsed = CurveQuoteSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new CurveProviderError(`curve provider ${source.id} answered an invalid curve for ${root}: ${issues}`);
  }
  if (parsed.data.root !== root) throw new CurveProviderError(`curve provider ${source.id} answered root ${parsed.data.root} for ${root}`);
  if (parsed.data.unit !== unit) {
    throw new CurveProviderError(`curve provider ${source.id} quotes ${root} in ${parsed.data.unit}, not the catalog unit ${unit}`);
  }
  return parsed.data;
};

export { HOW_TO_ENABLE, CurveProviderError, registerCurveProvider, unregisterCurveProvider, curveSourceFor, checkCurveConfig, fetchCurve };
export type { CurveContract, CurveQuote, CurveSource, CurveProviderSettings, CurveProviderFactory };
