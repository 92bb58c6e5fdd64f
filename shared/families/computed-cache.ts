/**
 * Reuse of computed answers. The compact views of the bundles (snapshots, decision packs) are
 * pure functions of reads that the ReadCache already keeps for at least 300 s (eod), so
 * recomputing them per call only burns CPU: a warm process reuses one for COMPUTED_TTL_S. Their
 * staleness flags are then at most that old. Full views carry per-call provenance and are always
 * computed.
 */
import type { Services } from '../services';

const COMPUTED_TTL_S = 60;

/** The computed value under `key`, built at most once per COMPUTED_TTL_S in this process. */
const computedOnce = async <T>(services: Services, key: string, build: () => Promise<T>): Promise<T> =>
  (await services.cache.get(`computed:${key}`, COMPUTED_TTL_S, build)).value;

export { computedOnce };
