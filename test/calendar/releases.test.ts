/**
 * The holiday calendar and the publishers' release rules, with every date worked out by hand from
 * the calendar (US federal holidays per OPM: Thanksgiving is the fourth Thursday of November; a
 * Saturday holiday is observed on the Friday before, a Sunday one on the Monday after).
 */
import { describe, expect, it } from 'vitest';
import { isBusinessDay, isFederalHoliday } from '../../shared/calendar/holidays';
import { releaseDay } from '../../shared/calendar/releases';
import { buildCalendar } from '../../shared/families/discovery/calendar';
import { findSource } from '../../shared/sources/registry';
import { catchUpExpression, nextRelease, releaseAfter } from '../../shared/sources/schedule';

const schedule = (id: string) => findSource(id)!.schedule;

describe('US federal holidays (observed)', () => {
  it.each([
    ['2025-11-27', 'Thanksgiving 2025 (fourth Thursday)'],
    ['2026-11-26', 'Thanksgiving 2026'],
    ['2025-12-25', 'Christmas 2025 (Thursday)'],
    ['2027-12-24', 'Christmas 2027 falls on a Saturday: observed Friday the 24th'],
    ['2026-01-01', "New Year's Day 2026"],
    ['2027-12-31', "New Year's Day 2028 falls on a Saturday: observed Friday 31 December 2027"],
    ['2026-09-07', 'Labor Day 2026 (first Monday of September)'],
    ['2026-01-19', 'Martin Luther King Jr. Day 2026 (third Monday of January)'],
    ['2026-07-03', 'Independence Day 2026 falls on a Saturday: observed Friday'],
  ])('%s is a holiday: %s', (date) => {
    expect(isFederalHoliday(date)).toBe(true);
    expect(isBusinessDay(date)).toBe(false);
  });

  it('knows ordinary days, weekends and pre-2021 Juneteenth apart', () => {
    expect(isFederalHoliday('2026-11-25')).toBe(false);
    expect(isBusinessDay('2026-11-25')).toBe(true);
    expect(isBusinessDay('2026-11-28')).toBe(false); // a Saturday
    expect(isFederalHoliday('2027-12-25')).toBe(false); // the Saturday itself is not the day off
    expect(isFederalHoliday('2021-06-18')).toBe(true); // Juneteenth 2021 (Saturday) observed Friday
    expect(isFederalHoliday('2020-06-19')).toBe(false); // before the holiday existed
  });
});

describe('release rules', () => {
  it('EIA petroleum report: Thursday 11:00 after a Monday holiday (Labor Day 2026), unmoved in Thanksgiving week', () => {
    expect(releaseDay('eia-wpsr', '2026-09-09', 10, 30)).toEqual({ date: '2026-09-10', hour: 11, minute: 0, shifted: true, estimated: false });
    expect(releaseDay('eia-wpsr', '2026-11-25', 10, 30)).toEqual({ date: '2026-11-25', hour: 10, minute: 30, shifted: false, estimated: false });
    // Christmas 2024 and New Year 2025 fell on Wednesdays: moved to Thursday, as an estimate.
    expect(releaseDay('eia-wpsr', '2024-12-25', 10, 30)).toMatchObject({ date: '2024-12-26', hour: 11, shifted: true, estimated: true });
    expect(releaseDay('eia-wpsr', '2025-01-01', 10, 30)).toMatchObject({ date: '2025-01-02', shifted: true, estimated: true });
  });

  it('EIA gas storage report: Wednesday 12:00 in Thanksgiving week (2025 and 2026)', () => {
    expect(releaseDay('eia-wngsr', '2025-11-27', 10, 30)).toEqual({ date: '2025-11-26', hour: 12, minute: 0, shifted: true, estimated: false });
    expect(releaseDay('eia-wngsr', '2026-11-26', 10, 30)).toEqual({ date: '2026-11-25', hour: 12, minute: 0, shifted: true, estimated: false });
    expect(releaseDay('eia-wngsr', '2026-09-10', 10, 30)).toEqual({ date: '2026-09-10', hour: 10, minute: 30, shifted: false, estimated: true });
  });

  it('CFTC COT: the Monday after Thanksgiving week; Christmas and New Year on a Friday move it too', () => {
    expect(releaseDay('cftc-cot', '2025-11-28', 15, 30)).toEqual({ date: '2025-12-01', hour: 15, minute: 30, shifted: true, estimated: false });
    expect(releaseDay('cftc-cot', '2026-11-27', 15, 30)).toEqual({ date: '2026-11-30', hour: 15, minute: 30, shifted: true, estimated: false });
    expect(releaseDay('cftc-cot', '2026-12-25', 15, 30)).toMatchObject({ date: '2026-12-28', shifted: true, estimated: true });
    expect(releaseDay('cftc-cot', '2027-01-01', 15, 30)).toMatchObject({ date: '2027-01-04', shifted: true });
    // Labor Day is the Monday before the Tuesday of the positions: the Friday stands.
    expect(releaseDay('cftc-cot', '2026-09-11', 15, 30)).toMatchObject({ date: '2026-09-11', shifted: false });
  });

  it('FAS export sales: Friday in a holiday week; NASS crop progress: Tuesday after a Monday holiday', () => {
    expect(releaseDay('usda-fas-esr', '2026-11-26', 8, 30)).toEqual({ date: '2026-11-27', hour: 8, minute: 30, shifted: true, estimated: false });
    expect(releaseDay('usda-fas-esr', '2026-09-10', 8, 30)).toMatchObject({ date: '2026-09-11', shifted: true, estimated: true });
    expect(releaseDay('next-business-day', '2026-09-07', 16, 0)).toMatchObject({ date: '2026-09-08', shifted: true });
    expect(releaseDay('next-business-day', '2026-05-25', 16, 0)).toMatchObject({ date: '2026-05-26', shifted: true }); // Memorial Day
    expect(releaseDay('next-business-day', '2026-09-14', 16, 0)).toMatchObject({ date: '2026-09-14', shifted: false });
  });
});

describe('published_at and next_release_at follow the calendar', () => {
  it('dates weekly reports by their holiday-moved release, in UTC (EST = UTC-5, EDT = UTC-4)', () => {
    // Week ending Friday 2026-09-04 -> Wednesday 9 September, Labor Day week -> Thursday 10 September 11:00 EDT.
    expect(releaseAfter(schedule('eia-petroleum'), '2026-09-04')).toBe('2026-09-10T15:00:00.000Z');
    // Gas storage, week ending Friday 2026-11-20 -> Thanksgiving week -> Wednesday 25 November 12:00 EST.
    expect(releaseAfter(schedule('eia-gas-storage'), '2026-11-20')).toBe('2026-11-25T17:00:00.000Z');
    // COT positions of Tuesday 2026-11-24 -> Monday 30 November 15:30 EST.
    expect(releaseAfter(schedule('cftc-cot'), '2026-11-24')).toBe('2026-11-30T20:30:00.000Z');
    // FAS week ending Thursday 2026-11-19 -> Thursday 26 November is Thanksgiving -> Friday 27 November 08:30 EST.
    expect(releaseAfter(schedule('usda-fas-esr'), '2026-11-19')).toBe('2026-11-27T13:30:00.000Z');
    // NASS week ending Sunday 2026-09-06 -> Monday 7 September is Labor Day -> Tuesday 8 September 16:00 EDT.
    expect(releaseAfter(schedule('usda-nass-crop-progress'), '2026-09-06')).toBe('2026-09-08T20:00:00.000Z');
    // EIA spot, a price of Friday 2026-09-04 -> the WPSR of Labor Day week, Thursday 10 September 11:00 EDT.
    expect(releaseAfter(schedule('eia-spot'), '2026-09-04')).toBe('2026-09-10T15:00:00.000Z');
    // FRED (H.10), the week of Friday 2026-09-04 -> Monday 7 September is Labor Day -> Tuesday 16:15 EDT.
    expect(releaseAfter(schedule('fred'), '2026-09-04')).toBe('2026-09-08T20:15:00.000Z');
  });

  it('finds the next release across a holiday move, strictly after now', () => {
    // Tuesday of Thanksgiving week 2026: gas storage comes Wednesday noon, COT the Monday after.
    const tuesday = new Date('2026-11-24T12:00:00Z');
    expect(nextRelease(schedule('eia-gas-storage'), tuesday)?.toISOString()).toBe('2026-11-25T17:00:00.000Z');
    expect(nextRelease(schedule('cftc-cot'), tuesday)?.toISOString()).toBe('2026-11-30T20:30:00.000Z');
    // Wednesday after the moved gas release: the next one is Thursday 3 December 10:30 EST.
    expect(nextRelease(schedule('eia-gas-storage'), new Date('2026-11-25T18:00:00Z'))?.toISOString()).toBe('2026-12-03T15:30:00.000Z');
    // Friday 27 November after 15:30: COT still to come on Monday.
    expect(nextRelease(schedule('cftc-cot'), new Date('2026-11-27T21:00:00Z'))?.toISOString()).toBe('2026-11-30T20:30:00.000Z');
  });

  it('/v1/calendar says which next releases are moved and which are estimates', () => {
    const byId = new Map(buildCalendar(new Date('2026-11-24T00:00:00Z')).releases.map((r) => [r.source, r]));
    expect(byId.get('cftc-cot')).toMatchObject({ next_release_at: '2026-11-30T20:30:00.000Z', next_release_shifted: true, next_release_estimated: false });
    expect(byId.get('eia-gas-storage')).toMatchObject({ next_release_at: '2026-11-25T17:00:00.000Z', next_release_shifted: true });
    expect(byId.get('eia-petroleum')).toMatchObject({
      next_release_at: '2026-11-25T15:30:00.000Z',
      next_release_shifted: false,
      next_release_estimated: false,
    });
    expect(byId.get('usda-fas-esr')).toMatchObject({ next_release_at: '2026-11-27T13:30:00.000Z', next_release_shifted: true });
    // A day window (WASDE: USDA's announced day between the 8th and 14th) is an estimate.
    expect(byId.get('usda-wasde')?.next_release_estimated).toBe(true);
  });

  it('adds a catch-up ingestion run on the days a moved release lands (cron in the publisher time zone, +15 min)', () => {
    expect(catchUpExpression(schedule('eia-petroleum'))).toBe('cron(15 11 ? * THU *)');
    expect(catchUpExpression(schedule('eia-gas-storage'))).toBe('cron(15 12 ? * WED *)');
    expect(catchUpExpression(schedule('cftc-cot'))).toBe('cron(45 15 ? * MON,TUE *)');
    expect(catchUpExpression(schedule('usda-fas-esr'))).toBe('cron(45 8 ? * FRI *)');
    expect(catchUpExpression(schedule('usda-nass-crop-progress'))).toBe('cron(15 16 ? 4,5,6,7,8,9,10,11 TUE *)');
    expect(catchUpExpression(schedule('usda-wasde'))).toBeNull();
  });
});
