/**
 * Route handlers of the decision family: /v1/decision/{sector} and /v1/decision/all.
 * A pack is deterministic: the same stored inputs give the same signals and digest; the default
 * (compact) view is byte-identical, view=full adds each input's per-call provenance.
 */
import { RULESET, buildAllPack, buildSectorPack, type SectorInputs } from '../../analytics/decision';
import { SECTORS, type Sector } from '../../catalog/instruments';
import { ServiceUnavailableError } from '../../errors/errors';
import type { FamilyHandlers, RouteHandler } from '../../http/types';
import type { Observation } from '../../observation/schema';
import { isoDate } from '../../dates';
import type { Services } from '../../services';
import { computedOnce } from '../computed-cache';
import { loadSectorInputs } from './load';
import { answerAsKnownAt, sameInstant } from '../point-in-time';

const DISCLAIMER = 'Mechanical signals computed from published data by the documented rules; not investment advice.';

/** A sector (or all of them) without a single input is a 503, not an empty pack. */
const requireSomeInput = (inputs: readonly SectorInputs[], label: string): void => {
  if (inputs.every((i) => i.read.length === 0)) {
    throw new ServiceUnavailableError('NO_DATA', `no input of the ${label} decision pack is stored yet`, {
      sector: label,
      missing: inputs.flatMap((i) => i.missing),
      hint: 'GET /health shows when each source last succeeded',
    });
  }
};

type SectorPack = ReturnType<typeof buildSectorPack>;

/** An input by reference: what identifies and checks it, without per-call provenance. */
const refOf = (o: Observation) => ({ instrument: o.instrument, as_of: o.as_of, value: o.value, unit: o.unit, quality: o.quality });

/**
 * The compact (default) view of a pack: every rule input by reference. It holds nothing that
 * depends on the call (cache hits, retrieval times, next releases), so the same stored inputs
 * give the same bytes. `firedOnly` (the all-sector pack) keeps the evaluations that fired, the
 * ones a signal stands on, so the three sectors together stay under the 32 KB body budget; each
 * sector's route and view=full keep every evaluation.
 */
const compactPack = (pack: SectorPack, firedOnly = false) => ({
  ...pack,
  signals: pack.signals.map((s) => ({
    ...s,
    evaluations: s.evaluations.filter((e) => !firedOnly || e.fired).map((e) => ({ ...e, inputs: e.inputs.map(refOf) })),
  })),
});

const ABOUT = { ruleset: RULESET, disclaimer: DISCLAIMER };

const sectorPackOf = async (services: Services, sector: Sector) => {
  const today = isoDate(services.now());
  const inputs = await loadSectorInputs(services, sector, today);
  requireSomeInput([inputs], sector);
  return buildSectorPack(inputs, today);
};

const allPackOf = async (services: Services) => {
  const today = isoDate(services.now());
  const inputs: SectorInputs[] = [];
  for (const s of SECTORS) inputs.push(await loadSectorInputs(services, s, today));
  requireSomeInput(inputs, 'all');
  return buildAllPack(inputs, today);
};

const sectorPack: RouteHandler<'GET /v1/decision/{sector}'> = async ({ params, query, services }) => {
  const sector = params.sector as Sector;
  if (query.view === 'full') return { body: { ...(await sectorPackOf(services, sector)), ...ABOUT, view: 'full' as const } };
  const body = await computedOnce(services, `decision:${sector}`, async () => ({
    ...compactPack(await sectorPackOf(services, sector)),
    ...ABOUT,
    view: 'compact' as const,
    full_view: sameInstant(services, `/v1/decision/${sector}?view=full`),
  }));
  return { body };
};

const allPack: RouteHandler<'GET /v1/decision/all'> = async ({ query, services }) => {
  if (query.view === 'full') return { body: { ...(await allPackOf(services)), ...ABOUT, view: 'full' as const } };
  const body = await computedOnce(services, 'decision:all', async () => {
    const pack = await allPackOf(services);
    return {
      ...pack,
      sectors: pack.sectors.map((p) => compactPack(p, true)),
      ...ABOUT,
      view: 'compact' as const,
      full_view: sameInstant(services, '/v1/decision/all?view=full'),
    };
  });
  return { body };
};

const decisionHandlers: FamilyHandlers<'decision'> = answerAsKnownAt<'decision'>({
  'GET /v1/decision/{sector}': sectorPack,
  'GET /v1/decision/all': allPack,
});

export { decisionHandlers };
