/** Lambda entry of the Pro routes (/pro, checkout, webhook, success page). */
import { proHandlers } from '../shared/families/pro/handlers';
import { createFamilyHandler } from '../shared/http/family-handler';
import { servicesFromEnvironment } from '../shared/services';

export const handler = createFamilyHandler('pro', proHandlers, servicesFromEnvironment);
