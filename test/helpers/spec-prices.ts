/** A literal copy of SPEC.md "Paid routes" (path, price key, price USD): a changed price in the table fails here. */
const SPEC_PAID_ROUTES: ReadonlyArray<readonly [string, string, string]> = [
  ['/v1/price/{code}', 'PRICE', '0.01'],
  ['/v1/prices', 'PRICES_BUNDLE', '0.02'],
  ['/v1/history/{code}', 'HISTORY', '0.02'],
  ['/v1/curve/{root}', 'CURVE', '0.03'],
  ['/v1/inventory/eia', 'INVENTORY_BUNDLE', '0.03'],
  ['/v1/inventory/eia/{series}', 'INVENTORY_SERIES', '0.02'],
  ['/v1/cot/{code}', 'COT', '0.02'],
  ['/v1/spreads/crack', 'CRACK', '0.03'],
  ['/v1/spreads/crush', 'CRUSH', '0.03'],
  ['/v1/spreads/basis', 'BASIS', '0.03'],
  ['/v1/spreads/calendar/{root}', 'CALENDAR', '0.02'],
  ['/v1/fundamentals/wasde', 'WASDE', '0.03'],
  ['/v1/fundamentals/crop-progress', 'CROP_PROGRESS', '0.02'],
  ['/v1/fundamentals/export-sales', 'EXPORT_SALES', '0.02'],
  ['/v1/fundamentals/usgs', 'USGS', '0.03'],
  ['/v1/fx/{pair}', 'FX', '0.01'],
  ['/v1/snapshot/{sector}', 'SNAPSHOT', '0.05'],
  ['/v1/decision/{sector}', 'DECISION', '0.10'],
  ['/v1/snapshot/all', 'SNAPSHOT_ALL', '0.12'],
  ['/v1/decision/all', 'DECISION_ALL', '0.25'],
];

export { SPEC_PAID_ROUTES };
