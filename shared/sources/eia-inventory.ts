/**
 * EIA weekly inventories (SPEC.md "Inventory series keys") from EIA API v2 `/v2/seriesid/<id>`:
 * two registry sources, because EIA publishes them in two reports on two days:
 *
 * - `eia-petroleum`: the Weekly Petroleum Status Report (Wednesdays 10:30 ET): crude_ex_spr,
 *   cushing, gasoline, distillate, refinery_util, crude_runs;
 * - `eia-gas-storage`: the Weekly Natural Gas Storage Report (Thursdays 10:30 ET): ng_storage.
 *
 * EIA publishes each series in the catalog's unit (thousand barrels, percent, thousand barrels
 * per day, billion cubic feet), so every observation is `official`. Stored under INV#<key>,
 * as_of = the week-ending date, published_at = that week's release (holiday shifts included,
 * shared/calendar).
 */
import { findInventorySeries } from '../catalog/inventory';
import { seriesKey } from '../catalog/series-keys';
import type { SeriesItem } from '../store/observation-store';
import { makeObservation, readSamples } from './common';
import { fetchEiaSeries, parseEiaPayload } from './eia-v2';
import { findSource } from './registry';
import { mapLimit } from '../concurrency/map-limit';
import { SourceFormatError, type NormalizeContext, type Payload, type SourceAdapter, type SourceDef } from './types';
import { addYears, isoDate } from '../dates';

interface EiaInventorySpec {
  /** Inventory key of the catalog (the route's `{series}`). */
  readonly key: string;
  /** The id the `/v2/seriesid/` route takes (natural-gas ids need the `NG.` prefix the catalog omits). */
  readonly apiId: string;
  /** EIA unit codes that mean the catalog unit; any other code is a format change. */
  readonly eiaUnits: readonly string[];
  /** The series' history page at EIA. */
  readonly page: string;
}

const leaf = (n: 'PET' | 'NG', s: string) => `https://www.eia.gov/dnav/${n.toLowerCase()}/hist/LeafHandler.ashx?n=${n}&s=${s}&f=W`;

/**
 * The 7 series, in catalog order. Unit codes: MBBL and MBBL/D as EIA's petroleum routes write
 * them, BCF for natural gas; the percent code of WPULEUS3 was not seen in a recorded response,
 * so the spellings EIA uses elsewhere are all accepted.
 */
const EIA_INVENTORY_SERIES: readonly EiaInventorySpec[] = Object.freeze([
  { key: 'crude_ex_spr', apiId: 'PET.WCESTUS1.W', eiaUnits: ['MBBL'], page: leaf('PET', 'WCESTUS1') },
  { key: 'cushing', apiId: 'PET.W_EPC0_SAX_YCUOK_MBBL.W', eiaUnits: ['MBBL'], page: leaf('PET', 'W_EPC0_SAX_YCUOK_MBBL') },
  { key: 'gasoline', apiId: 'PET.WGTSTUS1.W', eiaUnits: ['MBBL'], page: leaf('PET', 'WGTSTUS1') },
  { key: 'distillate', apiId: 'PET.WDISTUS1.W', eiaUnits: ['MBBL'], page: leaf('PET', 'WDISTUS1') },
  { key: 'refinery_util', apiId: 'PET.WPULEUS3.W', eiaUnits: ['%', 'PERCENT', 'PCT'], page: leaf('PET', 'WPULEUS3') },
  { key: 'crude_runs', apiId: 'PET.WCRRIUS2.W', eiaUnits: ['MBBL/D'], page: leaf('PET', 'WCRRIUS2') },
  { key: 'ng_storage', apiId: 'NG.NW2_EPG0_SWO_R48_BCF.W', eiaUnits: ['BCF'], page: leaf('NG', 'NW2_EPG0_SWO_R48_BCF') },
]);

/** Years of history a regular live run fetches: the 5-year comparison needs 5 prior years plus slack. */
const LIVE_HISTORY_YEARS = 6;

/** `PET.WCESTUS1.W` -> `WCESTUS1`: the bare id EIA writes in each row's `series`. */
const bareId = (id: string) => id.replace(/^(PET|NG)\./, '').replace(/\.W$/, '');

/** The spec of a payload: its file or request name starts with the series' API id. */
const specOfPayload = (specs: readonly EiaInventorySpec[], name: string): EiaInventorySpec | undefined => {
  const base = name.split('/').at(-1)!;
  return specs.find((s) => base === s.apiId || base.startsWith(`${s.apiId}.`));
};

/**
 * Pure: one EIA v2 payload of an inventory series -> INV#<key> items. Withheld (null) values are
 * skipped; a row of another series, an unexpected unit or a negative level is a format error.
 */
const inventoryItems = (specs: readonly EiaInventorySpec[], payload: Payload, ctx: NormalizeContext): SeriesItem[] => {
  const spec = specOfPayload(specs, payload.name);
  if (!spec) throw new SourceFormatError(`${payload.name}: not an inventory series of ${ctx.def.id}`);
  const series = findInventorySeries(spec.key)!;
  const normUnit = (u: string) => u.replace(/\s+/g, '').toUpperCase();
  return parseEiaPayload(payload).flatMap((r) => {
    if (r.series !== null && bareId(r.series) !== bareId(spec.apiId)) {
      throw new SourceFormatError(`${payload.name}: row ${r.period} is series ${r.series}, expected ${bareId(spec.apiId)}`);
    }
    if (r.units !== null && !spec.eiaUnits.includes(normUnit(r.units))) {
      throw new SourceFormatError(`${payload.name}: unit ${JSON.stringify(r.units)} is not ${spec.eiaUnits.join(' or ')} (${series.unit})`);
    }
    if (r.value === null) return [];
    if (r.value < 0) throw new SourceFormatError(`${payload.name}: negative level ${r.value} on ${r.period}`);
    return [
      {
        seriesKey: seriesKey.inventory(spec.key),
        observation: makeObservation(ctx, {
          instrument: spec.key,
          value: r.value,
          unit: series.unit,
          as_of: r.period,
          freshness_class: 'weekly',
          series_id: series.seriesId,
          url: spec.page,
          retrievedAt: payload.retrievedAt,
        }),
      },
    ];
  });
};

interface SampleSet {
  files: readonly string[];
  /** When the sample's figures were current: the release they were published in. */
  recordedAt: string;
}

const makeAdapter = (def: SourceDef, sampleSets: readonly SampleSet[]): SourceAdapter => {
  const specs = EIA_INVENTORY_SERIES.filter((s) => findInventorySeries(s.key)!.sourceId === def.id);
  return {
    def,
    live: async (ctx) =>
      (
        await mapLimit(specs, ctx.concurrency, async (s, i) => {
          const pages = await fetchEiaSeries(ctx, s.apiId, addYears(isoDate(ctx.now), -LIVE_HISTORY_YEARS));
          ctx.onProgress?.(i + 1, specs.length);
          return pages;
        })
      ).flat(),
    samples: async () => (await Promise.all(sampleSets.map((s) => readSamples(def.id, s.files, s.recordedAt)))).flat(),
    toItems: (payload, ctx) => inventoryItems(specs, payload, ctx),
  };
};

// The adapters are built in calls marked pure: the inventory family reads only the series list, and its
// Lambda bundle then leaves the adapters (and the registry and calendar they read) out.

/**
 * Weekly Petroleum Status Report series. The bundled samples hold every week since 2019-01-04,
 * enough for the 5-year comparison (see samples/eia-petroleum/README.md for where each comes from).
 */
const eiaPetroleum: SourceAdapter = /* @__PURE__ */ (() =>
  makeAdapter(findSource('eia-petroleum')!, [
    // psw01.xls, release of 2026-02-11 (Wednesday 10:30 EST).
    { files: ['PET.WCESTUS1.W.json', 'PET.WGTSTUS1.W.json', 'PET.WDISTUS1.W.json', 'PET.WCRRIUS2.W.json'], recordedAt: '2026-02-11T15:30:00.000Z' },
    // psw02.xls with data to the week ending 2025-11-21 (released Wednesday 2025-11-26).
    { files: ['PET.WPULEUS3.W.json'], recordedAt: '2025-11-26T15:30:00.000Z' },
    // Cushing series download to the week ending 2026-07-31 (released 2026-08-05).
    { files: ['PET.W_EPC0_SAX_YCUOK_MBBL.W.json'], recordedAt: '2026-08-05T14:30:00.000Z' },
  ]))();

/** Weekly Natural Gas Storage Report: Lower 48 working gas. */
const eiaGasStorage: SourceAdapter = /* @__PURE__ */ (() =>
  makeAdapter(findSource('eia-gas-storage')!, [
    // ngshistory.xls "as of January 29, 2026" (Thursday 10:30 EST).
    { files: ['NG.NW2_EPG0_SWO_R48_BCF.W.json'], recordedAt: '2026-01-29T15:30:00.000Z' },
  ]))();

/** Which registry source publishes an inventory key. */

export { eiaPetroleum, eiaGasStorage, EIA_INVENTORY_SERIES };
export type { EiaInventorySpec };
