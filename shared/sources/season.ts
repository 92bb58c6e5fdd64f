/**
 * Sources that publish in a season (NASS Crop Progress: April to November). Between two seasons
 * nothing is released, so "no run and no new figure for four months" is the schedule, not a
 * failure: such a source is judged as of the end of its last release's allowance, and GET /health
 * says it is off season with its next release. Its stale alarm (fed by ./source-freshness.ts)
 * therefore stays quiet all winter, and still fires when the season's last release was missed.
 * Pure: the dates come from the publisher calendar (shared/calendar). Kept small: it is in the
 * snapshot bundle, which is at its size limit.
 */
import { nextReleaseOf, PUBLISHER_CALENDARS, type PublisherCalendar } from '../calendar';
import { addDays } from '../dates';
import type { ReleaseSchedule } from './types';

const DAY_MS = 86_400_000;
/** A pause between two releases longer than this (30 days) is a season's end; holiday shifts move a release by days. */
const SEASON_GAP_MS = 30 * DAY_MS;

interface OffSeason {
  /** The season's last release, before now. */
  last_release_at: string;
  /** The first release of the next season; null when none is scheduled within 400 days. */
  next_release_at: string | null;
  /** What GET /health says. */
  text: string;
}

/** The latest release instant before `iso` within the 400 days before it, or null. */
const previousRelease = (cal: PublisherCalendar, iso: string): string | null => {
  let last: string | null = null;
  for (const p of cal.periodsAround(addDays(iso.slice(0, 10), -400), iso.slice(0, 10))) {
    const at = cal.releaseOf(p)?.at;
    if (at && at < iso && !(last && last > at)) last = at;
  }
  return last;
};

/**
 * Whether a seasonal source is between seasons at `now`: its schedule names months, and the gap
 * from its last release to its next is longer than 30 days. Within a day of a season's first
 * release (its run's grace) it still is. Null in season and for sources that publish all year.
 * @example offSeasonOf(findRelease('usda-nass-crop-progress')!.schedule, new Date('2027-01-15T12:00:00Z'))
 *   // { last_release_at: '2026-11-30T21:00:00.000Z', next_release_at: '2027-04-05T20:00:00.000Z', text: 'off season …' }
 */
const offSeasonOf = (schedule: ReleaseSchedule, now: Date): OffSeason | null => {
  if (!schedule.months) return null;
  const cal = PUBLISHER_CALENDARS[schedule.calendar];
  const gap = (a: string | null, b: string | null) => !a || !b || Date.parse(b) - Date.parse(a) > SEASON_GAP_MS;
  let last = previousRelease(cal, now.toISOString());
  let next = nextReleaseOf(cal, now)?.at ?? null;
  if (!last) return null;
  const before = previousRelease(cal, last);
  // The season's first release, less than a day ago: still judged as of the last season's end.
  if (now.getTime() - Date.parse(last) < DAY_MS && before && gap(before, last)) [last, next] = [before, last];
  return gap(last, next)
    ? { last_release_at: last, next_release_at: next, text: `off season: no release from ${last} until ${next ?? 'none is scheduled'}` }
    : null;
};

/**
 * The instant a source's runs and data are judged at: now in season; between seasons, the end of
 * its last release's allowance (that release plus max_age_h), so a missed last release still shows.
 */
const judgedAt = (season: OffSeason | null, maxAgeHours: number, now: Date): Date =>
  season ? new Date(Math.min(now.getTime(), Date.parse(season.last_release_at) + maxAgeHours * 3_600_000)) : now;

export { offSeasonOf, judgedAt };
export type { OffSeason };
