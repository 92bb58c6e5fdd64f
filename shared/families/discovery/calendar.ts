/**
 * The release calendar: every source's next release, from the registry's schedules and the
 * publisher calendars (shared/calendar), the same functions that give published_at.
 */
import { SOURCES } from '../../sources/registry';
import { nextRelease } from '../../sources/schedule';

/** Pure: sources sorted by their next release after `now` (those with none last). */
const buildCalendar = (now: Date) => {
  const releases = SOURCES.map((s) => {
    const next = nextRelease(s.schedule, now);
    return {
      source: s.id,
      name: s.name,
      feeds: s.feeds,
      schedule: s.releaseText,
      time_zone: s.schedule.timeZone,
      next_release_at: next?.at ?? null,
      // Beyond the publisher schedule verified here, or a check window rather than a published date.
      estimated: next?.estimated ?? true,
      shifted_by: next?.shifted_by ?? null,
      url: s.url,
    };
  }).sort((a, b) => (a.next_release_at ?? '9999').localeCompare(b.next_release_at ?? '9999'));
  return { as_of: now.toISOString(), releases };
};

export { buildCalendar };
