/**
 * Route handlers of the spreads family: /v1/spreads/crack, /v1/spreads/crush and
 * /v1/spreads/basis. (The calendar spread needs futures curves and lives in the curve family.)
 */
import type { SpreadId } from '../../analytics/spreads';
import { isoDate } from '../../dates';
import type { FamilyHandlers, RouteHandler } from '../../http/types';
import { requireSpread, spreadBody } from './load';
import { answerAsKnownAt } from '../point-in-time';

const spreadRoute =
  (id: SpreadId): RouteHandler<'GET /v1/spreads/crack' | 'GET /v1/spreads/crush' | 'GET /v1/spreads/basis'> =>
  async ({ services }) => ({ body: spreadBody(await requireSpread(services, id), isoDate(services.now())) });

const spreadsHandlers: FamilyHandlers<'spreads'> = answerAsKnownAt<'spreads'>({
  'GET /v1/spreads/crack': spreadRoute('crack'),
  'GET /v1/spreads/crush': spreadRoute('crush'),
  'GET /v1/spreads/basis': spreadRoute('basis'),
});

export { spreadsHandlers };
