/**
 * Route handlers of the inventory family: GET /v1/inventory/eia and /v1/inventory/eia/{series}.
 */
import type { FamilyHandlers, HandlerRequest } from '../../http/types';
import { loadInventoryBundle, loadInventorySeries } from './load';

const bundle = async ({ deps }: HandlerRequest) => ({ body: await loadInventoryBundle(deps) });

const single = async ({ params, deps }: HandlerRequest<{ series: string }>) => ({ body: await loadInventorySeries(deps, params.series) });

const inventoryHandlers: FamilyHandlers = Object.freeze({
  'GET /v1/inventory/eia': bundle,
  'GET /v1/inventory/eia/{series}': single,
});

export { inventoryHandlers };
