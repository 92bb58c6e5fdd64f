/**
 * The fundamentals the service serves, per report: which commodities and statistics. Readers
 * (routes, snapshots) and the source adapters both take them from here, so a reader never pulls
 * a parser into its bundle.
 */

/** USDA NASS Crop Progress: commodities and, per commodity, the statistics served in crop-calendar order. */
const CROP_COMMODITIES = ['corn', 'soybeans', 'wheat'] as const;
type CropCommodity = (typeof CROP_COMMODITIES)[number];

const CROP_STATISTICS: Readonly<Record<CropCommodity, readonly string[]>> = Object.freeze({
  corn: ['planted', 'emerged', 'silking', 'dough', 'dented', 'mature', 'harvested', 'condition'],
  soybeans: ['planted', 'emerged', 'blooming', 'setting_pods', 'dropping_leaves', 'harvested', 'condition'],
  wheat: [
    'winter_planted',
    'winter_emerged',
    'winter_headed',
    'winter_harvested',
    'winter_condition',
    'spring_planted',
    'spring_emerged',
    'spring_headed',
    'spring_harvested',
    'spring_condition',
  ],
});

/** USDA WASDE balance sheets served. */
const WASDE_COMMODITIES = ['corn', 'soybeans', 'wheat'] as const;
type WasdeCommodity = (typeof WASDE_COMMODITIES)[number];

/** USDA FAS Export Sales: commodity codes of the ESR API and marketing-year start months. */
const ESR_COMMODITIES = Object.freeze({
  soybeans: { code: 801, name: 'Soybeans', myStartMonth: 9 },
  corn: { code: 401, name: 'Corn', myStartMonth: 9 },
  wheat: { code: 107, name: 'All Wheat', myStartMonth: 6 },
} as const);
type EsrCommodity = keyof typeof ESR_COMMODITIES;
const ESR_COMMODITY_SLUGS = Object.keys(ESR_COMMODITIES) as EsrCommodity[];

export { CROP_COMMODITIES, CROP_STATISTICS, WASDE_COMMODITIES, ESR_COMMODITIES, ESR_COMMODITY_SLUGS };
export type { CropCommodity, WasdeCommodity, EsrCommodity };
