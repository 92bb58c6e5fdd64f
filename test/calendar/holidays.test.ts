import { describe, expect, it } from 'vitest';
import { federalHoliday, isBusinessDay, nextBusinessDay } from '../../shared/calendar';

// Dates worked out by hand from 5 U.S.C. 6103 and OPM's weekend rule (Saturday -> Friday before,
// Sunday -> Monday after).
describe('calendar: US federal holidays (observed)', () => {
  it('2025: Thanksgiving is the fourth Thursday (27 Nov), Christmas a Thursday, New Year a Wednesday, Labor Day 1 Sep', () => {
    expect(federalHoliday('2025-01-01')).toBe("New Year's Day");
    expect(federalHoliday('2025-09-01')).toBe('Labor Day');
    expect(federalHoliday('2025-11-11')).toBe('Veterans Day');
    expect(federalHoliday('2025-11-27')).toBe('Thanksgiving Day');
    expect(federalHoliday('2025-11-28')).toBeNull(); // the Friday after is a working day
    expect(federalHoliday('2025-12-25')).toBe('Christmas Day');
    // 24 and 26 December 2025 were closed by executive order: not holidays (announced.ts has the moved releases).
    expect(federalHoliday('2025-12-24')).toBeNull();
    expect(federalHoliday('2025-12-26')).toBeNull();
  });

  it('2026: Thanksgiving 26 Nov; 4 July is a Saturday, observed Friday 3 July; Monday holidays', () => {
    expect(federalHoliday('2026-01-01')).toBe("New Year's Day");
    expect(federalHoliday('2026-01-19')).toBe('Birthday of Martin Luther King, Jr.');
    expect(federalHoliday('2026-02-16')).toBe("Washington's Birthday");
    expect(federalHoliday('2026-05-25')).toBe('Memorial Day');
    expect(federalHoliday('2026-06-19')).toBe('Juneteenth National Independence Day');
    expect(federalHoliday('2026-07-03')).toBe('Independence Day');
    expect(federalHoliday('2026-07-04')).toBeNull();
    expect(federalHoliday('2026-09-07')).toBe('Labor Day');
    expect(federalHoliday('2026-10-12')).toBe('Columbus Day');
    expect(federalHoliday('2026-11-11')).toBe('Veterans Day');
    expect(federalHoliday('2026-11-26')).toBe('Thanksgiving Day');
    expect(federalHoliday('2026-12-25')).toBe('Christmas Day');
  });

  it('2027: Sunday 4 July observed Monday 5 July; Saturday Christmas observed Friday 24 Dec; New Year 2028 observed Friday 31 Dec 2027', () => {
    expect(federalHoliday('2027-07-05')).toBe('Independence Day');
    expect(federalHoliday('2027-12-24')).toBe('Christmas Day');
    expect(federalHoliday('2027-12-31')).toBe("New Year's Day");
    expect(federalHoliday('2028-01-01')).toBeNull();
  });

  it('does not count Inauguration Day (the library option stays off)', () => {
    expect(federalHoliday('2021-01-20')).toBeNull(); // a Wednesday inauguration
  });

  it('finds business days around holidays and weekends', () => {
    expect(isBusinessDay('2026-11-25')).toBe(true);
    expect(isBusinessDay('2026-11-26')).toBe(false);
    expect(isBusinessDay('2026-11-28')).toBe(false); // Saturday
    expect(nextBusinessDay('2026-11-25')).toBe('2026-11-27'); // over Thanksgiving
    expect(nextBusinessDay('2026-12-24')).toBe('2026-12-28'); // over Christmas (Friday) and the weekend
    expect(nextBusinessDay('2026-12-31')).toBe('2027-01-04'); // over New Year (Friday) and the weekend
  });
});
