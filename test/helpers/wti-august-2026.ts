/** EIA RWTC, Cushing WTI spot (USD/bbl), the ten business days 2026-08-05..2026-08-18 (fixtures/eia/daily.RWTC…csv). */
const WTI_AUGUST_2026: ReadonlyArray<readonly [string, number]> = Object.freeze([
  ['2026-08-05', 76.78],
  ['2026-08-06', 78.88],
  ['2026-08-07', 79.77],
  ['2026-08-10', 83.76],
  ['2026-08-11', 84.77],
  ['2026-08-12', 84.97],
  ['2026-08-13', 82.77],
  ['2026-08-14', 83.99],
  ['2026-08-17', 86.04],
  ['2026-08-18', 86.48],
]);

export { WTI_AUGUST_2026 };
