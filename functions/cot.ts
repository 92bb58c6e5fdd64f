/** Lambda entry of the COT family: /v1/cot/{code}. */
import { cotHandlers } from '../shared/families/cot/handlers';
import { createFamilyHandler } from '../shared/http/family-handler';
import { servicesFromEnvironment } from '../shared/services';

export const handler = createFamilyHandler('cot', cotHandlers, servicesFromEnvironment);
