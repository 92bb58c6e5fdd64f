/**
 * Sources that publish in a season (NASS Crop Progress: April to November). Between two seasons
 * nothing is released, so "no run and no new figure for four months" is the schedule, not a
 * failure: such a source is judged as of the end of its last release's allowance, and GET /health
 * says it is off season with its next release. Its stale alarm (fed by ./source-freshness.ts)
 * therefore stays quiet all winter, and still fires when the season's last release was missed.
 * Pure: the dates come from the publisher calendar (shared/calendar).
 */
import { nextReleaseOf, PUBLISHER_CALENDARS, type Release } from '../calendar';
import { addDays } from '../dates';
import type { ReleaseSchedule } from '../sources/types';

/** A pause between two releases longer than this is a season's end (holiday shifts move a release by days). */
const SEASON_GAP_DAYS = 30;
const DAY_MS = 86_400_000;
/** After a season's first release, a day for its run to read it before the source is judged in season. */
const START_GRACE_MS = DAY_MS;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

interface OffSeason {
  /** The season's last release, before now. */
  last_release_at: string;
  /** The first release of the next season; null when none is scheduled within 400 days. */
  next_release_at: string | null;
  /** What GET /health says. */
  text: string;
}

/** The latest release at or before `now` within the last 400 days, or null. */
const previousRelease = (schedule: ReleaseSchedule, now: Date): Release | null => {
  const cal = PUBLISHER_CALENDARS[schedule.calendar];
  const iso = now.toISOString();
  const day = iso.slice(0, 10);
  let last: Release | null = null;
  for (const p of cal.periodsAround(addDays(day, -400), day)) {
    const r = cal.releaseOf(p);
    if (r && r.at <= iso && (!last || r.at > last.at)) last = r;
  }
  return last;
};

/**
 * Whether a seasonal source is between seasons at `now`: its schedule names months, and the gap
 * from its last release to its next is longer than SEASON_GAP_DAYS. Null in season and for
 * sources that publish all year.
 * @example offSeasonOf(findRelease('usda-nass-crop-progress')!.schedule, new Date('2027-01-15T12:00:00Z'))
 *   // { last_release_at: '2026-11-30T21:00:00.000Z', next_release_at: '2027-04-05T20:00:00.000Z', text: 'off season …' }
 */
const offSeasonOf = (schedule: ReleaseSchedule, now: Date): OffSeason | null => {
  if (!schedule.months?.length) return null;
  const gap = (a: Release, b: Pick<Release, 'at'>) => Date.parse(b.at) - Date.parse(a.at) > SEASON_GAP_DAYS * DAY_MS;
  let last = previousRelease(schedule, now);
  if (!last) return null;
  let next: Pick<Release, 'at'> | null = nextReleaseOf(PUBLISHER_CALENDARS[schedule.calendar], now);
  // The first release of a season, less than a day ago: still judged as of the last season's end.
  if (now.getTime() - Date.parse(last.at) < START_GRACE_MS) {
    const before = previousRelease(schedule, new Date(Date.parse(last.at) - 1));
    if (before && gap(before, last)) [last, next] = [before, last];
  }
  if (next && !gap(last, next)) return null;
  const season = `${MONTHS[schedule.months[0]! - 1]} to ${MONTHS[schedule.months.at(-1)! - 1]}`;
  return {
    last_release_at: last.at,
    next_release_at: next?.at ?? null,
    text: `off season: it publishes ${season}; the season's last release was ${last.at}, the next is ${next?.at ?? 'not scheduled'}. Judged as of the end of its last release's allowance, not today.`,
  };
};

/**
 * The instant a source's runs and data are judged at: now in season; between seasons, the end of
 * its last release's allowance (that release plus max_age_h), so a missed last release still shows.
 */
const judgedAt = (season: OffSeason | null, maxAgeHours: number, now: Date): Date =>
  season ? new Date(Math.min(now.getTime(), Date.parse(season.last_release_at) + maxAgeHours * 3_600_000)) : now;

export { offSeasonOf, judgedAt, SEASON_GAP_DAYS };
export type { OffSeason };
