/** Lambda entry of the price family: /v1/price, /v1/prices, /v1/history, /v1/fx. */
import { priceHandlers } from '../shared/families/price/handlers';
import { createFamilyHandler } from '../shared/http/family-handler';
import { PRICE_ROUTES } from '../shared/routes/table';
import { servicesFromEnvironment } from '../shared/services';

export const handler = createFamilyHandler(PRICE_ROUTES, priceHandlers, servicesFromEnvironment);
