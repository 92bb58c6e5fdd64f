/**
 * Route handlers of the price family: /v1/price/{code}, /v1/prices, /v1/history/{code},
 * /v1/fx/{pair}.
 */
import { AGGREGATION, resample, summarize } from '../../analytics/history';
import { NOT_LIVE } from '../../catalog/instruments';
import { addYears } from '../../dates';
import { ServiceUnavailableError } from '../../errors/errors';
import type { FamilyHandlers, RouteHandler } from '../../http/types';
import type { Observation } from '../../observation/schema';
import { loadLatest, loadWindow, requireLatest, requireLive } from './load';
import { answerAsKnownAt } from '../point-in-time';

/**
 * History of one code. The window is [start, end]; without `end` it ends at the latest stored
 * observation (or at `start` when that is later: an empty window, 200 with total 0), without
 * `start` it begins one year before its end. Points are ascending; the summary covers the whole
 * window, the page at most `limit` points after `cursor`.
 */
const history: RouteHandler<'GET /v1/history/{code}'> = async ({ params, query, services }) => {
  const instrument = requireLive(params.code);
  const latest = query.end ? null : await requireLatest(services, params.code);
  const end = query.end ?? (query.start && query.start > latest!.as_of ? query.start : latest!.as_of);
  const start = query.start ?? addYears(end, -1);
  const window = await loadWindow(services, params.code, start, end);
  const points = resample(window.observations, query.frequency);
  const after = query.cursor ? points.filter((p) => p.as_of > query.cursor!) : points;
  const page = after.slice(0, query.limit);
  const truncated = after.length > page.length;
  return {
    body: {
      instrument: instrument.code,
      unit: instrument.unit,
      freshness_class: instrument.freshness,
      start,
      end,
      frequency: query.frequency,
      aggregation: AGGREGATION[query.frequency],
      order: 'ascending by as_of',
      total: points.length,
      returned: page.length,
      truncated,
      next: truncated ? page.at(-1)!.as_of : null,
      window_capped: window.capped,
      summary: summarize(points),
      observations: page,
    },
    // An empty window is answered, not sold.
    charge: page.length > 0,
  };
};

const price: RouteHandler<'GET /v1/price/{code}'> = async ({ params, services }) => ({ body: await requireLatest(services, params.code) });

/** A bundle: every code that has data; the others are listed under `missing` with why. */
const prices: RouteHandler<'GET /v1/prices'> = async ({ query, services }) => {
  const found = await Promise.all(query.codes.map(async (code) => [code, await loadLatest(services, code)] as const));
  const observations = found.flatMap(([, o]) => (o ? [o] : [])) as Observation[];
  const missing = found
    .filter(([, o]) => !o)
    .map(([code]) => ({
      instrument: code,
      reason: NOT_LIVE[code] ? `not live: ${NOT_LIVE[code]}` : services.asKnownAt ? `nothing published by ${services.asKnownAt}` : 'no observation stored yet',
    }));
  if (observations.length === 0) {
    throw new ServiceUnavailableError('NO_DATA', 'none of the requested instruments has a stored observation', { missing });
  }
  // A live code without stored data makes the answer partial: it is served but not charged.
  // (Listed-but-not-live codes are known from the catalog before the call and do not count.)
  const partial = missing.some((m) => !NOT_LIVE[m.instrument]);
  return { body: { requested: query.codes, count: observations.length, observations, missing }, charge: !partial };
};

const fx: RouteHandler<'GET /v1/fx/{pair}'> = async ({ params, services }) => ({ body: await requireLatest(services, params.pair) });

const priceHandlers: FamilyHandlers<'price'> = answerAsKnownAt<'price'>({
  'GET /v1/price/{code}': price,
  'GET /v1/prices': prices,
  'GET /v1/history/{code}': history,
  'GET /v1/fx/{pair}': fx,
});

export { priceHandlers };
