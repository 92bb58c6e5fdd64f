/**
 * Every family's handler map, for runtimes that serve all routes in one process (the local
 * server, end-to-end tests). A Lambda entry imports only its own family's map, so its bundle
 * carries nothing else.
 */
import type { FamilyHandlers } from '../http/types';
import type { Family } from '../routes/table';
import { DATA_FAMILY_HANDLERS } from './data-handlers';
import { mcpHandlers } from './mcp/handlers';
import { proHandlers } from './pro/handlers';
import { watchHandlers } from './watches/handlers';

const FAMILY_HANDLERS: { readonly [F in Family]: FamilyHandlers<F> } = Object.freeze({
  ...DATA_FAMILY_HANDLERS,
  mcp: mcpHandlers,
  pro: proHandlers,
  watches: watchHandlers,
});

export { FAMILY_HANDLERS };
