/**
 * Route handlers of the inventory family: GET /v1/inventory/eia and /v1/inventory/eia/{series}.
 */
import type { FamilyHandlers, RouteHandler } from '../../http/types';
import { loadInventoryBundle, loadInventorySeries } from './load';

const bundle: RouteHandler<'GET /v1/inventory/eia'> = async ({ services }) => ({ body: await loadInventoryBundle(services) });

const single: RouteHandler<'GET /v1/inventory/eia/{series}'> = async ({ params, services }) => ({ body: await loadInventorySeries(services, params.series) });

const inventoryHandlers: FamilyHandlers<'inventory'> = Object.freeze({
  'GET /v1/inventory/eia': bundle,
  'GET /v1/inventory/eia/{series}': single,
});

export { inventoryHandlers };
