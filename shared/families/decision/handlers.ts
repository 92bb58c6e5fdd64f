/**
 * Route handlers of the decision family: /v1/decision/{sector} and /v1/decision/all.
 * A pack is deterministic: same stored inputs -> byte-identical body apart from provenance.
 */
import { RULESET, buildAllPack, buildSectorPack, type SectorInputs } from '../../analytics/decision';
import { SECTORS, type Sector } from '../../catalog/instruments';
import { ServiceUnavailableError } from '../../errors/errors';
import type { FamilyHandlers, RouteHandler } from '../../http/types';
import { loadSectorInputs } from './load';

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

const sectorPack: RouteHandler<'GET /v1/decision/{sector}'> = async ({ params, services }) => {
  const sector = params.sector as Sector;
  const inputs = await loadSectorInputs(services, sector);
  requireSomeInput([inputs], sector);
  return { body: { ...buildSectorPack(inputs), ruleset: RULESET, disclaimer: DISCLAIMER } };
};

const allPack: RouteHandler<'GET /v1/decision/all'> = async ({ services }) => {
  const inputs: SectorInputs[] = [];
  for (const s of SECTORS) inputs.push(await loadSectorInputs(services, s));
  requireSomeInput(inputs, 'all');
  return { body: { ...buildAllPack(inputs), ruleset: RULESET, disclaimer: DISCLAIMER } };
};

const decisionHandlers: FamilyHandlers<'decision'> = Object.freeze({
  'GET /v1/decision/{sector}': sectorPack,
  'GET /v1/decision/all': allPack,
});

export { decisionHandlers };
