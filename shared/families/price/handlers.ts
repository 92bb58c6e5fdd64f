/**
 * Route handlers of the price family: /v1/price/{code}, /v1/prices, /v1/history/{code},
 * /v1/fx/{pair}.
 */
import { AGGREGATION, resample, summarize, type Frequency } from '../../analytics/history';
import { ServiceUnavailableError } from '../../errors/errors';
import type { FamilyHandlers, HandlerRequest } from '../../http/types';
import type { Observation } from '../../observation/schema';
import { NOT_LIVE } from '../../catalog/instruments';
import { loadLatest, loadWindow, requireFxPair, requireInstrument, requireLatest, requireLive } from './load';

const shiftYears = (date: string, years: number): string => {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().slice(0, 10);
};

interface HistoryQuery {
  start?: string;
  end?: string;
  limit: number;
  frequency: Frequency;
  cursor?: string;
}

/**
 * History of one code. The window is [start, end]; without `end` it ends at the latest stored
 * observation, without `start` it begins one year before its end. Points are ascending; the
 * summary covers the whole window, the page at most `limit` points after `cursor`.
 */
const history = async ({ params, query, deps }: HandlerRequest<{ code: string }, HistoryQuery>) => {
  const instrument = requireLive(params.code);
  const latest = query.end ? null : await requireLatest(deps, params.code);
  const end = query.end ?? latest!.as_of;
  const start = query.start ?? shiftYears(end, -1);
  const window = await loadWindow(deps, params.code, start, end);
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
  };
};

const price = async ({ params, deps }: HandlerRequest<{ code: string }>) => ({ body: await requireLatest(deps, params.code) });

/** A bundle: every code that has data; the others are listed under `missing` with why. */
const prices = async ({ query, deps }: HandlerRequest<Record<string, never>, { codes: string[] }>) => {
  query.codes.forEach(requireInstrument); // an unknown code fails the whole call before any read
  const found = await Promise.all(query.codes.map(async (code) => [code, await loadLatest(deps, code)] as const));
  const observations = found.flatMap(([, o]) => (o ? [o] : [])) as Observation[];
  const missing = found
    .filter(([, o]) => !o)
    .map(([code]) => ({ instrument: code, reason: NOT_LIVE[code] ? `not live: ${NOT_LIVE[code]}` : 'no observation stored yet' }));
  if (observations.length === 0) {
    throw new ServiceUnavailableError('NO_DATA', 'none of the requested instruments has a stored observation', { missing });
  }
  return { body: { requested: query.codes, count: observations.length, observations, missing } };
};

const fx = async ({ params, deps }: HandlerRequest<{ pair: string }>) => {
  requireFxPair(params.pair);
  return { body: await requireLatest(deps, params.pair) };
};

const priceHandlers: FamilyHandlers = Object.freeze({
  'GET /v1/price/{code}': price,
  'GET /v1/prices': prices,
  'GET /v1/history/{code}': history,
  'GET /v1/fx/{pair}': fx,
});

export { priceHandlers };
