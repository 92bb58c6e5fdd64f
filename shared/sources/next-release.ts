/**
 * next_release_at when answering: the publisher's next release after the moment of the answer,
 * from its release calendar (ingestion used to freeze it, so every stored point kept a date that
 * was soon in the past). The composition root hands this to the read path.
 */
import type { NextReleaseOf } from '../store/observation-reader';
import { findRelease } from './releases';
import { nextRelease } from './schedule';

/** How long a source without a next release (none in 400 days) is not asked again. */
const RETRY_MS = 3_600_000;

/**
 * The next release of a source after an instant, memoised per source: the answer for `t` holds for
 * every instant from `t` until that release, so a hot read path computes it about once a week.
 * @example createNextReleaseOf()('usgs-mcs', new Date('2026-11-26T00:00:00Z')) // '2027-01-29T17:00:00.000Z'
 */
const createNextReleaseOf = (): NextReleaseOf => {
  const memo = new Map<string, { from: number; until: number; at: string | null }>();
  return (sourceId, now) => {
    const t = now.getTime();
    const held = memo.get(sourceId);
    if (held && held.from <= t && t < held.until) return held.at;
    const def = findRelease(sourceId);
    const at = def ? (nextRelease(def.schedule, now)?.at ?? null) : null;
    memo.set(sourceId, { from: t, until: at ? Date.parse(at) : t + RETRY_MS, at });
    return at;
  };
};

export { createNextReleaseOf };
