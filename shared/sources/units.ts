/**
 * Unit conversion factors: the one place a published unit becomes a catalog unit.
 *
 * Every factor is derived from a definition, never typed as a rounded decimal, so that a
 * reviewer can check it against its reference:
 * - Pound: 1 lb = 0.45359237 kg exactly (International Yard and Pound Agreement, 1959;
 *   NIST Handbook 44, Appendix C, "Avoirdupois pound").
 * - Short ton = 2,000 lb; hundredweight (cwt, U.S.) = 100 lb (NIST Handbook 44, Appendix C).
 * - Bushel weights for trade: corn 56 lb, wheat 60 lb, soybeans 60 lb (USDA ERS, "Weights,
 *   Measures, and Conversion Factors for Agricultural Commodities and Their Products",
 *   Agricultural Handbook 697, 1992, table 1). That handbook prints the rounded factors
 *   39.3679 bu/mt (corn) and 36.7437 bu/mt (wheat, soybeans); the exact values below differ
 *   from them by less than 0.001 %.
 * - Troy ounce: the World Bank's "$/troy oz" is the catalog's "USD/oz" (precious metals are
 *   quoted per troy ounce, 31.1034768 g), so no conversion is applied.
 *
 * A converted observation is `quality: "derived"`, keeps the published value and unit in its
 * attributes, and names the factor below in `attributes.conversion`.
 */

/** Kilograms per avoirdupois pound (exact by definition). */
const KG_PER_LB = 0.45359237;
/** Pounds per metric ton: 1000 / 0.45359237 = 2204.62262… */
const LB_PER_MT = 1000 / KG_PER_LB;
/** Metric tons per short ton (2,000 lb): 0.90718474. */
const MT_PER_SHORT_TON = (2000 * KG_PER_LB) / 1000;
/** Hundredweights (100 lb) per metric ton: 22.0462262… */
const CWT_PER_MT = LB_PER_MT / 100;
/** Bushels per metric ton by the USDA trade bushel weight. */
const BU_PER_MT = Object.freeze({
  corn: LB_PER_MT / 56, // 39.3682611…
  wheat: LB_PER_MT / 60, // 36.7437103…
  soybeans: LB_PER_MT / 60, // 36.7437103…
});

/** One conversion from a published unit to a catalog unit: catalog = published × multiply. */
interface Conversion {
  /** Published unit as the publisher writes it, e.g. "$/mt". */
  readonly from: string;
  /** Catalog unit, e.g. "USD/bu". */
  readonly to: string;
  readonly multiply: number;
  /** Human-readable method with its reference, copied into `attributes.conversion`. */
  readonly method: string;
}

const conversion = (from: string, to: string, multiply: number, method: string): Conversion => Object.freeze({ from, to, multiply, method });

/** The conversions the World Bank Pink Sheet needs, by name. */
const CONVERSIONS = Object.freeze({
  maizeMtToBu: conversion('$/mt', 'USD/bu', 1 / BU_PER_MT.corn, 'USD/mt ÷ 39.3682611 bu/mt (corn, 56 lb bushel; USDA ERS AH-697)'),
  wheatMtToBu: conversion('$/mt', 'USD/bu', 1 / BU_PER_MT.wheat, 'USD/mt ÷ 36.7437103 bu/mt (wheat, 60 lb bushel; USDA ERS AH-697)'),
  soybeansMtToBu: conversion('$/mt', 'USD/bu', 1 / BU_PER_MT.soybeans, 'USD/mt ÷ 36.7437103 bu/mt (soybeans, 60 lb bushel; USDA ERS AH-697)'),
  mtToLb: conversion('$/mt', 'USD/lb', 1 / LB_PER_MT, 'USD/mt ÷ 2204.62262 lb/mt (1 lb = 0.45359237 kg, NIST HB 44)'),
  mtToShortTon: conversion('$/mt', 'USD/short ton', MT_PER_SHORT_TON, 'USD/mt × 0.90718474 mt/short ton (2,000 lb, NIST HB 44)'),
  mtToCwt: conversion('$/mt', 'USD/cwt', 1 / CWT_PER_MT, 'USD/mt ÷ 22.0462262 cwt/mt (cwt = 100 lb, NIST HB 44)'),
  kgToLb: conversion('$/kg', 'USD/lb', KG_PER_LB, 'USD/kg × 0.45359237 kg/lb (NIST HB 44)'),
  kgToMt: conversion('$/kg', 'USD/metric ton', 1000, 'USD/kg × 1000 kg/mt'),
});

/**
 * Applies a conversion, rounded to 10 significant digits: more than the publisher's own
 * precision (the Pink Sheet's monthly averages are good to a cent or a tenth of a cent), and
 * free of binary noise such as 5.1314190000000001.
 */
const convert = (value: number, c: Conversion): number => Number((value * c.multiply).toPrecision(10));

export { LB_PER_MT, MT_PER_SHORT_TON, CWT_PER_MT, BU_PER_MT, CONVERSIONS, convert };
export type { Conversion };
