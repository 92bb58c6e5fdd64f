/**
 * Route handler of the COT family: GET /v1/cot/{code}.
 */
import type { FamilyHandlers, RouteHandler } from '../../http/types';
import { loadCot } from './load';
import { answerAsKnownAt } from '../point-in-time';

const cot: RouteHandler<'GET /v1/cot/{code}'> = async ({ params, services }) => ({ body: await loadCot(services, params.code) });

const cotHandlers: FamilyHandlers<'cot'> = answerAsKnownAt<'cot'>({
  'GET /v1/cot/{code}': cot,
});

export { cotHandlers };
