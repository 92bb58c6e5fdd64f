import { describe, expect, it } from 'vitest';
import { SOURCES } from '../../shared/sources/registry';
import { nextRelease, scheduleExpression, zonedToUtc } from '../../shared/sources/schedule';
import type { ReleaseSchedule } from '../../shared/sources/types';

const ET = 'America/New_York';
const wed1030: ReleaseSchedule = { minute: 30, hour: 10, weekdays: [3], timeZone: ET, description: 'Wed 10:30 ET' };

describe('release schedules', () => {
  it('converts New York wall time to UTC on both sides of DST', () => {
    expect(zonedToUtc(2026, 7, 15, 10, 30, ET).toISOString()).toBe('2026-07-15T14:30:00.000Z'); // EDT, UTC-4
    expect(zonedToUtc(2026, 11, 25, 10, 30, ET).toISOString()).toBe('2026-11-25T15:30:00.000Z'); // EST, UTC-5
  });

  it('finds the next weekly release, strictly after now', () => {
    // Saturday 2026-11-21 -> Wednesday 2026-11-25 10:30 EST
    expect(nextRelease(wed1030, new Date('2026-11-21T23:00:00Z'))?.toISOString()).toBe('2026-11-25T15:30:00.000Z');
    // exactly at release time -> the week after
    expect(nextRelease(wed1030, new Date('2026-11-25T15:30:00Z'))?.toISOString()).toBe('2026-12-02T15:30:00.000Z');
    // one minute before -> today
    expect(nextRelease(wed1030, new Date('2026-11-25T15:29:00Z'))?.toISOString()).toBe('2026-11-25T15:30:00.000Z');
  });

  it('crosses the spring DST change (2027-03-14) at the right UTC hour', () => {
    expect(nextRelease(wed1030, new Date('2027-03-12T00:00:00Z'))?.toISOString()).toBe('2027-03-17T14:30:00.000Z');
  });

  it('respects months, month days and explicit date lists', () => {
    const inSeason: ReleaseSchedule = { minute: 0, hour: 16, weekdays: [1], months: [4, 5], timeZone: ET, description: '' };
    expect(nextRelease(inSeason, new Date('2026-11-21T00:00:00Z'))?.toISOString()).toBe('2027-04-05T20:00:00.000Z');
    const dated: ReleaseSchedule = { minute: 0, hour: 12, dates: ['2026-12-10', '2027-01-12'], timeZone: ET, description: '' };
    expect(nextRelease(dated, new Date('2026-12-10T18:00:00Z'))?.toISOString()).toBe('2027-01-12T17:00:00.000Z');
    expect(nextRelease(dated, new Date('2027-02-01T00:00:00Z'))).toBeNull();
  });

  it('writes EventBridge Scheduler cron expressions at the release time plus the ingestion lag', () => {
    expect(scheduleExpression(wed1030)).toBe('cron(45 10 ? * WED *)');
    expect(scheduleExpression({ ...wed1030, minute: 50, ingestLagMinutes: 20 })).toBe('cron(10 11 ? * WED *)');
    expect(scheduleExpression({ ...wed1030, ingestLagMinutes: 0 })).toBe('cron(30 10 ? * WED *)');
    expect(scheduleExpression({ minute: 0, hour: 17, weekdays: [1, 2, 3, 4, 5], timeZone: ET, description: '' })).toBe('cron(15 17 ? * MON,TUE,WED,THU,FRI *)');
    expect(scheduleExpression({ minute: 0, hour: 12, monthDays: [2, 3], timeZone: ET, description: '' })).toBe('cron(15 12 2,3 * ? *)');
    expect(scheduleExpression({ minute: 0, hour: 12, dates: ['2026-12-10'], timeZone: ET, description: '' })).toBe('cron(15 12 * * ? *)');
    expect(() => scheduleExpression({ ...wed1030, hour: 23, minute: 50 })).toThrow(/crosses midnight/);
  });

  it('gives every registered source a next release within a year', () => {
    const now = new Date('2026-11-21T12:00:00Z');
    for (const s of SOURCES) {
      const next = nextRelease(s.schedule, now);
      expect(next, s.id).not.toBeNull();
      expect(next!.getTime() - now.getTime(), s.id).toBeLessThan(366 * 86400_000);
      expect(scheduleExpression(s.schedule), s.id).toMatch(/^cron\(\d+ \d+ \S+ \S+ \S+ \*\)$/);
    }
  });
});
