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
}

/**
 * Instrument -> CFTC contract market, in catalog order. Every code is checked against the
 * recorded CFTC files (fixtures/cftc: the managed-money history of these 20 markets, 2023-2026).
 * BZ is NYMEX "BRENT LAST DAY" (06765T), the Brent futures market the CFTC reports (ICE Brent
 * is not in its reports). The LME-style metals and iron ore have no matching CFTC market and
 * are not mapped.
 */
const COT_CONTRACTS: readonly CotContract[] = Object.freeze([
  { code: 'CL', cftcCode: '067651' },
  { code: 'BZ', cftcCode: '06765T' },
  { code: 'NG', cftcCode: '023651' },
  { code: 'HO', cftcCode: '022651' },
  { code: 'RB', cftcCode: '111659' },
  { code: 'GC', cftcCode: '088691' },
  { code: 'HG', cftcCode: '085692' },
  { code: 'SI', cftcCode: '084691' },
  { code: 'PL', cftcCode: '076651' },
  { code: 'PA', cftcCode: '075651' },
  { code: 'ZC', cftcCode: '002602' },
  { code: 'ZW', cftcCode: '001602' },
  { code: 'ZS', cftcCode: '005602' },
  { code: 'ZL', cftcCode: '007601' },
  { code: 'ZM', cftcCode: '026603' },
  { code: 'KC', cftcCode: '083731' },
  { code: 'CC', cftcCode: '073732' },
  { code: 'SB', cftcCode: '080732' },
  { code: 'CT', cftcCode: '033661' },
  { code: 'ZR', cftcCode: '039601' },
]);

/** The CFTC contract of an instrument code, or undefined when it has none. */
const findCotContract = (code: string): CotContract | undefined => COT_CONTRACTS.find((c) => c.code === code);

/** Instrument codes with a CFTC contract market, in catalog order. */
const COT_INSTRUMENTS: readonly string[] = Object.freeze(COT_CONTRACTS.map((c) => c.code));

export { COT_CONTRACTS, COT_INSTRUMENTS, findCotContract };
export type { CotContract };
