/**
 * Partition keys of the observation table (DESIGN.md "Data model"). One place builds them so
 * that writers (ingestion) and readers (routes) cannot drift apart.
 */
const seriesKey = {
  price: (code: string) => `PRICE#${code}`,
  inventory: (key: string) => `INV#${key}`,
  cot: (code: string) => `COT#${code}`,
  /**
   * One market year of a WASDE balance sheet, e.g. WASDE#corn#US#2025/26; sk = the report month
   * (YYYY-MM-01), so the partition is that market year's history of estimates, one item per
   * report (value = ending stocks, attributes = every published line).
   */
  wasde: (commodity: string, region: string, marketYear: string) => `WASDE#${commodity}#${region}#${marketYear}`,
  /**
   * WASDE report index, e.g. WASDE#corn#US; sk = the report month. One item per report naming
   * its market years: the newest two items are the latest and the previous report (one Query,
   * no clock), and the item 12 months back is the year-ago report.
   */
  wasdeReports: (commodity: string, region: string) => `WASDE#${commodity}#${region}`,
  /**
   * NASS crop progress or condition, e.g. CROP#corn#planted, CROP#wheat#winter_condition;
   * sk = week ending (Sunday). Condition items hold good+excellent as value and each class in
   * attributes.
   */
  cropProgress: (commodity: string, statistic: string) => `CROP#${commodity}#${statistic}`,
  /**
   * FAS weekly export sales of one commodity, e.g. ESR#soybeans; sk = week ending (Thursday).
   * value = current-marketing-year net sales, attributes = exports, outstanding sales, etc.
   */
  exportSales: (commodity: string) => `ESR#${commodity}`,
  /** USGS Mineral Commodity Summaries, e.g. USGS#copper#us_production; sk = <year>-12-31. */
  usgs: (commodity: string, statistic: string) => `USGS#${commodity}#${statistic}`,
  /** Run status of one source (last attempt, last success, error). */
  sourceMeta: (sourceId: string) => `META#${sourceId}`,
} as const;

export { seriesKey };
