/** Lambda entry of the COT family: /v1/cot/{code}. */
import { cotHandlers } from '../shared/families/cot/handlers';
import { createFamilyHandler } from '../shared/http/family-handler';
import { COT_ROUTES } from '../shared/routes/table';
import { servicesFromEnvironment } from '../shared/services';

export const handler = createFamilyHandler(COT_ROUTES, cotHandlers, servicesFromEnvironment);
