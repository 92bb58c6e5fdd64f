/** Lambda entry of the curve family: /v1/curve/{root}, /v1/spreads/calendar/{root}. */
import { curveHandlers } from '../shared/families/curve/handlers';
import { createFamilyHandler } from '../shared/http/family-handler';
import { CURVE_ROUTES } from '../shared/routes/table';
import { servicesFromEnvironment } from '../shared/services';
import { checkCurveConfig } from '../shared/sources/curve-source';

// Cold start: INDICATIVE_FUTURES on without a usable CURVE_PROVIDER is an init error, not a served answer.
checkCurveConfig(servicesFromEnvironment().config);
export const handler = createFamilyHandler(CURVE_ROUTES, curveHandlers, servicesFromEnvironment);
