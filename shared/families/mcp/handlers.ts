/**
 * The MCP endpoint. GET lists the tool names (one per paid route, generated from the route
 * table); POST (streamable HTTP) is the next stage and answers 501 until then.
 */
import { NotImplementedError } from '../../errors/errors';
import type { FamilyHandlers } from '../../http/types';
import { PAID_ROUTES, type RouteDef } from '../../routes';

/** Tool name of a paid route: `GET /v1/spreads/crack` -> `spreads_crack`, `{code}` segments dropped. */
const toolNameOf = (r: RouteDef): string =>
  r.path
    .split('/')
    .filter((s) => s && s !== 'v1' && !s.startsWith('{'))
    .join('_')
    .replace(/-/g, '_');

const mcpHandlers: FamilyHandlers<'mcp'> = Object.freeze({
  'GET /api/mcp': async () => ({
    body: {
      transport: 'streamable-http',
      endpoint: '/api/mcp',
      tools: PAID_ROUTES.map((r) => ({ name: toolNameOf(r), route: r.id, price_usd: r.priceUsd, description: r.summary })),
    },
  }),
  'POST /api/mcp': async () => {
    throw new NotImplementedError('MCP tool calls are not served yet; use the HTTP routes listed by GET /api/mcp');
  },
});

export { mcpHandlers };
