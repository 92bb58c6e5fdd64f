import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { federalHoliday, isoWeekday, nextReleaseOf, PUBLISHER_CALENDARS, spotLagDays, spotReleaseOf, type PublisherId } from '../../shared/calendar';
import { SOURCES } from '../../shared/sources/registry';
import { nextRelease } from '../../shared/sources/schedule';

// Every expected date below is worked out by hand from the publisher's rule and the calendar
// (and, where a row says so, checked against the publisher's own dated schedule). Eastern time is
// UTC-5 (EST) from the first Sunday of November to the second Sunday of March (2025-11-02,
// 2026-03-08, 2026-11-01, 2027-03-14), UTC-4 (EDT) otherwise.
const rel = (id: PublisherId, period: string) => PUBLISHER_CALENDARS[id].releaseOf(period);
const at = (id: PublisherId, period: string) => rel(id, period)?.at;

describe('calendar: EIA Weekly Petroleum Status Report (Wednesday 10:30 ET; Thursday after a Monday-Wednesday holiday)', () => {
  it('2025: New Year (Wed), a Monday holiday, Veterans Day (Tue), Thanksgiving, Christmas and New Year 2026', () => {
    // Week ending Fri 27 Dec 2024: Wed 1 Jan is New Year's Day -> Thu 2 Jan 11:00 EST (EIA's row) = 16:00Z.
    expect(rel('eia-wpsr', '2024-12-27')).toEqual({ date: '2025-01-02', at: '2025-01-02T16:00:00.000Z', estimated: false, shifted_by: "New Year's Day" });
    // Presidents' Day Mon 17 Feb -> Thu 20 Feb 12:00 EST = 17:00Z.
    expect(rel('eia-wpsr', '2025-02-14')).toMatchObject({ at: '2025-02-20T17:00:00.000Z', shifted_by: "Washington's Birthday" });
    // Labor Day Mon 1 Sep -> Thu 4 Sep 12:00 EDT = 16:00Z.
    expect(at('eia-wpsr', '2025-08-29')).toBe('2025-09-04T16:00:00.000Z');
    // Veterans Day Tue 11 Nov -> Thu 13 Nov 12:00 EST = 17:00Z.
    expect(at('eia-wpsr', '2025-11-07')).toBe('2025-11-13T17:00:00.000Z');
    // Thanksgiving (Thu 27 Nov) does not touch the Wednesday: Wed 26 Nov 10:30 EST = 15:30Z.
    expect(rel('eia-wpsr', '2025-11-21')).toEqual({ date: '2025-11-26', at: '2025-11-26T15:30:00.000Z', estimated: false, shifted_by: null });
    // Christmas 2025: EIA moved the week ending 19 Dec to Mon 29 Dec 17:00 EST = 22:00Z (offices closed 24-26 Dec).
    expect(rel('eia-wpsr', '2025-12-19')).toMatchObject({ at: '2025-12-29T22:00:00.000Z', estimated: false, shifted_by: expect.stringMatching(/Christmas/) });
    // New Year's Day 2026 is a Thursday: Wed 31 Dec 10:30 EST = 15:30Z.
    expect(rel('eia-wpsr', '2025-12-26')).toMatchObject({ at: '2025-12-31T15:30:00.000Z', shifted_by: null });
  });

  it('2026: Labor Day, Veterans Day (Wed), Thanksgiving, Christmas (Fri) and New Year 2027 (Fri); 2027 is estimated', () => {
    expect(at('eia-wpsr', '2026-09-04')).toBe('2026-09-10T16:00:00.000Z'); // Thu 10 Sep 12:00 EDT
    expect(at('eia-wpsr', '2026-11-06')).toBe('2026-11-12T17:00:00.000Z'); // Thu 12 Nov 12:00 EST
    expect(at('eia-wpsr', '2026-11-20')).toBe('2026-11-25T15:30:00.000Z'); // Wed 25 Nov 10:30 EST
    expect(at('eia-wpsr', '2026-12-18')).toBe('2026-12-23T15:30:00.000Z'); // Christmas on Friday: no shift
    expect(rel('eia-wpsr', '2026-12-25')).toMatchObject({ at: '2026-12-30T15:30:00.000Z', estimated: false });
    // MLK Day Mon 18 Jan 2027 -> Thu 21 Jan 12:00 EST = 17:00Z, beyond EIA's verified rows.
    expect(rel('eia-wpsr', '2027-01-15')).toMatchObject({ at: '2027-01-21T17:00:00.000Z', estimated: true, shifted_by: 'Birthday of Martin Luther King, Jr.' });
  });
});

describe('calendar: EIA Weekly Natural Gas Storage Report (Thursday 10:30 ET)', () => {
  it('2025: Veterans Day (Tue) -> Friday, Thanksgiving -> Wednesday noon, Christmas -> Monday 29 Dec, New Year -> Wednesday noon', () => {
    expect(rel('eia-wngsr', '2025-11-07')).toMatchObject({ at: '2025-11-14T15:30:00.000Z', estimated: false, shifted_by: 'Veterans Day' }); // Fri 10:30 EST
    expect(rel('eia-wngsr', '2025-11-21')).toEqual({ date: '2025-11-26', at: '2025-11-26T17:00:00.000Z', estimated: false, shifted_by: 'Thanksgiving Day' });
    expect(at('eia-wngsr', '2025-12-19')).toBe('2025-12-29T17:00:00.000Z'); // Mon 12:00 EST, EIA's row
    expect(rel('eia-wngsr', '2025-12-26')).toMatchObject({ at: '2025-12-31T17:00:00.000Z', shifted_by: "New Year's Day" }); // Wed 12:00 EST
  });

  it('2026: a Monday holiday moves nothing; Veterans Day (Wed) -> Friday; Thanksgiving -> Wednesday noon; Christmas and New Year on Fridays move nothing', () => {
    expect(rel('eia-wngsr', '2026-09-04')).toMatchObject({ at: '2026-09-10T14:30:00.000Z', shifted_by: null }); // Thu 10:30 EDT (Labor Day week)
    expect(at('eia-wngsr', '2026-11-06')).toBe('2026-11-13T15:30:00.000Z'); // Fri 13 Nov 10:30 EST
    expect(at('eia-wngsr', '2026-11-20')).toBe('2026-11-25T17:00:00.000Z'); // Wed 25 Nov 12:00 EST
    expect(at('eia-wngsr', '2026-12-18')).toBe('2026-12-24T15:30:00.000Z'); // Thu 24 Dec 10:30 EST
    expect(at('eia-wngsr', '2026-12-25')).toBe('2026-12-31T15:30:00.000Z'); // Thu 31 Dec 10:30 EST
  });

  it('2027: Thanksgiving (25 Nov) -> Wednesday 24 Nov noon, estimated', () => {
    expect(rel('eia-wngsr', '2027-11-19')).toMatchObject({ at: '2027-11-24T17:00:00.000Z', estimated: true });
  });
});

describe('calendar: CFTC Commitments of Traders (Friday 15:30 ET; Monday after a Wednesday-Friday holiday)', () => {
  it("2024: matches the CFTC's release table (Monday holidays no delay; 24 Jun, 8 Jul, 2 Dec, 30 Dec delayed)", () => {
    expect(rel('cftc-cot', '2024-01-16')).toMatchObject({ at: '2024-01-19T20:30:00.000Z', estimated: false, shifted_by: null }); // MLK Monday: Friday as usual
    expect(at('cftc-cot', '2024-06-18')).toBe('2024-06-24T19:30:00.000Z'); // Juneteenth (Wed) -> Mon 15:30 EDT
    expect(at('cftc-cot', '2024-07-02')).toBe('2024-07-08T19:30:00.000Z'); // Independence Day (Thu)
    expect(rel('cftc-cot', '2024-11-26')).toMatchObject({ at: '2024-12-02T20:30:00.000Z', shifted_by: 'Thanksgiving Day' }); // Thanksgiving -> Mon 15:30 EST
    expect(at('cftc-cot', '2024-12-24')).toBe('2024-12-30T20:30:00.000Z'); // Christmas (Wed)
  });

  it('2025: Thanksgiving, Christmas and New Year reports come from the announced post-shutdown schedule', () => {
    // The holiday rule would give Mon 1 Dec, Mon 29 Dec and Mon 5 Jan; the CFTC published them on 19 Dec, 9 Jan, 13 Jan.
    expect(rel('cftc-cot', '2025-11-25')).toMatchObject({ at: '2025-12-19T20:30:00.000Z', estimated: false, shifted_by: expect.stringMatching(/lapse/) });
    expect(at('cftc-cot', '2025-12-23')).toBe('2026-01-09T20:30:00.000Z');
    expect(at('cftc-cot', '2025-12-30')).toBe('2026-01-13T20:30:00.000Z');
  });

  it('2026: Thanksgiving -> Monday 30 Nov, Christmas (Fri) -> Monday 28 Dec, New Year 2027 (Fri) -> Monday 4 Jan, Labor Day no delay', () => {
    expect(rel('cftc-cot', '2026-11-24')).toEqual({ date: '2026-11-30', at: '2026-11-30T20:30:00.000Z', estimated: true, shifted_by: 'Thanksgiving Day' });
    expect(at('cftc-cot', '2026-12-22')).toBe('2026-12-28T20:30:00.000Z');
    expect(at('cftc-cot', '2026-12-29')).toBe('2027-01-04T20:30:00.000Z');
    expect(rel('cftc-cot', '2026-09-08')).toMatchObject({ at: '2026-09-11T19:30:00.000Z', shifted_by: null });
  });

  it('uses the Monday as report date when Tuesday is a holiday, released that Friday (Christmas and New Year 2029-30 on Tuesdays)', () => {
    expect(PUBLISHER_CALENDARS['cftc-cot'].periodsAround('2029-12-20', '2030-01-05')).toEqual(expect.arrayContaining(['2029-12-24', '2029-12-31']));
    expect(at('cftc-cot', '2029-12-24')).toBe('2029-12-28T20:30:00.000Z');
    expect(at('cftc-cot', '2029-12-31')).toBe('2030-01-04T20:30:00.000Z');
  });
});

describe('calendar: USDA FAS export sales (Thursday 08:30 ET; Friday in a holiday week; all estimated)', () => {
  it('2025: Labor Day, Thanksgiving, Christmas and New Year weeks go out Friday', () => {
    expect(rel('usda-fas-esr', '2025-08-28')).toMatchObject({ at: '2025-09-05T12:30:00.000Z', estimated: true, shifted_by: 'Labor Day' }); // Fri 08:30 EDT
    expect(rel('usda-fas-esr', '2025-11-20')).toMatchObject({ at: '2025-11-28T13:30:00.000Z', shifted_by: 'Thanksgiving Day' }); // Thu 27 is Thanksgiving
    expect(rel('usda-fas-esr', '2025-11-27')).toMatchObject({ at: '2025-12-04T13:30:00.000Z', shifted_by: null });
    expect(at('usda-fas-esr', '2025-12-18')).toBe('2025-12-26T13:30:00.000Z');
    expect(at('usda-fas-esr', '2025-12-25')).toBe('2026-01-02T13:30:00.000Z');
  });

  it('2026: Thanksgiving -> Friday 27 Nov; the weeks ending 24 and 31 Dec stay on Thursday (their holidays are the Fridays before the deadline)', () => {
    expect(at('usda-fas-esr', '2026-11-19')).toBe('2026-11-27T13:30:00.000Z');
    expect(at('usda-fas-esr', '2026-12-17')).toBe('2026-12-24T13:30:00.000Z');
    expect(rel('usda-fas-esr', '2026-12-24')).toMatchObject({ at: '2026-12-31T13:30:00.000Z', shifted_by: null });
    expect(rel('usda-fas-esr', '2026-12-31')).toMatchObject({ at: '2027-01-07T13:30:00.000Z', shifted_by: null });
    expect(at('usda-fas-esr', '2026-09-03')).toBe('2026-09-11T12:30:00.000Z'); // Labor Day week
  });

  it('2020, the same calendar as 2026: the weeks ending 24 and 31 Dec were published Thursday 31 Dec 2020 and Thursday 7 Jan 2021 (press of those days)', () => {
    expect(at('usda-fas-esr', '2020-12-24')).toBe('2020-12-31T13:30:00.000Z');
    expect(at('usda-fas-esr', '2020-12-31')).toBe('2021-01-07T13:30:00.000Z');
  });
});

describe('calendar: USDA NASS Crop Progress (Monday 16:00 ET, April-November; Tuesday after a Monday holiday)', () => {
  it('2025: Memorial Day -> Tuesday; Thanksgiving week unaffected', () => {
    expect(rel('usda-nass-crop-progress', '2025-05-25')).toMatchObject({ at: '2025-05-27T20:00:00.000Z', estimated: true, shifted_by: 'Memorial Day' });
    expect(at('usda-nass-crop-progress', '2025-11-23')).toBe('2025-11-24T21:00:00.000Z');
  });

  it('2026: Labor Day and Columbus Day -> Tuesday; Thanksgiving week Monday; nothing from December to March', () => {
    expect(at('usda-nass-crop-progress', '2026-09-06')).toBe('2026-09-08T20:00:00.000Z');
    expect(at('usda-nass-crop-progress', '2026-10-11')).toBe('2026-10-13T20:00:00.000Z');
    expect(at('usda-nass-crop-progress', '2026-11-22')).toBe('2026-11-23T21:00:00.000Z');
    // After the last November report (Mon 30 Nov 16:00 EST), the next is Mon 5 Apr 2027 16:00 EDT.
    expect(nextReleaseOf(PUBLISHER_CALENDARS['usda-nass-crop-progress'], new Date('2026-11-30T22:00:00Z'))?.at).toBe('2027-04-05T20:00:00.000Z');
  });
});

describe('calendar: Federal Reserve H.10 (FRED FX): Monday 16:15 ET with the week before; Tuesday after a Monday holiday', () => {
  it('MLK Day 2024 -> Tuesday 16 January (the Board released that day); Labor Day 2026 -> Tuesday 8 September', () => {
    expect(rel('fed-h10', '2024-01-12')).toMatchObject({ at: '2024-01-16T21:15:00.000Z', shifted_by: 'Birthday of Martin Luther King, Jr.' });
    expect(at('fed-h10', '2026-09-02')).toBe('2026-09-08T20:15:00.000Z');
  });

  it('a Thanksgiving-week Friday and a New Year Eve day go out the Monday after', () => {
    expect(at('fed-h10', '2025-11-28')).toBe('2025-12-01T21:15:00.000Z');
    expect(at('fed-h10', '2026-12-31')).toBe('2027-01-04T21:15:00.000Z');
  });
});

describe('calendar: EIA daily spot prices (weekly, with the WPSR; each series by its own lag)', () => {
  // Recorded workbooks (fixtures/eia): PET_PRI_SPT_S1_D.xls, Release Date 6/18/2025 (Wed), stamped 10:40:51 AM,
  // latest data 6/16 (Mon) for crude, gasoline and ULSD; RNGWHHDd.xls, 7/10/2024 (Wed) 12:16:47 PM, latest 7/9
  // (Tue); Henry Hub's 8/19/2026 (Wed) workbook ends 8/18 (Tue). Petroleum: 2 days before the Wednesday; gas: 1.
  const spot = (series: string, day: string) => spotReleaseOf(series, day);

  it('reads each series lag from its recorded releases: 2 days for the petroleum prices, 1 for Henry Hub', () => {
    expect(['PET.RWTC.D', 'PET.RBRTE.D', 'PET.EER_EPMRU_PF4_RGC_DPG.D', 'PET.EER_EPD2DXL0_PF4_Y35NY_DPG.D', 'NG.RNGWHHD.D'].map(spotLagDays)).toEqual([
      2, 2, 2, 2, 1,
    ]);
  });

  it('dates a recorded release by its stamp, and Tuesday WTI by the next week (the end of its day: no time is stated)', () => {
    // 10:40:51 EDT = 14:40:51Z
    expect(spot('PET.RWTC.D', '2025-06-16')).toEqual({ date: '2025-06-18', at: '2025-06-18T14:40:51.000Z', estimated: false, shifted_by: null });
    // The example: WTI of Tue 2025-06-17 is not in the 6/18 workbook; Wed 2025-06-25, end of day EDT.
    expect(spot('PET.RWTC.D', '2025-06-17')).toEqual({ date: '2025-06-25', at: '2025-06-26T03:59:59.000Z', estimated: true, shifted_by: null });
    // 12:16:47 EDT = 16:16:47Z
    expect(spot('NG.RNGWHHD.D', '2024-07-09')).toMatchObject({ at: '2024-07-10T16:16:47.000Z', estimated: false });
    // Henry Hub's Tuesday is in that Wednesday's workbook (recorded without a stamp: the end of the day).
    expect(spot('NG.RNGWHHD.D', '2026-08-18')).toMatchObject({ at: '2026-08-20T03:59:59.000Z', estimated: false });
    expect(spot('PET.RWTC.D', '2026-08-18')).toMatchObject({ at: '2026-08-27T03:59:59.000Z', estimated: true });
    // A Wednesday's price waits for the next week's release (the calendar's own: the shortest lag, Henry Hub's).
    expect(at('eia-spot', '2026-11-25')).toBe('2026-12-03T04:59:59.000Z');
  });

  it('follows the WPSR holiday shifts and announced delays (Labor Day 2026, Christmas 2025, the late WPSR of 2025-12-03)', () => {
    // Labor Day Mon 7 Sep 2026: the WPSR goes out Thu 10 Sep; its end of day EDT.
    expect(spot('PET.RWTC.D', '2026-09-04')).toMatchObject({ at: '2026-09-11T03:59:59.000Z', shifted_by: 'Labor Day' });
    expect(spot('NG.RNGWHHD.D', '2026-09-08')).toMatchObject({ at: '2026-09-11T03:59:59.000Z', shifted_by: 'Labor Day' });
    // Christmas 2025: Mon 29 Dec, end of day EST.
    expect(spot('PET.RWTC.D', '2025-12-22')).toMatchObject({ at: '2025-12-30T04:59:59.000Z' });
    // EIA failed to publish the WPSR on time on Wed 2025-12-03: Monday's price is dated by the next release.
    expect(spot('PET.RWTC.D', '2025-12-01')).toMatchObject({ date: '2025-12-10', estimated: true, shifted_by: expect.stringMatching(/not published on time/) });
  });
});

describe('calendar: the WPSR EIA did not publish on time (2025-12-03)', () => {
  it('dates the week ending 2025-11-28 by the next scheduled release, marked estimated, naming the statement', () => {
    // EIA statement of 3 December 2025: not published on time; the time it came out is not recorded.
    expect(rel('eia-wpsr', '2025-11-28')).toEqual({
      date: '2025-12-10',
      at: '2025-12-10T15:30:00.000Z',
      estimated: true,
      shifted_by: expect.stringMatching(/not published on time on 2025-12-03/),
    });
    // The next week is released as scheduled, at the same instant.
    expect(rel('eia-wpsr', '2025-12-05')).toMatchObject({ at: '2025-12-10T15:30:00.000Z', estimated: false });
  });
});

describe('calendar: USDA WASDE (published dates, else estimated)', () => {
  it('serves the verified dates at 12:00 ET, estimates the others, and knows October 2025 had none', () => {
    expect(rel('usda-wasde', '2026-01-01')).toMatchObject({ at: '2026-01-12T17:00:00.000Z', estimated: false });
    expect(rel('usda-wasde', '2026-02-01')).toMatchObject({ at: '2026-02-10T17:00:00.000Z', estimated: false });
    // March 2026 not verified: Tue 10 March 12:00 EDT (DST from 8 March) = 16:00Z.
    expect(rel('usda-wasde', '2026-03-01')).toMatchObject({ at: '2026-03-10T16:00:00.000Z', estimated: true });
    // October 2026: the 10th is a Saturday, Monday 12th is Columbus Day -> Tuesday 13th.
    expect(rel('usda-wasde', '2026-10-01')).toMatchObject({ date: '2026-10-13', estimated: true });
    expect(rel('usda-wasde', '2025-10-01')).toBeNull();
  });
});

describe('calendar: World Bank Pink Sheet (second business day of the month)', () => {
  it('matches every "Updated on" date seen in the workbooks (fixtures/worldbank/SOURCE.md)', () => {
    // reference month -> release: Jun 2 2021 (Wed), Mar 2 2022 (Wed), Jun 4 2024 (Tue), Dec 3 2024 (Tue),
    // Feb 4 2025 (Tue), Nov 4 2025 (Tue), Dec 2 2025 (Tue), Mar 3 2026 (Tue)
    const seen: Array<[string, string]> = [
      ['2021-05-01', '2021-06-02'],
      ['2022-02-01', '2022-03-02'],
      ['2024-05-01', '2024-06-04'],
      ['2024-11-01', '2024-12-03'],
      ['2025-01-01', '2025-02-04'],
      ['2025-10-01', '2025-11-04'],
      ['2025-11-01', '2025-12-02'],
      ['2026-02-01', '2026-03-03'],
    ];
    for (const [month, day] of seen) expect(rel('worldbank', month), month).toMatchObject({ date: day });
    // No time is stated: the end of the day (EST). Only the release whose workbook is recorded is not estimated.
    expect(rel('worldbank', '2025-11-01')).toEqual({ date: '2025-12-02', at: '2025-12-03T04:59:59.000Z', estimated: false, shifted_by: null });
    expect(rel('worldbank', '2025-10-01')).toMatchObject({ at: '2025-11-05T04:59:59.000Z', estimated: true });
  });

  it('skips weekends and New Year: December 2026 -> Wed 2 Dec, January 2027 -> Tue 5 Jan (1 Jan a Friday holiday)', () => {
    // the schedule's old day window gave Sat 5 Dec 2026 and Sat 2 Jan 2027
    expect(rel('worldbank', '2026-11-01')).toMatchObject({ date: '2026-12-02', at: '2026-12-03T04:59:59.000Z', estimated: true });
    expect(rel('worldbank', '2026-12-01')).toMatchObject({ date: '2027-01-05', at: '2027-01-06T04:59:59.000Z' });
  });
});

describe('calendar: USGS Mineral Commodity Summaries (once a year, end of January)', () => {
  it('MCS 2026 on 6 February 2026 (its data release); MCS 2027 estimated on Friday 29 January 2027, not New Year', () => {
    // No time is stated: the end of the day, 23:59:59 EST (the 2026-02-06T01:00Z is before it, by a day).
    expect(rel('usgs-mcs', '2025-12-31')).toMatchObject({ date: '2026-02-06', at: '2026-02-07T04:59:59.000Z', estimated: false });
    // 31 January 2027 is a Sunday: the last business day before it, Fri 29 Jan, end of day EST
    expect(rel('usgs-mcs', '2026-12-31')).toMatchObject({ date: '2027-01-29', at: '2027-01-30T04:59:59.000Z', estimated: true });
    expect(nextRelease(SOURCES.find((x) => x.id === 'usgs-mcs')!.schedule, new Date('2026-11-26T00:00:00Z'))?.at).toBe('2027-01-30T04:59:59.000Z');
  });
});

describe('calendar: no release instant falls on a weekend or a US federal holiday (every publisher, 2026-2030)', () => {
  /** The publisher's local date of an instant (every publisher here is on Eastern time). */
  const localDate = (iso: string, timeZone: string) => new Date(iso).toLocaleDateString('en-CA', { timeZone });
  const business = (date: string) => isoWeekday(date) <= 5 && federalHoliday(date) === null;

  it.each(Object.keys(PUBLISHER_CALENDARS) as PublisherId[])('%s: every release of every period', (id) => {
    const cal = PUBLISHER_CALENDARS[id];
    const releases = cal
      .periodsAround('2026-01-01', '2030-12-31')
      .map((p) => cal.releaseOf(p))
      .filter((r) => r !== null && r.date >= '2026-01-01' && r.date <= '2030-12-31');
    expect(releases.length).toBeGreaterThan(4);
    const bad = releases.filter((r) => !business(r!.date) || localDate(r!.at, cal.timeZone) !== r!.date);
    expect(bad).toEqual([]);
  });

  it("every source's next release, asked at any instant of 2026-2030 (fast-check, fixed seed)", () => {
    const instants = fc.date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2030-12-31T23:59:59Z'), noInvalidDate: true });
    fc.assert(
      fc.property(instants, fc.constantFrom(...SOURCES), (t, def) => {
        const r = nextRelease(def.schedule, t);
        if (!r) return true;
        const day = localDate(r.at, def.schedule.timeZone);
        return Date.parse(r.at) > t.getTime() && business(day);
      }),
      { seed: 24, numRuns: 3000 },
    );
  });
});

describe('calendar: next release of each publisher on Wednesday 25 November 2026 (Thanksgiving week), before dawn', () => {
  const now = new Date('2026-11-25T04:00:00Z');
  it.each<[PublisherId, string, boolean]>([
    ['eia-wpsr', '2026-11-25T15:30:00.000Z', false],
    ['eia-wngsr', '2026-11-25T17:00:00.000Z', false],
    ['cftc-cot', '2026-11-30T20:30:00.000Z', true],
    ['usda-fas-esr', '2026-11-27T13:30:00.000Z', true],
    ['usda-nass-crop-progress', '2026-11-30T21:00:00.000Z', true],
    ['fed-h10', '2026-11-30T21:15:00.000Z', true],
    ['eia-spot', '2026-11-26T04:59:59.000Z', true],
    ['usda-wasde', '2026-12-10T17:00:00.000Z', true],
    ['worldbank', '2026-12-03T04:59:59.000Z', true],
    ['usgs-mcs', '2027-01-30T04:59:59.000Z', true],
  ])('%s -> %s (estimated: %s)', (id, expected, estimated) => {
    expect(nextReleaseOf(PUBLISHER_CALENDARS[id], now)).toMatchObject({ at: expected, estimated });
  });
});
