/**
 * Route handlers of the snapshot family: /v1/snapshot/{sector} and /v1/snapshot/all (one call
 * for every sector, plus FX context; its fixed path wins over {sector}).
 */
import { SECTORS, type Sector } from '../../catalog/instruments';
import { ServiceUnavailableError } from '../../errors/errors';
import type { FamilyHandlers, RouteHandler } from '../../http/types';
import { SECTOR_SOURCES, loadInstruments, loadSectorParts, loadStaleness } from './load';

const noData = (label: string, missing: unknown) =>
  new ServiceUnavailableError('NO_DATA', `nothing of the ${label} snapshot is stored yet`, {
    sector: label,
    missing,
    hint: 'GET /health shows when each source last succeeded',
  });

const sectorSnapshot: RouteHandler<'GET /v1/snapshot/{sector}'> = async ({ params, services }) => {
  const sector = params.sector as Sector;
  const parts = await loadSectorParts(services, sector);
  if (!parts.hasData) throw noData(sector, parts.body.missing);
  const staleness = await loadStaleness(services, SECTOR_SOURCES[sector], parts.body.instruments.observations);
  return { body: { ...parts.body, staleness } };
};

const allSnapshot: RouteHandler<'GET /v1/snapshot/all'> = async ({ services }) => {
  const parts = [];
  for (const s of SECTORS) parts.push(await loadSectorParts(services, s));
  const fx = await loadInstruments(services, 'fx');
  if (!parts.some((p) => p.hasData) && fx.count === 0) throw noData('all', [...parts.flatMap((p) => p.body.missing), ...fx.missing]);
  const observations = [...parts.flatMap((p) => p.body.instruments.observations), ...fx.observations];
  const staleness = await loadStaleness(services, [...SECTORS.flatMap((s) => SECTOR_SOURCES[s]), ...SECTOR_SOURCES.fx], observations);
  return {
    body: {
      sector: 'all',
      as_of: observations.reduce<string | null>((m, o) => (m === null || o.as_of > m ? o.as_of : m), null),
      sectors: parts.map((p) => p.body),
      fx: { count: fx.count, observations: fx.observations, missing: fx.missing },
      staleness,
    },
  };
};

const snapshotHandlers: FamilyHandlers<'snapshot'> = Object.freeze({
  'GET /v1/snapshot/{sector}': sectorSnapshot,
  'GET /v1/snapshot/all': allSnapshot,
});

export { snapshotHandlers };
