/**
 * Per-source freshness: each source's last success against its cadence. /health serves it, and
 * snapshots reuse it for their staleness summary.
 */
import { addDays, isoDate } from '../dates';
import { judgedAt, offSeasonOf } from '../sources/season';
import { LAG_TEXT, MAX_LAG_DAYS } from '../observation/staleness';
import type { Services } from '../services';
import { SOURCE_RELEASES } from '../sources/releases';
import { nextRelease } from '../sources/schedule';
import type { SourceRelease } from '../sources/types';
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
  /** Prices held in quarantine (not served) until confirmed or released; kept across failed runs. */
  quarantined: Array<{ series: string; as_of: string; value: number; reason: string }>;
  /** The newest as_of the source has written. */
  newest_as_of: string | null;
  /** Why it is stale (its runs, its data, or both); null when it is not. */
  stale_reason: string | null;
  /** Between its seasons (../sources/season.ts): says so, with the next release; null otherwise. */
  off_season: string | null;
}

type HealthStatus = 'ok' | 'degraded' | 'down';

/**
 * Pure: the freshness of one source at `now`: stale when its runs or its data are older than allowed.
 * Never succeeded counts as stale. A status answered at a past instant (`as_known_at`) records no
 * runs then, so the source is judged by its data alone.
 */
const freshnessOf = (def: SourceRelease, status: SourceRunStatus | null, now: Date): SourceFreshness => {
  const lastSuccess = status?.last_success_at ?? null;
  const age = lastSuccess ? Math.max(0, Math.round((now.getTime() - Date.parse(lastSuccess)) / 1000)) : null;
  // Between seasons, runs and data are judged at the end of the last release's allowance, not now.
  const season = offSeasonOf(def.schedule, now);
  const at = judgedAt(season, def.maxAgeHours, now);
  const runStale = status?.as_known_at === undefined && (!lastSuccess || at.getTime() - Date.parse(lastSuccess) > def.maxAgeHours * 3_600_000);
  // The data itself: a successful run can still leave the newest figure older than its cadence
  // allows, by the one rule of every view (annual USGS figures included).
  const newest = status?.data_newest ?? null;
  const lagDays = MAX_LAG_DAYS[def.cadence];
  const dataStale = newest !== null && lagDays !== undefined && addDays(newest.as_of, lagDays) < isoDate(at);
  const nothingYet = status?.as_known_at !== undefined && newest === null;
  const reasons = [
    runStale ? (age === null ? 'no successful run yet' : `last successful run ${Math.round(age / 3600)} h ago (more than ${def.maxAgeHours} h)`) : null,
    dataStale ? `its newest figure is dated ${newest!.as_of}, more than ${lagDays} days ago (${def.cadence} data)` : null,
    nothingYet ? `nothing of it was published by ${status!.as_known_at}` : null,
  ].filter((r): r is string => r !== null);
  return {
    id: def.id,
    name: def.name,
    feeds: def.feeds,
    last_attempt_at: status?.last_attempt_at ?? null,
    last_success_at: lastSuccess,
    age_s: age,
    max_age_h: def.maxAgeHours,
    stale: runStale || dataStale || nothingYet,
    last_error: status?.last_error ?? null,
    next_release_at: nextRelease(def.schedule, now)?.at ?? null,
    quarantined: (status?.quarantined ?? []).map(({ series, as_of, value, reason }) => ({ series, as_of, value, reason })),
    newest_as_of: newest?.as_of ?? null,
    stale_reason: reasons.length ? reasons.join('; ') : null,
    off_season: season?.text ?? null,
  };
};

/** The rule freshnessOf applies, stated where its verdicts are served. */
const SOURCE_STALE_RULE = `a source is stale when its last successful run is older than its max_age_h (its cadence plus grace) or it never succeeded, or when its newest figure (newest_as_of) is older than its cadence allows (${LAG_TEXT})`;

/** The rule at a past instant (as_known_at): no runs are recorded then. */
const SOURCE_STALE_RULE_PAST = `at as_known_at runs are not judged: a source is stale when its newest figure then is older than its cadence allows (${LAG_TEXT}) or it had none`;

/** Pure: ok when nothing is stale, down when everything is, degraded in between. */
const overallStatus = (sources: readonly SourceFreshness[]): HealthStatus => {
  const stale = sources.filter((s) => s.stale).length;
  return stale === 0 ? 'ok' : stale === sources.length ? 'down' : 'degraded';
};

/** Freshness of the given sources (default: all), read from their run status. */
const loadFreshness = async (services: Services, ids?: readonly string[]): Promise<SourceFreshness[]> => {
  const defs = ids ? SOURCE_RELEASES.filter((s) => ids.includes(s.id)) : SOURCE_RELEASES;
  const now = services.now();
  return Promise.all(defs.map(async (def) => freshnessOf(def, await services.reader.runStatus(def.id), now)));
};

export { overallStatus, loadFreshness, SOURCE_STALE_RULE, SOURCE_STALE_RULE_PAST };
export type { SourceFreshness, HealthStatus };
