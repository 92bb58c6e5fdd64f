/**
 * Reads of the curve family: a root's indicative curve from the configured CurveSource, as
 * observations, through the read cache (freshness class `delayed`).
 */
import { FUTURES_ROOTS, INSTRUMENTS, type Instrument } from '../../catalog/instruments';
import type { Services } from '../../services';
import { BadGatewayError, NotFoundError } from '../../errors/errors';
import type { Observation } from '../../observation/schema';
import { CACHE_TTL_S, type CacheRead } from '../../store/read-cache';
import { CurveProviderError, curveSourceFor, fetchCurve, type CurveQuote, type CurveSource } from '../../sources/curve-source';

/** Curve observations are delayed, indicative quotes from a licensed provider, never official. */
const CURVE_FRESHNESS = 'delayed' as const;
const CURVE_QUALITY = 'indicative' as const;

/** The catalog instrument of a futures root, or a 404 UNKNOWN_ROOT listing the roots. */
const requireRoot = (root: string): Instrument => {
  const instrument = FUTURES_ROOTS.includes(root) ? INSTRUMENTS.find((i) => i.futuresRoot === root) : undefined;
  if (!instrument) {
    throw new NotFoundError('UNKNOWN_ROOT', `unknown futures root ${JSON.stringify(root)}`, { valid: FUTURES_ROOTS });
  }
  return instrument;
};

/** Pure: one contract of a validated curve as a served observation. */
const contractObservation = (source: CurveSource, quote: CurveQuote, index: number, cache: { hit: boolean; ttlS: number }): Observation => {
  const c = quote.contracts[index]!;
  return {
    instrument: c.contract,
    value: c.value,
    unit: quote.unit,
    as_of: c.as_of,
    observed_at: c.observed_at,
    freshness_class: CURVE_FRESHNESS,
    quality: CURVE_QUALITY,
    derived: false,
    source: { name: source.name, series_id: c.contract, url: source.url },
    license_tag: source.licenseTag,
    provenance: { retrieved_at: quote.retrieved_at, cache_hit: cache.hit, cache_ttl_s: cache.ttlS },
    published_at: null,
    next_release_at: null,
    attributes: { root: quote.root, contract_month: c.month, position: index + 1 },
  };
};

interface LoadedCurve {
  source: CurveSource;
  instrument: Instrument;
  /** Front month first. */
  observations: Observation[];
}

/**
 * The configured source (null while INDICATIVE_FUTURES is off). A misconfiguration is a
 * ConfigError here too, although the curve function already refused to start on it.
 */
const curveSource = (services: Services): CurveSource | null => curveSourceFor(services.config);

/**
 * A root's curve as observations, or null when the provider has none for it.
 * @throws BadGatewayError when the provider fails or answers an invalid curve
 */
const loadCurve = async (services: Services, source: CurveSource, instrument: Instrument): Promise<LoadedCurve | null> => {
  const root = instrument.futuresRoot!;
  let read: CacheRead<CurveQuote | null>;
  try {
    read = await services.cache.get(`curve:${source.id}:${root}`, CACHE_TTL_S[CURVE_FRESHNESS], () => fetchCurve(source, root, instrument.unit));
  } catch (err) {
    if (err instanceof CurveProviderError) throw new BadGatewayError(err.message, { provider: source.id, root }, { cause: err });
    throw err;
  }
  const quote = read.value;
  if (!quote) return null;
  return {
    source,
    instrument,
    observations: quote.contracts.map((_, i) => contractObservation(source, quote, i, { hit: read.hit, ttlS: read.ttlS })),
  };
};

export { CURVE_FRESHNESS, CURVE_QUALITY, requireRoot, curveSource, loadCurve };
export type { LoadedCurve };
