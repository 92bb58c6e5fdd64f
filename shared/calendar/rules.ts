/**
 * Each publisher's release rule in words, with the page that states it: the method documents print
 * it beside the calendar (publishers.ts) that implements it. Apart so the data functions, which
 * compute releases, do not bundle the prose.
 */
import type { PublisherId } from './publishers';

const PUBLISHER_RULES: Readonly<Record<PublisherId, string>> = Object.freeze({
  'eia-wpsr': 'Wednesdays 10:30 ET; Thursday 12:00 ET after a federal holiday on the Monday-Wednesday of the release week (EIA WPSR holiday release schedule)',
  'eia-spot':
    "weekly with the Weekly Petroleum Status Report's week (holiday shifts and announced delays included): a Wednesday release carries Henry Hub through the Tuesday and the petroleum prices through the Monday (EIA's recorded workbooks); no time is stated, so a release not recorded is dated by the end of its day",
  'eia-wngsr':
    'Thursdays 10:30 ET; Wednesday 12:00 ET when Thursday is a federal holiday; Friday 10:30 ET after a Tuesday or Wednesday holiday (EIA WNGSR schedule)',
  'cftc-cot':
    'Fridays 15:30 ET for the Tuesday report date; the next business day (Monday) after a federal holiday on the Wednesday-Friday (CFTC release schedule)',
  'usda-fas-esr': 'Thursdays 08:30 ET for the week ending the Thursday before; Friday 08:30 ET in a week with a federal holiday (FAS Export Sales Reporting)',
  'usda-nass-crop-progress': 'Mondays 16:00 ET, April-November; Tuesday 16:00 ET after a Monday federal holiday (NASS Crop Progress)',
  'fed-h10': "weekly, Mondays 16:15 ET with the previous week's daily rates; Tuesday after a Monday federal holiday (Federal Reserve H.10)",
  'usda-wasde':
    "USDA's published WASDE day for each month, 12:00 ET; months not yet verified here are estimated as the first business day on or after the 10th",
  worldbank:
    'the second business day of each month, with the previous month\'s averages (the workbook\'s "Updated on" dates); time not stated, so the end of that day (ET); each month is dated by its first release',
  'usgs-mcs': 'once a year, the last business day of January, with the previous year (MCS 2026: 6 February 2026); time not stated, so the end of that day (ET)',
});

export { PUBLISHER_RULES };
