/**
 * Which catalog instruments have a CFTC contract market in the disaggregated Commitments of
 * Traders report, and its code. Readers (the COT route's parameter, the catalog's pricing) and
 * the CFTC adapter share this one table.
 */
interface CotContract {
  /** Catalog instrument code. */
  readonly code: string;
  /** CFTC_Contract_Market_Code. */
  readonly cftcCode: string;
  /** True when the market is in the recorded CFTC file the tests read (fixtures/cftc). */
  readonly recorded: boolean;
}

/**
 * Instrument -> CFTC contract market, in catalog order. The eleven `recorded` codes are checked
 * against the recorded CFTC file; the others are CFTC's published codes (ZL soybean oil CBT,
 * CT cotton no. 2 ICE, CC cocoa ICE, ZR rough rice CBT, PL platinum and PA palladium NYMEX, HO
 * NY Harbor ULSD and RB gasoline RBOB NYMEX). BZ (ICE Brent is not in CFTC reports), the
 * LME-style metals and iron ore have no matching CFTC market and are not mapped.
 */
const COT_CONTRACTS: readonly CotContract[] = Object.freeze([
  { code: 'CL', cftcCode: '067651', recorded: true },
  { code: 'NG', cftcCode: '023651', recorded: true },
  { code: 'HO', cftcCode: '022651', recorded: false },
  { code: 'RB', cftcCode: '111659', recorded: false },
  { code: 'GC', cftcCode: '088691', recorded: true },
  { code: 'HG', cftcCode: '085692', recorded: true },
  { code: 'SI', cftcCode: '084691', recorded: true },
  { code: 'PL', cftcCode: '076651', recorded: false },
  { code: 'PA', cftcCode: '075651', recorded: false },
  { code: 'ZC', cftcCode: '002602', recorded: true },
  { code: 'ZW', cftcCode: '001602', recorded: true },
  { code: 'ZS', cftcCode: '005602', recorded: true },
  { code: 'ZL', cftcCode: '007601', recorded: false },
  { code: 'ZM', cftcCode: '026603', recorded: true },
  { code: 'KC', cftcCode: '083731', recorded: true },
  { code: 'CC', cftcCode: '073732', recorded: false },
  { code: 'SB', cftcCode: '080732', recorded: true },
  { code: 'CT', cftcCode: '033661', recorded: false },
  { code: 'ZR', cftcCode: '039601', recorded: false },
]);

/** The CFTC contract of an instrument code, or undefined when it has none. */
const findCotContract = (code: string): CotContract | undefined => COT_CONTRACTS.find((c) => c.code === code);

/** Instrument codes with a CFTC contract market, in catalog order. */
const COT_INSTRUMENTS: readonly string[] = Object.freeze(COT_CONTRACTS.map((c) => c.code));

export { COT_CONTRACTS, COT_INSTRUMENTS, findCotContract };
export type { CotContract };
