/**
 * How the fundamentals routes compute what they serve (WASDE, crop progress, export sales,
 * mineral summaries): stated in each response and in the methods reference.
 */

const WASDE_METHOD = Object.freeze({
  latest: 'the newest stored WASDE report; every market year it shows (projection, estimate, final)',
  previous_report: 'the same market year in the WASDE report before it',
  year_ago: 'the prior market year, as the newest stored report shows it',
  five_year_average: 'mean of the five prior market years, each as its newest stored report shows it (null until all five are stored)',
  stocks_to_use: 'ending stocks ÷ total use × 100 (derived)',
  soybean_domestic_total: 'crushings + seed + residual (derived; the soybean table prints no domestic total)',
});

const CROP_METHOD = Object.freeze({
  latest: 'the newest weekly report stored for the commodity; statistics not in it (a phase that is over or not begun) are listed under not_in_latest_report',
  previous_report: 'the same statistic in the previous weekly report (7 days earlier)',
  year_ago: 'the same statistic in the week 364 days earlier (±3 days)',
  five_year_average: 'mean of the same week in the five prior years (364-day steps, ±3 days; null until all five are stored)',
  condition: 'value = percent good + excellent (derived); every condition class is in attributes',
});

const ESR_METHOD = Object.freeze({
  latest: 'the newest stored weekly report (sum over the destination countries named in scope; derived)',
  previous_report: 'the weekly report 7 days earlier',
  year_ago: 'the week 364 days earlier (±3 days), i.e. the same week of the prior marketing year',
  five_year_average: 'mean of the same week in the five prior marketing years (null until all five are stored)',
  scope:
    'the destinations summed are named in scope: on every observation (attributes.scope) and every compact line (note); a partial scope is not total U.S. export sales',
});

const USGS_METHOD = Object.freeze({
  latest: 'the newest year stored for each statistic (the newest year of an edition is a USGS estimate: attributes.estimated)',
  previous_report: 'not kept: each MCS edition revises earlier years in place, so only the newest edition figure of a year is stored',
  year_ago: 'the same statistic for the year before',
  five_year_average: 'mean of the five years before the latest (null until all five are stored)',
  frequency:
    'annual figures; freshness_class is "monthly", the slowest class the API defines (attributes.frequency = "annual"); judged by the annual cadence: stale 400 days after the year they describe',
  bounds:
    'a published bound (">140,000,000", "<1"; "s" = less than ½ unit) is served as its number with attributes.bound and, in the compact view, bound ("greater than" / "less than"); no change or average is computed from a bound',
  no_value:
    'W (withheld), NA, E (net exporter), and "s" where USGS notes that no meaningful figure can be calculated, are no value: listed under statistics_without_data with what USGS printed and its note, and as a compact line with value null',
});

export { WASDE_METHOD, CROP_METHOD, ESR_METHOD, USGS_METHOD };
