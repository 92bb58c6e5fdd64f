/**
 * Route handlers of the snapshot family: /v1/snapshot/{sector} and /v1/snapshot/all (one call
 * for every sector, plus FX context; its fixed path wins over {sector}).
 */
import { SECTORS, findInstrument, type Sector } from '../../catalog/instruments';
import { ServiceUnavailableError } from '../../errors/errors';
import type { FamilyHandlers, RouteHandler } from '../../http/types';
import { isoDate } from '../../dates';
import { STALE_RULE } from '../../observation/staleness';
import type { Services } from '../../services';
import { computedOnce } from '../computed-cache';
import { headlineInstrument, sectorHeadline, type StaleContext } from '../headline';
import { SECTOR_SOURCES, latestAsOf, loadInstruments, loadPrevious, loadSectorParts, loadStaleness } from './load';
import { answerAsKnownAt, sameInstant } from '../point-in-time';

const noData = (label: string, missing: unknown) =>
  new ServiceUnavailableError('NO_DATA', `nothing of the ${label} snapshot is stored yet`, {
    sector: label,
    missing,
    hint: 'GET /health shows when each source last succeeded',
  });

/** What the compact view judges staleness against. */
const staleContext = (services: Services, staleSources: readonly string[]): StaleContext => ({
  today: isoDate(services.now()),
  staleSources: new Set(staleSources),
  sourceOf: (code) => findInstrument(code)?.sourceId ?? undefined,
});

const compactStaleness = (full: Awaited<ReturnType<typeof loadStaleness>>, figures: ReadonlyArray<{ stale: boolean }>) => ({
  status: full.status,
  stale_sources: full.stale_sources,
  stale_figures: figures.filter((f) => f.stale).length,
  oldest_observation: full.oldest_observation,
  rule: STALE_RULE,
});

/** One sector's full parts and the staleness of its sources; NO_DATA when nothing is stored. */
const sectorParts = async (services: Services, sector: Sector) => {
  const parts = await loadSectorParts(services, sector);
  if (!parts.hasData) throw noData(sector, parts.body.missing);
  return { parts, staleness: await loadStaleness(services, SECTOR_SOURCES[sector], parts.body.instruments.observations) };
};

const sectorSnapshot: RouteHandler<'GET /v1/snapshot/{sector}'> = async ({ params, query, services }) => {
  const sector = params.sector as Sector;
  if (query.view === 'full') {
    const { parts, staleness } = await sectorParts(services, sector);
    return { body: { ...parts.body, view: 'full' as const, staleness } };
  }
  return { body: await computedOnce(services, `snapshot:${sector}`, () => compactSector(services, sector)) };
};

/** A sector's compact snapshot, computed from its full parts. */
const compactSector = async (services: Services, sector: Sector) => {
  const { parts, staleness } = await sectorParts(services, sector);
  const previous = await loadPrevious(services, parts.body.instruments.observations);
  const headline = sectorHeadline(parts.body, previous, staleContext(services, staleness.stale_sources));
  return {
    ...headline,
    view: 'compact' as const,
    full_view: sameInstant(services, `/v1/snapshot/${sector}?view=full`),
    staleness: compactStaleness(staleness, [...headline.instruments, ...headline.fundamentals]),
  };
};

const allSnapshot: RouteHandler<'GET /v1/snapshot/all'> = async ({ query, services }) =>
  query.view === 'full'
    ? { body: await allBody(services, 'full') }
    : { body: await computedOnce(services, 'snapshot:all', () => allBody(services, 'compact')) };

const allBody = async <V extends 'compact' | 'full'>(services: Services, view: V) => {
  const parts = [];
  for (const s of SECTORS) parts.push(await loadSectorParts(services, s));
  const fx = await loadInstruments(services, 'fx');
  if (!parts.some((p) => p.hasData) && fx.count === 0) throw noData('all', [...parts.flatMap((p) => p.body.missing), ...fx.missing]);
  const observations = [...parts.flatMap((p) => p.body.instruments.observations), ...fx.observations];
  const staleness = await loadStaleness(services, undefined, observations);
  const as_of = latestAsOf(observations);
  if (view === 'full') {
    return {
      sector: 'all' as const,
      as_of,
      sectors: parts.map((p) => p.body),
      fx: { count: fx.count, observations: fx.observations, missing: fx.missing },
      view: 'full' as const,
      staleness,
    };
  }
  const previous = await loadPrevious(services, observations);
  const ctx = staleContext(services, staleness.stale_sources);
  const sectors = parts.map((p) => sectorHeadline(p.body, previous, ctx));
  const fxLines = fx.observations.map((o) => headlineInstrument(o, previous.get(o.instrument) ?? null, ctx));
  return {
    sector: 'all' as const,
    as_of,
    sectors,
    fx: fxLines,
    view: 'compact' as const,
    full_view: sameInstant(services, '/v1/snapshot/all?view=full'),
    staleness: compactStaleness(staleness, [...sectors.flatMap((s) => [...s.instruments, ...s.fundamentals]), ...fxLines]),
  };
};

const snapshotHandlers: FamilyHandlers<'snapshot'> = answerAsKnownAt<'snapshot'>({
  'GET /v1/snapshot/{sector}': sectorSnapshot,
  'GET /v1/snapshot/all': allSnapshot,
});

export { snapshotHandlers };
