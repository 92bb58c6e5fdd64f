/**
 * Route handlers of the inventory family: GET /v1/inventory/eia and /v1/inventory/eia/{series},
 * compact by default (figures as numbers), every figure as an observation with view=full.
 */
import { isoDate } from '../../dates';
import type { FamilyHandlers, RouteHandler } from '../../http/types';
import { compactInventoryBundle, compactInventorySeries } from './compact';
import { loadInventoryBundle, loadInventorySeries } from './load';
import { answerAsKnownAt, sameInstant } from '../point-in-time';

const bundle: RouteHandler<'GET /v1/inventory/eia'> = async ({ query, services }) => {
  const full = await loadInventoryBundle(services);
  if (query.view === 'full') return { body: { ...full, view: 'full' as const } };
  const compact = compactInventoryBundle(full, isoDate(services.now()));
  return { body: { ...compact, full_view: sameInstant(services, compact.full_view) } };
};

const single: RouteHandler<'GET /v1/inventory/eia/{series}'> = async ({ params, query, services }) => {
  const full = await loadInventorySeries(services, params.series);
  if (query.view === 'full') return { body: { ...full, view: 'full' as const } };
  const compact = compactInventorySeries(full, isoDate(services.now()));
  return { body: { ...compact, full_view: sameInstant(services, compact.full_view) } };
};

const inventoryHandlers: FamilyHandlers<'inventory'> = answerAsKnownAt<'inventory'>({
  'GET /v1/inventory/eia': bundle,
  'GET /v1/inventory/eia/{series}': single,
});

export { inventoryHandlers };
