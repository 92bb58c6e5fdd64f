/** Lambda entry of the free discovery routes and of API Gateway's `$default` route (JSON 404). */
import { discoveryHandlers } from '../shared/families/discovery/handlers';
import { createFreeFamilyHandler } from '../shared/http/family-handler';
import { DISCOVERY_ROUTES } from '../shared/routes/table';
import { freeServicesFromEnvironment } from '../shared/services';

export const handler = createFreeFamilyHandler(DISCOVERY_ROUTES, discoveryHandlers, freeServicesFromEnvironment);
