/**
 * The 7 weekly inventory series of SPEC.md, keyed as the single-series route expects.
 */
interface InventorySeries {
  readonly key: string;
  /** Series id as SPEC.md writes it (EIA API v1 style, also the `/v2/seriesid/` path). */
  readonly seriesId: string;
  readonly unit: string;
  readonly meaning: string;
  /** Registry id of the report that publishes it. */
  readonly sourceId: 'eia-petroleum' | 'eia-gas-storage';
}

const INVENTORY_SERIES: readonly InventorySeries[] = Object.freeze([
  { key: 'crude_ex_spr', seriesId: 'PET.WCESTUS1.W', unit: 'Mbbl', meaning: 'U.S. crude oil ending stocks excluding SPR', sourceId: 'eia-petroleum' },
  {
    key: 'cushing',
    seriesId: 'PET.W_EPC0_SAX_YCUOK_MBBL.W',
    unit: 'Mbbl',
    meaning: 'Cushing, OK crude oil ending stocks excluding SPR',
    sourceId: 'eia-petroleum',
  },
  { key: 'gasoline', seriesId: 'PET.WGTSTUS1.W', unit: 'Mbbl', meaning: 'U.S. total motor gasoline ending stocks', sourceId: 'eia-petroleum' },
  { key: 'distillate', seriesId: 'PET.WDISTUS1.W', unit: 'Mbbl', meaning: 'U.S. distillate fuel oil ending stocks', sourceId: 'eia-petroleum' },
  { key: 'refinery_util', seriesId: 'PET.WPULEUS3.W', unit: '%', meaning: 'U.S. percent utilization of refinery operable capacity', sourceId: 'eia-petroleum' },
  { key: 'crude_runs', seriesId: 'PET.WCRRIUS2.W', unit: 'kb/d', meaning: 'U.S. refiner net input of crude oil', sourceId: 'eia-petroleum' },
  { key: 'ng_storage', seriesId: 'NW2_EPG0_SWO_R48_BCF.W', unit: 'Bcf', meaning: 'Working gas in underground storage, Lower 48', sourceId: 'eia-gas-storage' },
]);

const INVENTORY_KEYS: readonly string[] = Object.freeze(INVENTORY_SERIES.map((s) => s.key));

/** Look an inventory series up by its route key. */
const findInventorySeries = (key: string): InventorySeries | undefined => INVENTORY_SERIES.find((s) => s.key === key);

export { INVENTORY_SERIES, INVENTORY_KEYS, findInventorySeries };
export type { InventorySeries };
