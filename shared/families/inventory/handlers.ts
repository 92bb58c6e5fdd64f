/**
 * Route handlers of the inventory family: GET /v1/inventory/eia and /v1/inventory/eia/{series},
 * compact by default (figures as numbers), every figure as an observation with view=full.
 */
import { isoDate } from '../../dates';
import type { FamilyHandlers, RouteHandler } from '../../http/types';
import { STALE_RULE } from '../../observation/staleness';
import type { Services } from '../../services';
import { EIA_INVENTORY_SERIES } from '../../sources/eia-inventory';
import { loadFreshness } from '../freshness';
import { compactInventoryBundle, compactInventorySeries, type InventoryStaleContext } from './compact';
import { loadInventoryBundle, loadInventorySeries } from './load';

/** The sources of the 7 series (EIA petroleum and gas storage), whose staleness /health reports. */
const INVENTORY_SOURCES = [...new Set(EIA_INVENTORY_SERIES.map((s) => s.sourceId))];

const staleContext = async (services: Services): Promise<InventoryStaleContext> => {
  const freshness = await loadFreshness(services, INVENTORY_SOURCES);
  return { today: isoDate(services.now()), staleSources: new Set(freshness.filter((f) => f.stale).map((f) => f.id)) };
};

const bundle: RouteHandler<'GET /v1/inventory/eia'> = async ({ query, services }) => {
  const full = await loadInventoryBundle(services);
  if (query.view === 'full') return { body: { ...full, view: 'full' as const } };
  return { body: compactInventoryBundle(full, await staleContext(services), STALE_RULE) };
};

const single: RouteHandler<'GET /v1/inventory/eia/{series}'> = async ({ params, query, services }) => {
  const full = await loadInventorySeries(services, params.series);
  if (query.view === 'full') return { body: { ...full, view: 'full' as const } };
  return { body: compactInventorySeries(full, await staleContext(services), STALE_RULE) };
};

const inventoryHandlers: FamilyHandlers<'inventory'> = Object.freeze({
  'GET /v1/inventory/eia': bundle,
  'GET /v1/inventory/eia/{series}': single,
});

export { inventoryHandlers };
