/**
 * Which replay sample is written from which real fixture (../shared/fixtures), in which wire
 * format. Pure: it takes a fixture reader and returns the files; write-samples.ts does the I/O.
 * Each samples folder's README.md says the same in prose.
 */
import { EIA_INVENTORY_SERIES } from '../../../shared/sources/eia-inventory';
import { findInventorySeries } from '../../../shared/catalog/inventory';
import { annualFiles, annualZip } from './cftc';
import { eiaV2Body, readIsoCsv, readSeriesDownload, type EiaPoint } from './eia';
import { fredgraphCsv, mergeFred, readFredgraph } from './fred';
import { quickStatsBody, soybeanProgressRecords } from './nass';

/** A fixture, as bytes, by its path under the fixtures folder. */
type ReadFixture = (path: string) => Uint8Array;

interface SampleFile {
  /** `<source id>/<file>` under shared/sources/samples. */
  path: string;
  body: Uint8Array;
}

/** The source folders this generator owns (the others' samples are written by hand from their fixtures). */
const GENERATED_SOURCES = ['eia-spot', 'eia-petroleum', 'eia-gas-storage', 'fred', 'cftc-cot', 'usda-nass-crop-progress'] as const;

interface EiaSample {
  source: 'eia-spot' | 'eia-petroleum' | 'eia-gas-storage';
  /** The `/v2/seriesid/` id, also the file name. */
  apiId: string;
  fixture: string;
  read: (text: string, name: string) => EiaPoint[];
  units: string;
}

const spot = (apiId: string, fixture: string, units: string): EiaSample => ({ source: 'eia-spot', apiId, fixture: `eia/${fixture}`, read: readIsoCsv, units });
const weekly = (apiId: string, fixture: string, units: string, read = readIsoCsv): EiaSample => {
  const source = findInventorySeries(EIA_INVENTORY_SERIES.find((s) => s.apiId === apiId)!.key)!.sourceId;
  return { source, apiId, fixture: `eia/${fixture}`, read, units };
};

/**
 * EIA unit codes: `$/BBL`, `$/GAL`, `$/MMBTU`, `MBBL`, `MBBL/D` and `BCF` as EIA's documentation
 * writes them; `%` for WPULEUS3 (its code was not seen in a recorded response).
 */
const EIA_SAMPLES: readonly EiaSample[] = [
  spot('PET.RWTC.D', 'daily.RWTC.2024-01-02_2026-08-18.csv', '$/BBL'),
  spot('PET.RBRTE.D', 'daily.RBRTE.2024-01-02_2026-08-18.csv', '$/BBL'),
  spot('NG.RNGWHHD.D', 'daily.RNGWHHD.2024-01-02_2026-08-18.csv', '$/MMBTU'),
  spot('PET.EER_EPD2DXL0_PF4_Y35NY_DPG.D', 'daily.EER_EPD2DXL0_PF4_Y35NY_DPG.2023-01-03_2025-06-16.csv', '$/GAL'),
  spot('PET.EER_EPMRU_PF4_RGC_DPG.D', 'daily.EER_EPMRU_PF4_RGC_DPG.2023-01-03_2025-06-16.csv', '$/GAL'),
  weekly('PET.WCESTUS1.W', 'weekly.WCESTUS1.2019-01-04_2026-02-06.csv', 'MBBL'),
  weekly('PET.WGTSTUS1.W', 'weekly.WGTSTUS1.2019-01-04_2026-02-06.csv', 'MBBL'),
  weekly('PET.WDISTUS1.W', 'weekly.WDISTUS1.2019-01-04_2026-02-06.csv', 'MBBL'),
  weekly('PET.WCRRIUS2.W', 'weekly.WCRRIUS2.2019-01-04_2026-02-06.csv', 'MBBL/D'),
  weekly('PET.WPULEUS3.W', 'weekly.WPULEUS3.2019-01-04_2025-11-21.csv', '%'),
  weekly('PET.W_EPC0_SAX_YCUOK_MBBL.W', 'Weekly_Cushing_OK_Ending_Stocks_excluding_SPR_of_Crude_Oil.2019-01-04_2026-07-31.csv', 'MBBL', readSeriesDownload),
  weekly('NG.NW2_EPG0_SWO_R48_BCF.W', 'weekly.NW2_EPG0_SWO_R48_BCF.2019-01-04_2026-01-23.csv', 'BCF'),
];

/** FRED id -> its copies, merged by date (the short recordings overlap the long ones, or extend them). */
const FRED_SAMPLES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  DTWEXBGS: ['fred/DTWEXBGS.2024-01-02_2026-05-22.csv', 'fred/DTWEXBGS.csv'],
  DEXUSEU: ['fred/DEXUSEU.2024-01-01_2026-04-24.csv', 'fred/DEXUSEU.csv'],
  DEXCHUS: ['fred/DEXCHUS.2023-01-02_2025-05-09.csv', 'fred/DEXCHUS.csv'],
});

const CFTC_HEADER_FROM = 'cftc/f_year_sample.txt';
const CFTC_ROWS_FROM = 'cftc/f_year.disagg-futonly.managed-money.20-markets.2023-01-03_2026-05-26.csv';
const NASS_FROM = 'nass/soybeans.progress-condition.US.derived-dashboard-csv.2024-04-14_2026-10-04.csv';

const utf8 = (s: string) => new TextEncoder().encode(s);

/** Every generated sample file. */
const buildSamples = (read: ReadFixture): SampleFile[] => {
  const text = (path: string) => new TextDecoder().decode(read(path));
  const eia = EIA_SAMPLES.map((s) => {
    const series = s.apiId.replace(/^(PET|NG)\./, '').replace(/\.[DW]$/, '');
    const frequency = s.apiId.endsWith('.D') ? 'daily' : 'weekly';
    return { path: `${s.source}/${s.apiId}.json`, body: utf8(eiaV2Body(s.read(text(s.fixture), s.fixture), { series, units: s.units, frequency })) };
  });
  const fred = Object.entries(FRED_SAMPLES).map(([id, copies]) => ({
    path: `fred/${id}.csv`,
    body: utf8(
      fredgraphCsv(
        id,
        mergeFred(
          copies.map((c) => readFredgraph(text(c), id, c)),
          id,
        ),
      ),
    ),
  }));
  const header = text(CFTC_HEADER_FROM).split(/\r?\n/)[0]!;
  const cftc = [...annualFiles(header, text(CFTC_ROWS_FROM))].map(([year, body]) => {
    const newest = [...body.matchAll(/,(\d{4}-\d{2}-\d{2}),/g)]
      .map((m) => m[1]!)
      .sort()
      .at(-1)!;
    return { path: `cftc-cot/fut_disagg_txt_${year}.zip`, body: annualZip(body, new Date(`${newest}T12:00:00Z`)) };
  });
  const nass = { path: 'usda-nass-crop-progress/quickstats-soybeans-2024.json', body: utf8(quickStatsBody(soybeanProgressRecords(text(NASS_FROM)))) };
  return [...eia, ...fred, ...cftc, nass];
};

export { buildSamples, GENERATED_SOURCES };
export type { SampleFile, ReadFixture };
