/**
 * Wall-clock times in a publisher's time zone as UTC instants (DST-aware, from the platform's
 * time-zone data): release times are stated in local time ("10:30 a.m. Eastern").
 */

// Building a formatter is the costly part (time-zone data lookup): one per zone.
const formatters = new Map<string, Intl.DateTimeFormat>();
const formatterOf = (timeZone: string): Intl.DateTimeFormat => {
  let f = formatters.get(timeZone);
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
    formatters.set(timeZone, f);
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

/**
 * The UTC instant of a wall-clock time in a time zone (DST-aware).
 * @example zonedToUtc(2026, 11, 25, 12, 0, 'America/New_York').toISOString() // '2026-11-25T17:00:00.000Z'
 */
const zonedToUtc = (y: number, m: number, d: number, hour: number, minute: number, timeZone: string, second = 0): Date => {
  const guess = Date.UTC(y, m - 1, d, hour, minute, second);
  const first = guess - zoneOffsetMs(guess, timeZone);
  // Re-check once: the offset at the guess may differ from the offset at the answer around DST.
  return new Date(guess - zoneOffsetMs(first, timeZone));
};

/** `zonedToUtc` for a YYYY-MM-DD date, as an ISO string. @example atLocal('2026-11-25', 12, 0, 'America/New_York') // '2026-11-25T17:00:00.000Z' */
const atLocal = (date: string, hour: number, minute: number, timeZone: string, second = 0): string => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return zonedToUtc(y, m, d, hour, minute, timeZone, second).toISOString();
};

/** The last second of `date` in `timeZone` (23:59:59 local). @example endOfDay('2026-02-06', 'America/New_York') // '2026-02-07T04:59:59.000Z' */
const endOfDay = (date: string, timeZone: string): string => atLocal(date, 23, 59, timeZone, 59);

export { zonedToUtc, atLocal, endOfDay };
