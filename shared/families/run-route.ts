/** The data families' handlers as one route runner, for the watch functions (fan-out, creation) that answer any paid path. */
import { DATA_FAMILY_HANDLERS, type DataFamily } from './data-handlers';
import type { HandlerRequest, HandlerResult } from '../http/types';
import type { RouteDef } from '../routes/table';

const runDataRoute = (route: RouteDef, req: HandlerRequest): Promise<HandlerResult> => {
  const handlers = DATA_FAMILY_HANDLERS[route.family as DataFamily] as unknown as Record<string, (r: HandlerRequest) => Promise<HandlerResult>>;
  return handlers[route.id]!(req);
};

export { runDataRoute };
