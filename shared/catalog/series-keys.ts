/**
 * Partition keys of the observation table (DESIGN.md "Data model"). One place builds them so
 * that writers (ingestion) and readers (routes) cannot drift apart.
 */
const seriesKey = {
  price: (code: string) => `PRICE#${code}`,
  inventory: (key: string) => `INV#${key}`,
  cot: (code: string) => `COT#${code}`,
  /** e.g. WASDE#corn#US#2025/26 */
  wasde: (commodity: string, region: string, marketYear: string) => `WASDE#${commodity}#${region}#${marketYear}`,
  cropProgress: (commodity: string, statistic: string) => `CROP#${commodity}#${statistic}`,
  exportSales: (commodity: string) => `ESR#${commodity}`,
  usgs: (commodity: string, statistic: string) => `USGS#${commodity}#${statistic}`,
  /** Run status of one source (last attempt, last success, error). */
  sourceMeta: (sourceId: string) => `META#${sourceId}`,
} as const;

export { seriesKey };
