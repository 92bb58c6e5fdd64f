/**
 * Route handler of the COT family: GET /v1/cot/{code}.
 */
import type { FamilyHandlers, HandlerRequest } from '../../http/types';
import { loadCot } from './load';

const cot = async ({ params, deps }: HandlerRequest<{ code: string }>) => ({ body: await loadCot(deps, params.code) });

const cotHandlers: FamilyHandlers = Object.freeze({
  'GET /v1/cot/{code}': cot,
});

export { cotHandlers };
