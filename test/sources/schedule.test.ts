import { describe, expect, it } from 'vitest';
import { findSource, SOURCES } from '../../shared/sources/registry';
import { nextRelease, releaseDueAt, releaseInstantExpressions, scheduleExpression, scheduleExpressions, zonedToUtc } from '../../shared/sources/schedule';
import type { ReleaseSchedule } from '../../shared/sources/types';

const ET = 'America/New_York';
/** A plain weekly slot (the WPSR's calendar gives its releases; the fields give the cron). */
const wed1030: ReleaseSchedule = { minute: 30, hour: 10, weekdays: [3], timeZone: ET, calendar: 'eia-wpsr' };

describe('release schedules', () => {
  it('converts New York wall time to UTC on both sides of DST', () => {
    expect(zonedToUtc(2026, 7, 15, 10, 30, ET).toISOString()).toBe('2026-07-15T14:30:00.000Z'); // EDT, UTC-4
    expect(zonedToUtc(2026, 11, 25, 10, 30, ET).toISOString()).toBe('2026-11-25T15:30:00.000Z'); // EST, UTC-5
  });

  it('finds the next release strictly after now, on both sides of a DST change', () => {
    // Saturday 2026-11-21 -> Wednesday 2026-11-25 10:30 EST
    expect(nextRelease(wed1030, new Date('2026-11-21T23:00:00Z'))?.at).toBe('2026-11-25T15:30:00.000Z');
    // exactly at release time -> the week after
    expect(nextRelease(wed1030, new Date('2026-11-25T15:30:00Z'))?.at).toBe('2026-12-02T15:30:00.000Z');
    // one minute before -> today
    expect(nextRelease(wed1030, new Date('2026-11-25T15:29:00Z'))?.at).toBe('2026-11-25T15:30:00.000Z');
    // the spring DST change (2027-03-14): 10:30 EDT = 14:30Z
    expect(nextRelease(wed1030, new Date('2027-03-12T00:00:00Z'))?.at).toBe('2027-03-17T14:30:00.000Z');
  });

  it('writes EventBridge Scheduler cron expressions at the release time plus the ingestion lag', () => {
    expect(scheduleExpression(wed1030)).toBe('cron(45 10 ? * WED *)');
    expect(scheduleExpression({ ...wed1030, minute: 50, ingestLagMinutes: 20 })).toBe('cron(10 11 ? * WED *)');
    expect(scheduleExpression({ ...wed1030, ingestLagMinutes: 0 })).toBe('cron(30 10 ? * WED *)');
    expect(scheduleExpression({ ...wed1030, minute: 0, hour: 17, weekdays: [1, 2, 3, 4, 5] })).toBe('cron(15 17 ? * MON,TUE,WED,THU,FRI *)');
    expect(scheduleExpression({ ...wed1030, minute: 0, hour: 12, weekdays: undefined, monthDays: [2, 3] })).toBe('cron(15 12 2,3 * ? *)');
    expect(scheduleExpression({ ...wed1030, minute: 0, hour: 12, weekdays: undefined, dates: ['2026-12-10'] })).toBe('cron(15 12 * * ? *)');
    expect(() => scheduleExpression({ ...wed1030, hour: 23, minute: 50 })).toThrow(/crosses midnight/);
  });

  it('gives every registered source a next release within a year', () => {
    const now = new Date('2026-11-21T12:00:00Z');
    for (const s of SOURCES) {
      const next = nextRelease(s.schedule, now);
      expect(next, s.id).not.toBeNull();
      expect(Date.parse(next!.at) - now.getTime(), s.id).toBeLessThan(366 * 86400_000);
      for (const cron of scheduleExpressions(s.schedule)) expect(cron, s.id).toMatch(/^cron\(\d+ \d+ \S+ \S+ \S+ \*\)$/);
    }
  });

  it("takes a calendar source's next release from its publisher calendar, holiday shifts included", () => {
    const after = new Date('2026-11-21T12:00:00Z'); // Saturday before Thanksgiving 2026 (Thu 26 Nov)
    // WNGSR: Thursday 26 is Thanksgiving -> Wednesday 25, 12:00 EST = 17:00Z, on EIA's schedule page.
    expect(nextRelease(findSource('eia-gas-storage')!.schedule, after)).toEqual({
      at: '2026-11-25T17:00:00.000Z',
      estimated: false,
      shifted_by: 'Thanksgiving Day',
    });
    // WPSR: no holiday Monday-Wednesday -> Wednesday 25, 10:30 EST = 15:30Z.
    expect(nextRelease(findSource('eia-petroleum')!.schedule, after)).toEqual({ at: '2026-11-25T15:30:00.000Z', estimated: false, shifted_by: null });
    // COT of Tuesday 24: Thanksgiving in Wednesday-Friday -> Monday 30, 15:30 EST = 20:30Z (beyond the verified CFTC schedule).
    expect(nextRelease(findSource('cftc-cot')!.schedule, after)).toEqual({ at: '2026-11-30T20:30:00.000Z', estimated: true, shifted_by: 'Thanksgiving Day' });
  });

  it('deploys the regular run plus a run in each slot a holiday can move the release to', () => {
    const crons = (id: string) => scheduleExpressions(findSource(id)!.schedule);
    // Regular time + 15 min lag; the holiday slot's time + 15 min.
    expect(crons('eia-petroleum')).toEqual(['cron(45 10 ? * WED *)', 'cron(15 12 ? * THU *)']);
    expect(crons('eia-spot')).toEqual(['cron(45 10 ? * WED *)', 'cron(15 12 ? * THU *)']);
    expect(crons('eia-gas-storage')).toEqual(['cron(45 10 ? * THU *)', 'cron(15 12 ? * WED *)', 'cron(45 10 ? * FRI *)']);
    expect(crons('cftc-cot')).toEqual(['cron(45 15 ? * FRI *)', 'cron(45 15 ? * MON *)']);
    expect(crons('usda-fas-esr')).toEqual(['cron(45 8 ? * THU *)', 'cron(45 8 ? * FRI *)']);
    expect(crons('usda-nass-crop-progress')).toEqual(['cron(15 16 ? 4,5,6,7,8,9,10,11 MON *)', 'cron(15 16 ? 4,5,6,7,8,9,10,11 TUE *)']);
    // H.10 at 16:15 plus a 30-minute lag for FRED.
    expect(crons('fred')).toEqual(['cron(45 16 ? * MON *)', 'cron(45 16 ? * TUE *)']);
    // Day windows without weekly slots run once a day in the window, as before.
    expect(crons('usda-wasde')).toEqual(['cron(15 12 8,9,10,11,12,13,14,15 * ? *)']);
    expect(crons('worldbank')).toEqual(['cron(15 12 2,3,4,5,6 * ? *)']);
  });

  it("deploys release-instant runs (issue 37) at the publishers' own times, in the same slots", () => {
    const crons = (id: string) => releaseInstantExpressions(findSource(id)!.schedule);
    // WPSR Wednesday 10:30 ET, Thursday 12:00 in a holiday week (EIA's schedule).
    expect(crons('eia-petroleum')).toEqual(['cron(30 10 ? * WED *)', 'cron(0 12 ? * THU *)']);
    // H.10 Monday 16:15 ET (Tuesday after a Monday holiday): FRED's own lag is the catch-up run's.
    expect(crons('fred')).toEqual(['cron(15 16 ? * MON *)', 'cron(15 16 ? * TUE *)']);
    expect(crons('usda-wasde')).toEqual(['cron(0 12 8,9,10,11,12,13,14,15 * ? *)']);
  });

  it('re-polls only when the calendar has a release due: a holiday slot on a regular week has none', () => {
    const wpsr = findSource('eia-petroleum')!.schedule;
    // Wednesday 25 November 2026, 10:30 EST: the WPSR is out (seconds after the instant, and a retry minutes later).
    expect(releaseDueAt(wpsr, new Date('2026-11-25T15:30:20Z'))?.at).toBe('2026-11-25T15:30:00.000Z');
    expect(releaseDueAt(wpsr, new Date('2026-11-25T15:52:00Z'))?.at).toBe('2026-11-25T15:30:00.000Z');
    // The Thursday-12:00 slot of that (regular) week: nothing due.
    expect(releaseDueAt(wpsr, new Date('2026-11-26T17:00:20Z'))).toBeNull();
    // Labor Day week 2026: the Wednesday slot has nothing, the release is Thursday 10 September 12:00 EDT.
    expect(releaseDueAt(wpsr, new Date('2026-09-09T14:30:20Z'))).toBeNull();
    expect(releaseDueAt(wpsr, new Date('2026-09-10T16:00:20Z'))?.at).toBe('2026-09-10T16:00:00.000Z');
  });
});
