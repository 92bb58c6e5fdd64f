/**
 * Releases the publishers announced off their own holiday rules, and the dated calendars
 * (WASDE). One table per publisher, each row with what moved it; the rules in publishers.ts
 * give every other date. Add a row when a publisher posts a change; a date not here and
 * outside a publisher's verified window is served as estimated.
 */

/** One announced release: the day (publisher's time zone) and the local time. */
interface AnnouncedRelease {
  date: string;
  hour: number;
  minute: number;
  /** Why it moved, as the publisher put it. */
  note: string;
  /** True when the publisher announced a delay but not the release itself: the date is a bound, not the release. */
  estimated?: boolean;
}

/**
 * EIA Weekly Petroleum Status Report, keyed by the week ending (Friday). Sources: EIA's holiday
 * release schedule, https://www.eia.gov/petroleum/supply/weekly/schedule.php (its 2025-2026 rows;
 * every other row of those years is what the rule gives), and EIA's statements on missed releases.
 * The spot prices (eia-spot) go out with the WPSR and share its rows.
 */
const EIA_WPSR_ANNOUNCED: Readonly<Record<string, AnnouncedRelease>> = Object.freeze({
  // Statement of the EIA Administrator, 3 December 2025 (https://www.eia.gov/pressroom/releases/press580.php):
  // "EIA failed to publish the Weekly Petroleum Status Report on time". When the report then came out
  // is not recorded here, so its figures are dated by the next scheduled release (Wednesday 10 December
  // 10:30 ET), which carries this week as its week-ago column: the earliest instant it is sure to be out.
  '2025-11-28': {
    date: '2025-12-10',
    hour: 10,
    minute: 30,
    note: 'not published on time on 2025-12-03 (EIA statement of that day); dated by the next scheduled release, the actual time not being recorded',
    estimated: true,
  },
  // Christmas Day fell on a Thursday and 24 and 26 December were closed by executive order.
  '2025-12-19': { date: '2025-12-29', hour: 17, minute: 0, note: 'Christmas (federal offices closed 24-26 December 2025)' },
});

/**
 * EIA Weekly Natural Gas Storage Report, keyed by the week ending (Friday). Source: EIA's WNGSR
 * release schedule, https://ir.eia.gov/ngs/schedule.html (its September 2025 - December 2026 rows).
 */
const EIA_WNGSR_ANNOUNCED: Readonly<Record<string, AnnouncedRelease>> = Object.freeze({
  '2025-12-19': { date: '2025-12-29', hour: 12, minute: 0, note: 'Christmas (federal offices closed 24-26 December 2025)' },
});

/**
 * CFTC Commitments of Traders, keyed by the report date: the catch-up schedule after the
 * October-November 2025 lapse in appropriations. Source: CFTC press release of 18 November 2025,
 * "CFTC To Resume Publishing COT Reports Wednesday", https://www.cftc.gov/PressRoom/PressReleases
 * (table "Commitments of Traders Publication Schedule", all at 3:30 p.m. ET).
 */
const CFTC_COT_ANNOUNCED: Readonly<Record<string, AnnouncedRelease>> = Object.freeze(
  Object.fromEntries(
    (
      [
        ['2025-09-30', '2025-11-19'],
        ['2025-10-07', '2025-11-21'],
        ['2025-10-14', '2025-11-25'],
        ['2025-10-21', '2025-12-02'],
        ['2025-10-28', '2025-12-05'],
        ['2025-11-04', '2025-12-09'],
        ['2025-11-10', '2025-12-12'],
        ['2025-11-18', '2025-12-16'],
        ['2025-11-25', '2025-12-19'],
        ['2025-12-02', '2025-12-23'],
        ['2025-12-09', '2025-12-30'],
        ['2025-12-16', '2026-01-06'],
        ['2025-12-23', '2026-01-09'],
        ['2025-12-30', '2026-01-13'],
        ['2026-01-06', '2026-01-16'],
        ['2026-01-13', '2026-01-20'],
      ] as const
    ).map(([report, date]) => [report, { date, hour: 15, minute: 30, note: 'catch-up after the 2025 lapse in appropriations' }]),
  ),
);

/**
 * WASDE release days (12:00 ET), keyed by report month. USDA publishes each year's dates in
 * advance (https://www.usda.gov/oce/commodity/wasde). Verified here: USDA's 2025 calendar (as
 * printed in CME Group's 2025 report guide), with the October 2025 report cancelled and
 * November's moved to the 14th during the federal shutdown; 12 January 2026; and, from the 2026
 * schedule printed in the February 2026 report (wasde0226, page 6), 10 February, 12 August and
 * 11 September 2026. Other months are estimated; null = no report that month.
 */
const WASDE_RELEASE_DATES: Readonly<Record<string, string | null>> = Object.freeze({
  '2025-01': '2025-01-10',
  '2025-02': '2025-02-11',
  '2025-03': '2025-03-11',
  '2025-04': '2025-04-10',
  '2025-05': '2025-05-12',
  '2025-06': '2025-06-12',
  '2025-07': '2025-07-11',
  '2025-08': '2025-08-12',
  '2025-09': '2025-09-12',
  '2025-10': null,
  '2025-11': '2025-11-14',
  '2025-12': '2025-12-09',
  '2026-01': '2026-01-12',
  '2026-02': '2026-02-10',
  '2026-08': '2026-08-12',
  '2026-09': '2026-09-11',
});

export { EIA_WPSR_ANNOUNCED, EIA_WNGSR_ANNOUNCED, CFTC_COT_ANNOUNCED, WASDE_RELEASE_DATES };
export type { AnnouncedRelease };
