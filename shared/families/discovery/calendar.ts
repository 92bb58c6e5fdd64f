/** The release calendar: every source's next release, from the registry's schedules. */
import { SOURCES } from '../../sources/registry';
import { nextReleaseDay } from '../../sources/schedule';

/** Pure: sources sorted by their next release after `now` (those with none last). */
const buildCalendar = (now: Date) => {
  const releases = SOURCES.map((s) => {
    const next = nextReleaseDay(s.schedule, now);
    return {
      source: s.id,
      name: s.name,
      feeds: s.feeds,
      schedule: s.schedule.description,
      time_zone: s.schedule.timeZone,
      next_release_at: next?.at.toISOString() ?? null,
      next_release_shifted: next?.day.shifted ?? false,
      // Date windows (WASDE, USGS) stand for a day the publisher announces: an estimate until it does.
      next_release_estimated: next ? next.day.estimated || !s.schedule.weekdays : true,
      url: s.url,
    };
  }).sort((a, b) => (a.next_release_at ?? '9999').localeCompare(b.next_release_at ?? '9999'));
  return { as_of: now.toISOString(), releases };
};

export { buildCalendar };
