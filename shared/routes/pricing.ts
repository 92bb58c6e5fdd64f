/**
 * Per-call prices (SPEC.md "Paid routes") and the integer conversions every lane uses.
 * Money never touches floating point: a USD price is a decimal string, converted by string
 * arithmetic to credits (1 credit = 0.01 USD) or USDC atomic units (6 decimals).
 */
const PRICES_USD = Object.freeze({
  PRICE: '0.01',
  PRICES_BUNDLE: '0.02',
  HISTORY: '0.02',
  CURVE: '0.03',
  INVENTORY_BUNDLE: '0.03',
  INVENTORY_SERIES: '0.02',
  COT: '0.02',
  CRACK: '0.03',
  CRUSH: '0.03',
  BASIS: '0.03',
  CALENDAR: '0.02',
  WASDE: '0.03',
  CROP_PROGRESS: '0.02',
  EXPORT_SALES: '0.02',
  USGS: '0.03',
  FX: '0.01',
  SNAPSHOT: '0.05',
  DECISION: '0.10',
  SNAPSHOT_ALL: '0.12',
  DECISION_ALL: '0.25',
} as const);

type PriceKey = keyof typeof PRICES_USD;

const USD_PATTERN = /^(\d+)(?:\.(\d{1,2}))?$/;

/**
 * Whole US cents of a USD decimal string ("0.02" -> 2). Throws on more than 2 decimals,
 * because a price that is not a whole number of credits cannot be debited exactly.
 * @example usdToCents('0.25') // 25
 */
const usdToCents = (usd: string): number => {
  const m = USD_PATTERN.exec(usd);
  if (!m) throw new Error(`not a USD amount with at most 2 decimals: ${usd}`);
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
};

/** Credits for a USD price: 1 credit = 0.01 USD. @example usdToCredits('0.10') // 10 */
const usdToCredits = (usd: string): number => usdToCents(usd);

/** USDC has 6 decimals, so 1 cent = 10,000 atomic units. */
const ATOMIC_PER_CENT = 10_000n;

/** USDC atomic units, as the decimal string x402 puts on the wire. @example usdToAtomic('0.01') // '10000' */
const usdToAtomic = (usd: string): string => (BigInt(usdToCents(usd)) * ATOMIC_PER_CENT).toString();

export { PRICES_USD, usdToCents, usdToCredits, usdToAtomic };
export type { PriceKey };
