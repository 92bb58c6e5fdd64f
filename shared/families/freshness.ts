/**
 * Per-source freshness: each source's last success against its cadence. /health serves it, and
 * snapshots reuse it for their staleness summary.
 */
import type { Services } from '../services';
import { SOURCES } from '../sources/registry';
import { nextRelease } from '../sources/schedule';
import type { SourceDef } from '../sources/types';
import type { SourceRunStatus } from '../store/observation-store';

interface SourceFreshness {
  id: string;
  name: string;
  feeds: string;
  last_attempt_at: string | null;
  last_success_at: string | null;
  /** Seconds since the last success; null when it never succeeded. */
  age_s: number | null;
  max_age_h: number;
  stale: boolean;
  last_error: string | null;
  next_release_at: string | null;
  /** Prices the last run held back as implausible (not served). */
  quarantined: NonNullable<SourceRunStatus['last_quarantined']>;
}

type HealthStatus = 'ok' | 'degraded' | 'down';

/** Pure: the freshness of one source at `now`. Never succeeded counts as stale. */
const freshnessOf = (def: SourceDef, status: SourceRunStatus | null, now: Date): SourceFreshness => {
  const lastSuccess = status?.last_success_at ?? null;
  const age = lastSuccess ? Math.max(0, Math.round((now.getTime() - Date.parse(lastSuccess)) / 1000)) : null;
  return {
    id: def.id,
    name: def.name,
    feeds: def.feeds,
    last_attempt_at: status?.last_attempt_at ?? null,
    last_success_at: lastSuccess,
    age_s: age,
    max_age_h: def.maxAgeHours,
    stale: age === null || age > def.maxAgeHours * 3600,
    last_error: status?.last_error ?? null,
    next_release_at: nextRelease(def.schedule, now)?.at ?? null,
    quarantined: status?.last_quarantined ?? [],
  };
};

/** Pure: ok when nothing is stale, down when everything is, degraded in between. */
const overallStatus = (sources: readonly SourceFreshness[]): HealthStatus => {
  const stale = sources.filter((s) => s.stale).length;
  return stale === 0 ? 'ok' : stale === sources.length ? 'down' : 'degraded';
};

/** Freshness of the given sources (default: all), read from their run status. */
const loadFreshness = async (services: Services, ids?: readonly string[]): Promise<SourceFreshness[]> => {
  const defs = ids ? SOURCES.filter((s) => ids.includes(s.id)) : SOURCES;
  const now = services.now();
  return Promise.all(defs.map(async (def) => freshnessOf(def, await services.reader.runStatus(def.id), now)));
};

export { overallStatus, loadFreshness };
export type { SourceFreshness, HealthStatus };
