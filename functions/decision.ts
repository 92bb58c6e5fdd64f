/** Lambda entry of the decision family: /v1/decision/{sector}, /v1/decision/all. */
import { decisionHandlers } from '../shared/families/decision/handlers';
import { createFamilyHandler } from '../shared/http/family-handler';
import { DECISION_ROUTES } from '../shared/routes/table';
import { servicesFromEnvironment } from '../shared/services';

export const handler = createFamilyHandler(DECISION_ROUTES, decisionHandlers, servicesFromEnvironment);
