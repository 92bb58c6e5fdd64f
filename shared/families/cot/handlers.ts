/**
 * Route handler of the COT family: GET /v1/cot/{code}.
 */
import type { FamilyHandlers, RouteHandler } from '../../http/types';
import { loadCot } from './load';

const cot: RouteHandler<'GET /v1/cot/{code}'> = async ({ params, services }) => ({ body: await loadCot(services, params.code) });

const cotHandlers: FamilyHandlers<'cot'> = Object.freeze({
  'GET /v1/cot/{code}': cot,
});

export { cotHandlers };
