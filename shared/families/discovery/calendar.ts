/** The release calendar: every source's next release, from the registry's schedules. */
import { SOURCES } from '../../sources/registry';
import { nextRelease } from '../../sources/schedule';

/** Pure: sources sorted by their next release after `now` (those with none last). */
const buildCalendar = (now: Date) => {
  const releases = SOURCES.map((s) => ({
    source: s.id,
    name: s.name,
    feeds: s.feeds,
    schedule: s.schedule.description,
    time_zone: s.schedule.timeZone,
    next_release_at: nextRelease(s.schedule, now)?.toISOString() ?? null,
    url: s.url,
  })).sort((a, b) => (a.next_release_at ?? '9999').localeCompare(b.next_release_at ?? '9999'));
  return { as_of: now.toISOString(), releases };
};

export { buildCalendar };
