const SECTORS = ['energy', 'metals', 'ags'] as const;
/** Sector codes of the snapshot/decision routes; `all` is a separate fixed route. */
type Sector = (typeof SECTORS)[number];

/** Instrument sector includes fx, which has no snapshot/decision route. */
type InstrumentSector = Sector | 'fx';

const FRESHNESS_CLASSES = ['eod', 'weekly', 'monthly', 'decree', 'intraday', 'delayed'] as const;
type FreshnessClass = (typeof FRESHNESS_CLASSES)[number];

interface Instrument {
  readonly code: string;
  readonly meaning: string;
  readonly sector: InstrumentSector;
  readonly unit: string;
  readonly freshness: FreshnessClass;
  /** Futures root on the exchange, for the curve/calendar routes (null: no futures root sold). */
  readonly futuresRoot: string | null;
  /** Registry id of the source that publishes it; null when no primary source is served (not live). */
  readonly sourceId: string | null;
}

/** Publisher per sector (registry ids). */
const SOURCE_OF_SECTOR: Readonly<Record<InstrumentSector, string>> = Object.freeze({
  energy: 'eia-spot',
  metals: 'worldbank',
  ags: 'worldbank',
  fx: 'fred',
});

/**
 * Instruments listed by the spec but not served, with the reason. Palladium is not in the
 * World Bank Pink Sheet and no primary source publishes a monthly price for it.
 */
const NOT_LIVE: Readonly<Record<string, string>> = Object.freeze({
  PA:
    'no primary source publishes a monthly palladium price (it is not in the World Bank Pink Sheet); ' +
    "USGS's annual dealer average is served as such by /v1/fundamentals/usgs?commodity=palladium",
});

const row = (code: string, meaning: string, sector: InstrumentSector, unit: string, freshness: FreshnessClass, futuresRoot: string | null = code): Instrument =>
  Object.freeze({ code, meaning, sector, unit, freshness, futuresRoot, sourceId: NOT_LIVE[code] ? null : SOURCE_OF_SECTOR[sector] });

/** The 27 instruments of SPEC.md, in the spec's order. */
const INSTRUMENTS: readonly Instrument[] = Object.freeze([
  row('CL', 'WTI crude, Cushing', 'energy', 'USD/bbl', 'eod'),
  row('BZ', 'Brent crude', 'energy', 'USD/bbl', 'eod'),
  row('NG', 'Natural gas, Henry Hub', 'energy', 'USD/MMBtu', 'eod'),
  row('HO', 'NY Harbor heating oil / ULSD', 'energy', 'USD/gal', 'eod'),
  row('RB', 'Gulf Coast gasoline (RBOB proxy)', 'energy', 'USD/gal', 'eod'),
  row('GC', 'Gold', 'metals', 'USD/oz', 'monthly'),
  row('HG', 'Copper', 'metals', 'USD/metric ton', 'monthly'),
  row('SI', 'Silver', 'metals', 'USD/oz', 'monthly'),
  row('PL', 'Platinum', 'metals', 'USD/oz', 'monthly'),
  row('PA', 'Palladium', 'metals', 'USD/oz', 'monthly'),
  row('AL', 'Aluminum', 'metals', 'USD/metric ton', 'monthly', null),
  row('NI', 'Nickel', 'metals', 'USD/metric ton', 'monthly', null),
  row('ZN', 'Zinc', 'metals', 'USD/metric ton', 'monthly', null),
  row('IO', 'Iron ore', 'metals', 'USD/dmtu', 'monthly', null),
  row('ZC', 'Corn', 'ags', 'USD/bu', 'monthly'),
  row('ZW', 'Wheat SRW', 'ags', 'USD/bu', 'monthly'),
  row('ZS', 'Soybeans', 'ags', 'USD/bu', 'monthly'),
  row('ZL', 'Soybean oil', 'ags', 'USD/lb', 'monthly'),
  row('ZM', 'Soybean meal', 'ags', 'USD/short ton', 'monthly'),
  row('KC', 'Coffee', 'ags', 'USD/lb', 'monthly'),
  row('CC', 'Cocoa', 'ags', 'USD/metric ton', 'monthly'),
  row('SB', 'Sugar #11', 'ags', 'USD/lb', 'monthly'),
  row('CT', 'Cotton', 'ags', 'USD/lb', 'monthly'),
  row('ZR', 'Rice', 'ags', 'USD/cwt', 'monthly'),
  row('DTWEXBGS', 'Trade-weighted USD, broad', 'fx', 'index', 'eod', null),
  row('EURUSD', 'USD per euro', 'fx', 'USD/EUR', 'eod', null),
  row('USDCNY', 'Chinese yuan per USD', 'fx', 'CNY/USD', 'eod', null),
]);

/**
 * Where the served cash figure is not what a trader assumes from the code (World Bank Pink Sheet
 * series; definitions from its Description sheet, see fixtures/worldbank/SOURCE.md). The catalog
 * and every observation's attributes say so.
 */
const CASH_PROXY_NOTES: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({
  CT: 'Cotton, A Index (Cotlook A, a physical cotton index), not ICE Cotton No. 2 futures',
  ZR: 'Rice, Thai 5% broken (milled, Bangkok export quote), not CBOT rough rice futures',
  ZS: 'Pink Sheet soybeans: U.S.-origin quotes since January 2025 (another origin before), not CBOT futures',
  ZL: 'Pink Sheet soybean oil: U.S.-origin quotes since January 2025 (another origin before), not CBOT futures',
  ZM: 'Pink Sheet soybean meal: U.S.-origin quotes since January 2025 (another origin before), not CBOT futures',
  GC: 'Pink Sheet gold: the spot average of daily rates from June 2025',
  PL: 'Pink Sheet platinum: the spot average of daily rates from June 2025',
});

const BY_CODE: ReadonlyMap<string, Instrument> = new Map(INSTRUMENTS.map((i) => [i.code, i]));

/** Look an instrument up by its (already upper-cased) code. */
const findInstrument = (code: string): Instrument | undefined => BY_CODE.get(code);

/** Instruments of one sector, in catalog order. */
const instrumentsOf = (sector: InstrumentSector): Instrument[] => INSTRUMENTS.filter((i) => i.sector === sector);

/** FX pairs served by /v1/fx/{pair}: the fx-sector codes. */
const FX_PAIRS: readonly string[] = /* @__PURE__ */ Object.freeze(instrumentsOf('fx').map((i) => i.code));

/** Futures roots for /v1/curve/{root} and /v1/spreads/calendar/{root}. */
const FUTURES_ROOTS: readonly string[] = /* @__PURE__ */ Object.freeze(INSTRUMENTS.flatMap((i) => (i.futuresRoot ? [i.futuresRoot] : [])));

export { CASH_PROXY_NOTES, NOT_LIVE, SECTORS, FRESHNESS_CLASSES, INSTRUMENTS, FX_PAIRS, FUTURES_ROOTS, findInstrument, instrumentsOf };
export type { Sector, InstrumentSector, FreshnessClass, Instrument };
