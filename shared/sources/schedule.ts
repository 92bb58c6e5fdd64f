/**
 * Pure release-schedule arithmetic: the next release instant of a schedule, and the
 * EventBridge Scheduler expression CDK deploys for it. Both read the same ReleaseSchedule,
 * so /v1/calendar and the deployed schedules cannot disagree.
 */
import type { ReleaseSchedule } from './types';

const WEEKDAY_NAMES = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'] as const;

/** Offset of `timeZone` from UTC at `instant`, in milliseconds (positive east of UTC). */
const zoneOffsetMs = (instant: number, timeZone: string): number => {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
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
 * EventBridge Scheduler cron expression (evaluated in `s.timeZone`). Date-list schedules run
 * daily at the release time; the ingestion is idempotent, so a day without a release writes
 * the same items again.
 */
const scheduleExpression = (s: ReleaseSchedule): string => {
  const dow = s.dates || !s.weekdays ? '?' : s.weekdays.map((w) => WEEKDAY_NAMES[w - 1]).join(',');
  const dom = s.dates ? '*' : s.monthDays ? s.monthDays.join(',') : dow === '?' ? '*' : '?';
  const month = s.dates || !s.months ? '*' : s.months.join(',');
  return `cron(${s.minute} ${s.hour} ${dom} ${month} ${dow} *)`;
};

export { nextRelease, scheduleExpression, zonedToUtc };
