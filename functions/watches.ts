/** Lambda entry of the webhook watches (/v1/watches, issue 37): free routes of Pro keys. */
import { createFreeFamilyHandler } from '../shared/http/family-handler';
import { WATCHES_ROUTES } from '../shared/routes/table';
import { servicesFromEnvironment } from '../shared/services';
import { watchHandlers } from '../shared/families/watches/handlers';

export const handler = createFreeFamilyHandler(WATCHES_ROUTES, watchHandlers, servicesFromEnvironment);
