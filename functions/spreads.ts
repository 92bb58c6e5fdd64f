/** Lambda entry of the spreads family: /v1/spreads/crack, /v1/spreads/crush, /v1/spreads/basis. */
import { spreadsHandlers } from '../shared/families/spreads/handlers';
import { createFamilyHandler } from '../shared/http/family-handler';
import { SPREADS_ROUTES } from '../shared/routes/table';
import { servicesFromEnvironment } from '../shared/services';

export const handler = createFamilyHandler(SPREADS_ROUTES, spreadsHandlers, servicesFromEnvironment);
