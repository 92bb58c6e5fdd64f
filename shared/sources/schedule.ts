/**
 * Release-schedule arithmetic of the registry: the next release of a source, the release of one
 * reference period (published_at), and the EventBridge Scheduler expressions CDK deploys. A
 * schedule with a publisher calendar takes its dates from shared/calendar (holiday shifts
 * included), so /v1/calendar, published_at and the deployed schedules cannot disagree.
 */
import { nextReleaseOf, PUBLISHER_CALENDARS, zonedToUtc, type PublisherId, type Release, type Slot } from '../calendar';
import type { ReleaseSchedule } from './types';

/** Default minutes between a scheduled release and the ingestion run that reads it. */
const INGEST_LAG_MINUTES = 15;

const WEEKDAY_NAMES = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'] as const;

/** A next release as /v1/calendar and /health serve it. */
interface ScheduledRelease {
  at: string;
  /** True when no publisher calendar verified the date (see shared/calendar). */
  estimated: boolean;
  /** The holiday or announcement that moved it off its regular slot; null when none. */
  shifted_by: string | null;
}

/**
 * The first release strictly after `after`, or null when none falls in the next 400 days.
 * @example nextRelease(findSource('eia-gas-storage')!.schedule, new Date('2026-11-21T00:00:00Z')) // { at: '2026-11-25T17:00:00.000Z', estimated: false, shifted_by: 'Thanksgiving Day' }
 */
const nextRelease = (s: ReleaseSchedule, after: Date): ScheduledRelease | null => {
  const r = nextReleaseOf(PUBLISHER_CALENDARS[s.calendar], after);
  return r && { at: r.at, estimated: r.estimated, shifted_by: r.shifted_by };
};

/**
 * The release of one reference period (the as_of of a week, report or day) under the source's
 * publisher calendar, or null when the period has none.
 * @example releaseOfPeriod(findSource('eia-petroleum')!.schedule, '2026-09-04')?.at // '2026-09-10T16:00:00.000Z' (Labor Day week: Thursday 12:00 EDT)
 */
const releaseOfPeriod = (s: ReleaseSchedule, period: string): Release | null => PUBLISHER_CALENDARS[s.calendar].releaseOf(period);

/**
 * The registry schedule of a weekly publisher calendar: its regular slot, in its time zone.
 * @param description how a person would say it
 */
const calendarSchedule = (id: PublisherId, extra: Partial<ReleaseSchedule> = {}): ReleaseSchedule => {
  const cal = PUBLISHER_CALENDARS[id];
  const regular = cal.slots!.regular;
  return { calendar: id, weekdays: regular.weekdays, hour: regular.hour, minute: regular.minute, timeZone: cal.timeZone, ...extra };
};

/** The cron of one run: the slot's time plus the ingestion lag, on its days. */
const cronOf = (s: ReleaseSchedule): string => {
  const at = s.hour * 60 + s.minute + (s.ingestLagMinutes ?? INGEST_LAG_MINUTES);
  // A lag that crosses midnight would move the run to another day and break the day fields.
  if (at >= 24 * 60) throw new Error(`ingestion lag of the ${s.calendar} runs crosses midnight`);
  const dow = s.dates || !s.weekdays ? '?' : s.weekdays.map((w) => WEEKDAY_NAMES[w - 1]).join(',');
  const dom = s.dates ? '*' : s.monthDays ? s.monthDays.join(',') : dow === '?' ? '*' : '?';
  const month = s.dates || !s.months ? '*' : s.months.join(',');
  return `cron(${at % 60} ${Math.floor(at / 60)} ${dom} ${month} ${dow} *)`;
};

/**
 * EventBridge Scheduler cron expression (evaluated in `s.timeZone`) of the regular run: the
 * release time plus the ingestion lag. Date-list and day-window schedules run daily in their
 * window; the ingestion is idempotent, so a day without a release writes the same items again.
 */
const scheduleExpression = (s: ReleaseSchedule): string => cronOf(s);

/**
 * Every run CDK deploys for a schedule: the regular run, then one per slot its publisher can
 * move a release to (a holiday week's Thursday for the WPSR, Monday for the COT …). A cron
 * cannot tell a holiday week, so the extra runs fire every week; on a regular week they re-read
 * the last release, which the idempotent writes absorb. Slots at the same time share one cron.
 * @example scheduleExpressions(findSource('eia-petroleum')!.schedule) // ['cron(45 10 ? * WED *)', 'cron(15 12 ? * THU *)']
 */
const scheduleExpressions = (s: ReleaseSchedule): string[] => {
  const shifted: readonly Slot[] = PUBLISHER_CALENDARS[s.calendar].slots?.shifted ?? [];
  const byTime = new Map<string, number[]>();
  for (const slot of shifted) byTime.set(`${slot.hour}:${slot.minute}`, [...(byTime.get(`${slot.hour}:${slot.minute}`) ?? []), ...slot.weekdays]);
  const extra = [...byTime].map(([time, weekdays]) => {
    const [hour, minute] = time.split(':').map(Number) as [number, number];
    return cronOf({ ...s, hour, minute, weekdays: [...new Set(weekdays)].sort(), monthDays: undefined, dates: undefined });
  });
  return [cronOf(s), ...extra];
};

/**
 * Issue 37: the runs CDK deploys at the release instants themselves (lag 0, the same slots as
 * scheduleExpressions), each invoked with `until_new`: it re-polls the publisher, bounded, until the
 * new figure is out (shared/sources/until-new.ts), so a watch's delivery leaves within a minute of
 * the release. The lagged runs stay, as the catch-up of a publisher later than the bound.
 * @example releaseInstantExpressions(findSource('eia-petroleum')!.schedule) // ['cron(30 10 ? * WED *)', 'cron(0 12 ? * THU *)']
 */
const releaseInstantExpressions = (s: ReleaseSchedule): string[] => scheduleExpressions({ ...s, ingestLagMinutes: 0 });

/** How far around a release instant a release-instant run still re-polls for it (the scheduler's own retries come within minutes). */
const RELEASE_DUE_WINDOW = Object.freeze({ earlyMs: 5 * 60_000, lateMs: 30 * 60_000 });

/**
 * Pure: the release of the source's publisher calendar due at `now` (5 minutes ahead to 30 minutes
 * past), or null. A holiday slot's run on a regular week, or a day-window run on a day without a
 * release, has none: it runs once instead of re-polling for a figure that is not coming.
 * @example releaseDueAt(findSource('eia-petroleum')!.schedule, new Date('2026-11-25T15:30:20Z'))?.at // '2026-11-25T15:30:00.000Z'
 */
const releaseDueAt = (s: ReleaseSchedule, now: Date): ScheduledRelease | null => {
  const r = nextRelease(s, new Date(now.getTime() - RELEASE_DUE_WINDOW.lateMs));
  return r && Date.parse(r.at) <= now.getTime() + RELEASE_DUE_WINDOW.earlyMs ? r : null;
};

export { nextRelease, releaseOfPeriod, calendarSchedule, scheduleExpression, scheduleExpressions, releaseInstantExpressions, releaseDueAt, zonedToUtc };
export type { ScheduledRelease };
