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

/** USGS Mineral Commodity Summaries: per metal (route order), the statistics served and their labels. */
interface UsgsSeries {
  readonly commodity: string;
  readonly statistics: ReadonlyArray<{ readonly statistic: string; readonly label: string }>;
}

const NIR = { statistic: 'net_import_reliance', label: 'U.S. net import reliance' } as const;
/** The usual five: mine production (U.S., world), reserves (U.S., world), net import reliance. */
const MINE = [
  { statistic: 'us_production', label: 'U.S. mine production' },
  { statistic: 'world_production', label: 'World mine production' },
  { statistic: 'us_reserves', label: 'U.S. reserves' },
  { statistic: 'world_reserves', label: 'World reserves' },
  NIR,
] as const;
const price = (label: string) => ({ statistic: 'price', label });
const pgm = (metal: string) => [
  { statistic: 'us_production', label: `U.S. mine production (${metal.toLowerCase()})` },
  { statistic: 'world_production', label: `World mine production (${metal.toLowerCase()})` },
  { statistic: 'us_pgm_reserves', label: 'U.S. reserves, all platinum-group metals' },
  { statistic: 'world_pgm_reserves', label: 'World reserves, all platinum-group metals' },
  price(`${metal} price, annual average (Engelhard unfabricated metal)`),
  NIR,
];

const USGS_SERIES: readonly UsgsSeries[] = Object.freeze([
  { commodity: 'copper', statistics: [...MINE, price('Copper price, COMEX high-grade first position, annual average')] },
  {
    commodity: 'aluminum',
    // Aluminum has no reserves (they are bauxite's); its world figure is smelter production.
    statistics: [
      { statistic: 'us_production', label: 'U.S. primary production' },
      { statistic: 'world_production', label: 'World smelter production' },
      price('Aluminum ingot price, average U.S. market (spot)'),
      NIR,
    ],
  },
  { commodity: 'nickel', statistics: [...MINE, price('Nickel price, LME cash, annual average')] },
  { commodity: 'zinc', statistics: [...MINE, price('Zinc price, North American, annual average')] },
  {
    commodity: 'iron_ore',
    statistics: [
      { statistic: 'us_production', label: 'U.S. production, usable iron ore' },
      { statistic: 'world_production', label: 'World mine production, usable ore' },
      { statistic: 'us_reserves', label: 'U.S. reserves, crude ore' },
      { statistic: 'world_reserves', label: 'World reserves, crude ore' },
      price('Iron ore, average unit value reported by mines'),
      NIR,
    ],
  },
  { commodity: 'gold', statistics: [...MINE, price('Gold price, annual average')] },
  { commodity: 'silver', statistics: [...MINE, price('Silver bullion price, annual average')] },
  { commodity: 'platinum', statistics: pgm('Platinum') },
  { commodity: 'palladium', statistics: pgm('Palladium') },
]);

/** The label of a served USGS statistic; throws on one the catalog does not list (a definition drift). */
const usgsLabel = (commodity: string, statistic: string): string => {
  const label = USGS_SERIES.find((c) => c.commodity === commodity)?.statistics.find((s) => s.statistic === statistic)?.label;
  if (!label) throw new Error(`USGS ${commodity} ${statistic} is not in the catalog`);
  return label;
};

export { CROP_COMMODITIES, CROP_STATISTICS, WASDE_COMMODITIES, ESR_COMMODITIES, ESR_COMMODITY_SLUGS, USGS_SERIES, usgsLabel };
export type { UsgsSeries };
export type { CropCommodity, WasdeCommodity, EsrCommodity };
