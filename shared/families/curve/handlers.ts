/**
 * Route handlers of the curve family: /v1/curve/{root} and /v1/spreads/calendar/{root}.
 *
 * While INDICATIVE_FUTURES is off (the default) both answer an explicit, free stub: no
 * primary source publishes current futures curves. With the flag on they serve the licensed
 * provider's curve as indicative, delayed observations, charged at the listed price.
 */
import { calendarSpread, spreadObservation, type SpreadDef } from '../../analytics/spreads';
import type { Instrument } from '../../catalog/instruments';
import { ServiceUnavailableError } from '../../errors/errors';
import type { FamilyHandlers, HandlerRequest, RouteHandler } from '../../http/types';
import type { Observation } from '../../observation/schema';
import { HOW_TO_ENABLE } from '../../sources/curve-source';
import { CURVE_FRESHNESS, CURVE_QUALITY, curveSource, loadCurve, requireRoot } from './load';

const STUB_REASON =
  'No primary source publishes current futures curves: EIA stopped its NYMEX futures contract 1-4 price series in April 2024, ' +
  'and exchange settlement data is licensed. This service sells primary-source cash prices, not real-time exchange futures.';

/** The placeholder answer while indicative futures are off (the route's freeWhen makes it free). */
const stubResult = (req: HandlerRequest, instrument: Instrument, kind: 'curve' | 'calendar_spread') => ({
  body: {
    stub: true as const,
    kind,
    root: instrument.futuresRoot,
    reason: STUB_REASON,
    enable: `The operator can enable indicative curves from a licensed provider: ${HOW_TO_ENABLE}. Observations are then quality "indicative", freshness_class "delayed", charged at ${req.route.priceUsd} USD.`,
    charged: false as const,
    alternatives: instrument.sourceId
      ? [`GET /v1/price/${instrument.code} (primary-source cash price of ${instrument.meaning})`, `GET /v1/history/${instrument.code}`]
      : [],
    observations: [],
  },
});

const noCurve = (root: string, providerId: string, need: string) =>
  new ServiceUnavailableError('NO_DATA', `the curve provider has ${need} for ${root}`, { root, provider: providerId });

const curve: RouteHandler<'GET /v1/curve/{root}'> = async (req) => {
  const instrument = requireRoot(req.params.root);
  const source = curveSource(req.services);
  if (!source) return stubResult(req, instrument, 'curve');
  const loaded = await loadCurve(req.services, source, instrument);
  if (!loaded || loaded.observations.length === 0) throw noCurve(req.params.root, source.id, 'no curve');
  const obs = loaded.observations;
  return {
    body: {
      stub: false as const,
      root: req.params.root,
      unit: instrument.unit,
      as_of: obs
        .map((o) => o.as_of)
        .sort()
        .at(-1),
      quality: CURVE_QUALITY,
      freshness_class: CURVE_FRESHNESS,
      provider: { id: source.id, name: source.name, license_tag: source.licenseTag },
      order: 'front month first (attributes.position 1 = front)',
      count: obs.length,
      observations: obs,
    },
  };
};

/** Front-minus-second as a spread of two contracts (the contract codes are the leg codes). */
const calendarDef = (root: string, unit: string, front: Observation, second: Observation): SpreadDef => ({
  id: 'calendar',
  instrument: `${root}_CAL_1_2`,
  name: `${root} calendar spread, front minus second contract`,
  unit,
  legs: [
    { code: front.instrument, role: 'front contract', coefficient: 1 },
    { code: second.instrument, role: 'second contract', coefficient: -1 },
  ],
  formula: `${front.instrument} - ${second.instrument}`,
  description: "Front-month contract minus the second contract of the licensed provider's indicative curve; positive = backwardation, negative = contango.",
  compute: (v) => calendarSpread(v[front.instrument]!, v[second.instrument]!),
});

const calendar: RouteHandler<'GET /v1/spreads/calendar/{root}'> = async (req) => {
  const instrument = requireRoot(req.params.root);
  const source = curveSource(req.services);
  if (!source) return stubResult(req, instrument, 'calendar_spread');
  const loaded = await loadCurve(req.services, source, instrument);
  const [front, second] = loaded?.observations ?? [];
  if (!front || !second) throw noCurve(req.params.root, source.id, 'fewer than two contracts');
  // A multi-leg figure is on one date its legs share, never a mix of dates.
  if (front.as_of !== second.as_of)
    throw noCurve(req.params.root, source.id, `no front and second contract on one date (front ${front.as_of}, second ${second.as_of})`);
  const def = calendarDef(req.params.root, instrument.unit, front, second);
  const spread = spreadObservation(def, { [front.instrument]: front, [second.instrument]: second });
  return {
    body: {
      stub: false as const,
      root: req.params.root,
      unit: instrument.unit,
      as_of: spread.as_of,
      method: { formula: def.formula, description: def.description },
      provider: { id: source.id, name: source.name, license_tag: source.licenseTag },
      observation: spread,
      legs: [
        { instrument: front.instrument, role: 'front contract', observation: front },
        { instrument: second.instrument, role: 'second contract', observation: second },
      ],
    },
  };
};

const curveHandlers: FamilyHandlers<'curve'> = Object.freeze({
  'GET /v1/curve/{root}': curve,
  'GET /v1/spreads/calendar/{root}': calendar,
});

export { curveHandlers };
