/** Lambda entry of the inventory family: /v1/inventory/eia and /v1/inventory/eia/{series}. */
import { inventoryHandlers } from '../shared/families/inventory/handlers';
import { createFamilyHandler } from '../shared/http/family-handler';
import { servicesFromEnvironment } from '../shared/services';

export const handler = createFamilyHandler('inventory', inventoryHandlers, servicesFromEnvironment);
