/**
 * Releases whose publications were recorded (../shared/fixtures): what each states about when it
 * came out and what it carries. Where a publication states its release, published_at is that
 * statement; the calendar rules (publishers.ts) date every other release, marked estimated. Add a
 * row when a new copy of a release is recorded.
 */

/** One recorded release of an EIA spot-price workbook. */
interface RecordedSpotRelease {
  /** The workbook's "Release Date" (Eastern). */
  date: string;
  /** The time stamped on its Contents sheet (Eastern, h m s), or null when the copy does not show one. */
  stamp: readonly [number, number, number] | null;
  /** Its "Latest Data for" day: the newest day the release carries. */
  latest: string;
  /** Where it was read. */
  source: string;
}

const SPOT_WORKBOOK = 'fixtures/eia/PET_PRI_SPT_S1_D.xls, Contents sheet: Release Date 6/18/2025, stamped 6/18/2025 10:40:51 AM, Latest Data for 6/16/2025';

/**
 * EIA spot-price workbooks by EIA series id. The crude oil (RWTC, RBRTE), conventional gasoline and
 * ULSD sheets of the release of Wednesday 2025-06-18 end on Monday 6/16; Henry Hub's workbooks of
 * Wednesday 2024-07-10 and 2026-08-19 end on the Tuesday before. So the lag differs by product.
 */
const EIA_SPOT_RECORDED: Readonly<Record<string, readonly RecordedSpotRelease[]>> = Object.freeze({
  'PET.RWTC.D': [{ date: '2025-06-18', stamp: [10, 40, 51], latest: '2025-06-16', source: SPOT_WORKBOOK }],
  'PET.RBRTE.D': [{ date: '2025-06-18', stamp: [10, 40, 51], latest: '2025-06-16', source: SPOT_WORKBOOK }],
  'PET.EER_EPMRU_PF4_RGC_DPG.D': [{ date: '2025-06-18', stamp: [10, 40, 51], latest: '2025-06-16', source: SPOT_WORKBOOK }],
  'PET.EER_EPD2DXL0_PF4_Y35NY_DPG.D': [{ date: '2025-06-18', stamp: [10, 40, 51], latest: '2025-06-16', source: SPOT_WORKBOOK }],
  'NG.RNGWHHD.D': [
    {
      date: '2024-07-10',
      stamp: [12, 16, 47],
      latest: '2024-07-09',
      source: 'fixtures/eia/RNGWHHDd.xls, Contents sheet: Release Date 7/10/2024, stamped 7/10/2024 12:16:47 PM, Latest Data for 7/9/2024',
    },
    {
      date: '2026-08-19',
      stamp: null,
      latest: '2026-08-18',
      source: 'rngwhhdd.xls of Release Date 8/19/2026, latest data 8/18/2026 (fixtures/eia/SOURCE.md, addendum; its time stamp not transcribed)',
    },
  ],
});

/**
 * World Bank Pink Sheet workbooks recorded here, by their "Updated on" day: the 2025-12-02 release
 * (fixtures/worldbank/CMO-Historical-Data-Monthly.sample.xlsx, cell A4 "Updated on December 02,
 * 2025"). Other releases are dated by the second-business-day rule that every "Updated on" date seen
 * in other copies follows (fixtures/worldbank/SOURCE.md), marked estimated.
 */
const PINK_SHEET_RECORDED: readonly string[] = Object.freeze(['2025-12-02']);

export { EIA_SPOT_RECORDED, PINK_SHEET_RECORDED };
