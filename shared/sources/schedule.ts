/**
 * Pure release-schedule arithmetic: the next release instant of a schedule, and the
 * EventBridge Scheduler expression CDK deploys for it. Both read the same ReleaseSchedule,
 * so /v1/calendar and the deployed schedules cannot disagree.
 */
import type { ReleaseSchedule } from './types';

/** Default minutes between a scheduled release and the ingestion run that reads it. */
const INGEST_LAG_MINUTES = 15;

const WEEKDAY_NAMES = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'] as const;

/**
 * One formatter per time zone: constructing an Intl.DateTimeFormat costs tens of microseconds and
 * native (ICU) memory, and every /health, /v1/calendar and ingested row asks for an offset.
 */
const FORMATTERS = new Map<string, Intl.DateTimeFormat>();
const formatterOf = (timeZone: string): Intl.DateTimeFormat => {
  let f = FORMATTERS.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    FORMATTERS.set(timeZone, f);
  }
  return f;
};

/** Offset of `timeZone` from UTC at `instant`, in milliseconds (positive east of UTC). */
const zoneOffsetMs = (instant: number, timeZone: string): number => {
  const parts = formatterOf(timeZone).formatToParts(new Date(instant));
  const get = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return asUtc - Math.floor(instant / 1000) * 1000;
};

/** The UTC instant of a wall-clock time in a time zone (DST-aware). */
const zonedToUtc = (y: number, m: number, d: number, hour: number, minute: number, timeZone: string): Date => {
  const guess = Date.UTC(y, m - 1, d, hour, minute);
  const first = guess - zoneOffsetMs(guess, timeZone);
  // Re-check once: the offset at the guess may differ from the offset at the answer around DST.
  return new Date(guess - zoneOffsetMs(first, timeZone));
};

const isoWeekday = (y: number, m: number, d: number): number => ((new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7) + 1;

const dayMatches = (s: ReleaseSchedule, y: number, m: number, d: number): boolean => {
  if (s.dates) return s.dates.includes(`${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
  if (s.months && !s.months.includes(m)) return false;
  if (s.monthDays && !s.monthDays.includes(d)) return false;
  if (s.weekdays && !s.weekdays.includes(isoWeekday(y, m, d))) return false;
  return true;
};

/**
 * The first release strictly after `after`, or null when none falls in the next 400 days
 * (e.g. a date list that has run out).
 * @example nextRelease({minute: 30, hour: 10, weekdays: [3], timeZone: 'America/New_York', description: ''}, new Date('2026-11-21T00:00:00Z'))
 */
const nextRelease = (s: ReleaseSchedule, after: Date): Date | null => {
  const start = new Date(after.getTime() - 24 * 3600 * 1000);
  for (let i = 0; i < 400; i++) {
    const day = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate() + i));
    const [y, m, d] = [day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()];
    if (!dayMatches(s, y, m, d)) continue;
    const at = zonedToUtc(y, m, d, s.hour, s.minute, s.timeZone);
    if (at.getTime() > after.getTime()) return at;
  }
  return null;
};

/**
 * The scheduled release instant of the period ending `asOf` (a weekly report): the first release
 * weekday of the schedule strictly after that date, at the release time (DST-aware). Holiday
 * weeks, when publishers release a day late, are not modelled: the figure is the scheduled instant.
 * @example releaseAfter(petroleumSchedule, '2026-02-06') // '2026-02-11T15:30:00.000Z' (Wed 10:30 EST)
 */
const releaseAfter = (schedule: ReleaseSchedule, asOf: string): string | null => {
  const weekdays = schedule.weekdays ?? [1, 2, 3, 4, 5, 6, 7];
  const base = Date.parse(`${asOf}T00:00:00Z`);
  for (let i = 1; i <= 7; i++) {
    const day = new Date(base + i * 86_400_000);
    const [y, m, d] = [day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()];
    if (weekdays.includes(isoWeekday(y, m, d))) return zonedToUtc(y, m, d, schedule.hour, schedule.minute, schedule.timeZone).toISOString();
  }
  return null;
};

/**
 * EventBridge Scheduler cron expression (evaluated in `s.timeZone`), at the release time plus the
 * ingestion lag. Date-list schedules run
 * daily at the release time; the ingestion is idempotent, so a day without a release writes
 * the same items again.
 */
const scheduleExpression = (s: ReleaseSchedule): string => {
  const at = s.hour * 60 + s.minute + (s.ingestLagMinutes ?? INGEST_LAG_MINUTES);
  // A lag that crosses midnight would move the run to another day and break the day fields.
  if (at >= 24 * 60) throw new Error(`ingestion lag of ${s.description} crosses midnight`);
  const dow = s.dates || !s.weekdays ? '?' : s.weekdays.map((w) => WEEKDAY_NAMES[w - 1]).join(',');
  const dom = s.dates ? '*' : s.monthDays ? s.monthDays.join(',') : dow === '?' ? '*' : '?';
  const month = s.dates || !s.months ? '*' : s.months.join(',');
  return `cron(${at % 60} ${Math.floor(at / 60)} ${dom} ${month} ${dow} *)`;
};

export { nextRelease, releaseAfter, scheduleExpression, zonedToUtc };
