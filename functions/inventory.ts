/** Lambda entry of the inventory family: /v1/inventory/eia and /v1/inventory/eia/{series}. */
import { inventoryHandlers } from '../shared/families/inventory/handlers';
import { createFamilyHandler } from '../shared/http/family-handler';
import { INVENTORY_ROUTES } from '../shared/routes/table';
import { servicesFromEnvironment } from '../shared/services';

export const handler = createFamilyHandler(INVENTORY_ROUTES, inventoryHandlers, servicesFromEnvironment);
