/**
 * Sector snapshots: the latest observation of every instrument of a sector, that sector's key
 * fundamentals (energy: inventories and the crack; metals: USGS; ags: WASDE, crop progress,
 * export sales) and a staleness summary. Everything is read through the other families' load
 * functions; a missing part is listed under `missing`, never a 500.
 */
import type * as z from '../../zod';
import { NOT_LIVE, instrumentsOf, type InstrumentSector, type Sector } from '../../catalog/instruments';
import { isoDate } from '../../dates';
import type { Services } from '../../services';
import type { Observation } from '../../observation/schema';
import { loadFreshness, overallStatus, SOURCE_STALE_RULE, SOURCE_STALE_RULE_PAST } from '../freshness';
import { loadCropProgress, loadExportSales, loadUsgs, loadWasde } from '../fundamentals/load';
import { loadInventoryBundle } from '../inventory/load';
import { loadLatest, nothingStored } from '../price/load';
import { loadSpread, requireSpread, spreadBody, staleSpreadBody } from '../spreads/load';
import { orMissing, type MissingPart } from './sector';
import { seriesKey } from '../../catalog/series-keys';
import type { SectorPart } from '../../schemas/snapshot';

/** Sources whose freshness a sector's snapshot reports (registry ids). */
const SECTOR_SOURCES: Readonly<Record<Sector, readonly string[]>> = Object.freeze({
  energy: ['eia-spot', 'eia-petroleum', 'eia-gas-storage'],
  metals: ['worldbank', 'usgs-mcs'],
  ags: ['worldbank', 'usda-wasde', 'usda-nass-crop-progress', 'usda-fas-esr'],
});

/** The key fundamentals of each sector: name -> loader (each returns its route's body). */
const FUNDAMENTALS: Readonly<Record<Sector, ReadonlyArray<readonly [string, (services: Services) => Promise<unknown>]>>> = Object.freeze({
  energy: [
    ['inventories', (services) => loadInventoryBundle(services)],
    // A stale crack is listed with no value and why; a leg never stored is a missing part.
    [
      'crack',
      async (services) => {
        const today = isoDate(services.now());
        const s = await loadSpread(services, 'crack', today);
        if (s.ok) return spreadBody(s, today);
        return s.stale ? staleSpreadBody(s) : spreadBody(await requireSpread(services, 'crack'), today);
      },
    ],
  ],
  metals: [['usgs', (services) => loadUsgs(services)]],
  ags: [
    ['wasde', (services) => loadWasde(services)],
    ['crop_progress', (services) => loadCropProgress(services)],
    ['export_sales', (services) => loadExportSales(services)],
  ],
});

/** The latest observation of every instrument of a sector, catalog order; the others under missing. */
const loadInstruments = async (services: Services, sector: InstrumentSector) => {
  const found = await Promise.all(
    instrumentsOf(sector).map(async (i) => ({ code: i.code, live: Boolean(i.sourceId), obs: i.sourceId ? await loadLatest(services, i.code) : null })),
  );
  const observations = found.flatMap((f) => (f.obs ? [f.obs] : []));
  const missing: MissingPart[] = found
    .filter((f) => !f.obs)
    .map((f) => ({
      input: `price:${f.code}`,
      reason: f.live ? nothingStored(services, f.code) : `not live: ${NOT_LIVE[f.code] ?? 'no source serves it'}`,
    }));
  return { count: observations.length, observations, missing };
};

/**
 * Per-source freshness and which sources are stale (reads the clock: snapshots are not packs), over
 * the given sources; without them, over every source
 * GET /health judges (the all bundle: its stale_sources are /health's, cftc-cot included, though no
 * snapshot part reads COT; one rule, one list).
 */
const loadStaleness = async (services: Services, sourceIds: readonly string[] | undefined, observations: readonly Observation[]) => {
  const sources = await loadFreshness(services, sourceIds && [...new Set(sourceIds)]);
  const oldest = observations.reduce<Observation | null>((m, o) => (m === null || o.as_of < m.as_of ? o : m), null);
  return {
    status: overallStatus(sources),
    stale_sources: sources.filter((s) => s.stale).map((s) => s.id),
    oldest_observation: oldest ? { instrument: oldest.instrument, as_of: oldest.as_of, freshness_class: oldest.freshness_class } : null,
    rule: services.asKnownAt ? SOURCE_STALE_RULE_PAST : SOURCE_STALE_RULE,
    sources,
  };
};

const latestAsOf = (observations: readonly Observation[]): string | null =>
  observations.reduce<string | null>((m, o) => (m === null || o.as_of > m ? o.as_of : m), null);

/** One sector's snapshot without the staleness summary (the all bundle reports it once). */
const loadSectorParts = async (services: Services, sector: Sector): Promise<{ hasData: boolean; body: z.infer<typeof SectorPart> }> => {
  const instruments = await loadInstruments(services, sector);
  const missing: MissingPart[] = [...instruments.missing];
  const fundamentals: Record<string, unknown> = {};
  for (const [name, load] of FUNDAMENTALS[sector]) fundamentals[name] = await orMissing(name, missing, () => load(services));
  const hasData = instruments.count > 0 || Object.values(fundamentals).some((v) => v !== null);
  return {
    hasData,
    body: {
      sector,
      as_of: latestAsOf(instruments.observations),
      instruments: { count: instruments.count, observations: instruments.observations },
      // Each loader returns its own route's body (validated as such); the schema names them.
      fundamentals: fundamentals as z.infer<typeof SectorPart>['fundamentals'],
      missing,
    },
  };
};

/** The observation before the latest of each instrument (for the compact view's change). */
const loadPrevious = async (services: Services, observations: readonly Observation[]): Promise<Map<string, Observation | null>> => {
  const pairs = await Promise.all(
    observations.map(async (o) => {
      const recent = await services.reader.recent(seriesKey.price(o.instrument), 2, o.freshness_class);
      return [o.instrument, recent[1] ?? null] as const;
    }),
  );
  return new Map(pairs);
};

export { SECTOR_SOURCES, latestAsOf, loadInstruments, loadStaleness, loadSectorParts, loadPrevious };
