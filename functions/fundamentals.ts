/** Lambda entry of the fundamentals family: WASDE, crop progress, export sales, USGS. */
import { fundamentalsHandlers } from '../shared/families/fundamentals/handlers';
import { createFamilyHandler } from '../shared/http/family-handler';
import { FUNDAMENTALS_ROUTES } from '../shared/routes/table';
import { servicesFromEnvironment } from '../shared/services';

export const handler = createFamilyHandler(FUNDAMENTALS_ROUTES, fundamentalsHandlers, servicesFromEnvironment);
