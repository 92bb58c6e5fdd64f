/**
 * The release calendar: US federal holidays (observed), publisher release rules with their
 * announced exceptions, and wall-clock times in the publishers' time zone. Pure functions.
 */
export { federalHoliday, isBusinessDay, nextBusinessDay, isoWeekday } from './holidays';
export { PUBLISHER_CALENDARS, nextReleaseOf, spotReleaseOf, spotLagDays, CROP_PROGRESS_MONTHS } from './publishers';
export type { PublisherId, PublisherCalendar, Release, Slot } from './publishers';
export { zonedToUtc, atLocal, endOfDay } from './zoned';
