/**
 * Every family's handler map, for runtimes that serve all routes in one process (the local
 * server, end-to-end tests). A Lambda entry imports only its own family's map, so its bundle
 * carries nothing else.
 */
import type { FamilyHandlers } from '../http/types';
import type { Family } from '../routes/table';
import { cotHandlers } from './cot/handlers';
import { curveHandlers } from './curve/handlers';
import { decisionHandlers } from './decision/handlers';
import { discoveryHandlers } from './discovery/handlers';
import { fundamentalsHandlers } from './fundamentals/handlers';
import { inventoryHandlers } from './inventory/handlers';
import { mcpHandlers } from './mcp/handlers';
import { priceHandlers } from './price/handlers';
import { snapshotHandlers } from './snapshot/handlers';
import { spreadsHandlers } from './spreads/handlers';

const FAMILY_HANDLERS: { readonly [F in Family]: FamilyHandlers<F> } = Object.freeze({
  price: priceHandlers,
  curve: curveHandlers,
  inventory: inventoryHandlers,
  cot: cotHandlers,
  spreads: spreadsHandlers,
  fundamentals: fundamentalsHandlers,
  snapshot: snapshotHandlers,
  decision: decisionHandlers,
  discovery: discoveryHandlers,
  mcp: mcpHandlers,
});

export { FAMILY_HANDLERS };
