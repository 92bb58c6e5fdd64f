/**
 * The handler maps of every family that serves data or documents (all but MCP and Pro), for the MCP
 * tools that run them in-process and for runtimes that serve every route in one process.
 */
import type { FamilyHandlers } from '../http/types';
import type { Family } from '../routes/table';
import { cotHandlers } from './cot/handlers';
import { curveHandlers } from './curve/handlers';
import { decisionHandlers } from './decision/handlers';
import { discoveryHandlers } from './discovery/handlers';
import { fundamentalsHandlers } from './fundamentals/handlers';
import { inventoryHandlers } from './inventory/handlers';
import { priceHandlers } from './price/handlers';
import { snapshotHandlers } from './snapshot/handlers';
import { spreadsHandlers } from './spreads/handlers';

type DataFamily = Exclude<Family, 'mcp' | 'pro' | 'watches'>;

const DATA_FAMILY_HANDLERS: { readonly [F in DataFamily]: FamilyHandlers<F> } = Object.freeze({
  price: priceHandlers,
  curve: curveHandlers,
  inventory: inventoryHandlers,
  cot: cotHandlers,
  spreads: spreadsHandlers,
  fundamentals: fundamentalsHandlers,
  snapshot: snapshotHandlers,
  decision: decisionHandlers,
  discovery: discoveryHandlers,
});

export { DATA_FAMILY_HANDLERS };
export type { DataFamily };
