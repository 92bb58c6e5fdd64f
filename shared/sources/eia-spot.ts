/**
 * EIA daily spot prices for CL BZ NG HO RB (EIA API v2 `/v2/seriesid/…`). All five are
 * published in the catalog's units, so every observation is `official`. published_at is the weekly
 * release that first carries the day, by the series' own lag (Henry Hub's Wednesday release ends on
 * the Tuesday, the petroleum prices' on the Monday: shared/calendar/recorded.ts).
 */
import { findInstrument } from '../catalog/instruments';
import { seriesKey } from '../catalog/series-keys';
import { findSource } from './registry';
import { makeObservation, readSamples } from './common';
import { fetchEiaSeries, parseEiaPayload } from './eia-v2';
import { mapLimit } from '../concurrency/map-limit';
import { SourceFormatError, type SourceAdapter } from './types';
import { addDays, isoDate } from '../dates';
import { spotReleaseOf } from '../calendar';

/** Instrument -> EIA series id and the publisher's page for it. */
const EIA_SPOT_SERIES = Object.freeze([
  { code: 'CL', seriesId: 'PET.RWTC.D', page: 'https://www.eia.gov/dnav/pet/hist/RWTCD.htm' },
  { code: 'BZ', seriesId: 'PET.RBRTE.D', page: 'https://www.eia.gov/dnav/pet/hist/RBRTED.htm' },
  { code: 'NG', seriesId: 'NG.RNGWHHD.D', page: 'https://www.eia.gov/dnav/ng/hist/rngwhhdD.htm' },
  { code: 'HO', seriesId: 'PET.EER_EPD2DXL0_PF4_Y35NY_DPG.D', page: 'https://www.eia.gov/dnav/pet/hist/EER_EPD2DXL0_PF4_Y35NY_DPGD.htm' },
  { code: 'RB', seriesId: 'PET.EER_EPMRU_PF4_RGC_DPG.D', page: 'https://www.eia.gov/dnav/pet/hist/EER_EPMRU_PF4_RGC_DPGD.htm' },
] as const);

/** EIA unit codes that match each catalog unit; anything else is a format change. */
const EXPECTED_UNITS: Record<string, string> = { 'USD/bbl': '$/BBL', 'USD/gal': '$/GAL', 'USD/MMBtu': '$/MMBTU' };

/**
 * The bundled samples by when their figures were current: WTI, Brent and Henry Hub to 2026-08-18
 * (EIA's release of 2026-08-19), ULSD and Gulf Coast gasoline to 2025-06-16 (release of 2025-06-18,
 * the latest real copy found). See samples/eia-spot/README.md.
 */
const SAMPLE_SETS = [
  { codes: ['CL', 'BZ', 'NG'], recordedAt: '2026-08-19T14:00:00.000Z' },
  { codes: ['HO', 'RB'], recordedAt: '2025-06-18T14:00:00.000Z' },
] as const;

const def = findSource('eia-spot')!;

const eiaSpot: SourceAdapter = {
  def,
  live: async (ctx) =>
    (
      await mapLimit(EIA_SPOT_SERIES, ctx.concurrency, async (s, i) => {
        const pages = await fetchEiaSeries(ctx, s.seriesId, addDays(isoDate(ctx.now), -45));
        ctx.onProgress?.(i + 1, EIA_SPOT_SERIES.length);
        return pages;
      })
    ).flat(),
  samples: async () =>
    (
      await Promise.all(
        SAMPLE_SETS.map((set) =>
          readSamples(
            def.id,
            EIA_SPOT_SERIES.filter((s) => (set.codes as readonly string[]).includes(s.code)).map((s) => `${s.seriesId}.json`),
            set.recordedAt,
          ),
        ),
      )
    ).flat(),
  toItems: (payload, ctx) => {
    const spec = EIA_SPOT_SERIES.find((s) => payload.name.includes(s.seriesId));
    if (!spec) throw new SourceFormatError(`${payload.name}: not an EIA spot series this adapter knows`);
    const instrument = findInstrument(spec.code)!;
    return parseEiaPayload(payload)
      .filter((r) => r.value !== null)
      .map((r) => {
        if (r.units && r.units.toUpperCase() !== EXPECTED_UNITS[instrument.unit]) {
          throw new SourceFormatError(`${payload.name}: unit ${r.units} is not ${EXPECTED_UNITS[instrument.unit]}`);
        }
        const release = spotReleaseOf(spec.seriesId, r.period);
        return {
          seriesKey: seriesKey.price(spec.code),
          observation: makeObservation(ctx, {
            instrument: spec.code,
            value: r.value!,
            unit: instrument.unit,
            as_of: r.period,
            freshness_class: instrument.freshness,
            series_id: spec.seriesId,
            url: spec.page,
            retrievedAt: payload.retrievedAt,
            published_at: release.at,
            published_at_estimated: release.estimated,
          }),
        };
      });
  },
};

export { eiaSpot, EIA_SPOT_SERIES };
