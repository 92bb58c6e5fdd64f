/**
 * The MCP endpoint. POST speaks MCP Streamable HTTP (stateless; protocol revisions 2025-11-25 and
 * older, and 2026-07-28: shared/mcp/server.ts); a plain GET lists
 * the tools with their prices; a GET asking for an event stream and DELETE get 405 from here,
 * because a stateless transport would open a stream that never closes.
 */
import { MethodNotAllowedError, UnauthorizedError } from '../../errors/errors';
import { hashKey, parseKey } from '../../pro/keys';
import { bearerOf } from '../../pro/keys';
import type { FamilyHandlers, HandlerRequest, HandlerResult } from '../../http/types';
import { handleMcpPost, type RouteRunner } from '../../mcp/server';
import { buildServerJson } from '../../mcp/server-json';
import { priceOf, TOOLS } from '../../mcp/tools';
import { WATCH_TOOLS } from '../../mcp/watch-tools';
import { DATA_FAMILY_HANDLERS, type DataFamily } from '../data-handlers';
import { watchHandlers } from '../watches/handlers';
import { baseUrlOf } from '../discovery/base-url';

/** Tools run the data families' own handlers; the watch tools (issue 37) the /v1/watches handlers. */
const runRoute: RouteRunner = (route, req) => {
  const family = route.family === 'watches' ? watchHandlers : DATA_FAMILY_HANDLERS[route.family as DataFamily];
  const handlers = family as unknown as Record<string, (r: HandlerRequest) => Promise<HandlerResult>>;
  return handlers[route.id]!(req);
};

const requireUsableKey = async (authorization: string, services: HandlerRequest['services']): Promise<void> => {
  const key = bearerOf({ authorization });
  if (key === '') throw new UnauthorizedError('the Authorization scheme must be Bearer: send Authorization: Bearer <Pro key>');
  const record = key && parseKey(key).ok ? await services.payment.credits.get(hashKey(key)) : null;
  if (record?.status !== 'active') throw new UnauthorizedError('the Authorization header does not carry an active Pro key');
};

const notAllowed = (what: string) => new MethodNotAllowedError(`${what}: this MCP endpoint is stateless; send JSON-RPC with POST`, ['POST']);

/** The POST as a web Request for the SDK transport (it needs an absolute URL). */
const webRequestOf = (req: HandlerRequest): Request =>
  new Request(`${baseUrlOf(req)}/api/mcp`, { method: 'POST', headers: req.headers, body: req.rawBody ?? '' });

const mcpHandlers: FamilyHandlers<'mcp'> = Object.freeze({
  'GET /api/mcp': async ({ headers, services }) => {
    if (headers.accept?.includes('text/event-stream')) throw notAllowed('GET with Accept: text/event-stream');
    return {
      body: {
        transport: 'streamable-http',
        endpoint: '/api/mcp',
        tools: [
          ...TOOLS.map((t) => ({
            name: t.name,
            route: t.route.id,
            price_usd: priceOf(t, services.config),
            description: t.route.mcp.description,
          })),
          ...WATCH_TOOLS.map((t) => ({ name: t.name, route: t.route.id, price_usd: null, description: t.description })),
        ],
      },
    };
  },
  'POST /api/mcp': async (req) => {
    const authorization = req.headers.authorization;
    // An unusable key is refused on the POST itself (HTTP 401), before any tool runs.
    if (authorization !== undefined) await requireUsableKey(authorization, req.services);
    const res = await handleMcpPost(webRequestOf(req), { requestId: req.requestId, services: req.services, runRoute, authorization });
    // JSON-RPC answers go out as JSON; an SSE stream (subscriptions/listen) and a 202's empty body as they are.
    const json = res.body !== '' && res.headers['content-type']?.startsWith('application/json');
    return { status: res.status, headers: res.headers, body: json ? JSON.parse(res.body) : res.body };
  },
  'DELETE /api/mcp': async () => {
    throw notAllowed('DELETE');
  },
  'GET /.well-known/mcp/server.json': async (req) => ({ body: buildServerJson(baseUrlOf(req), req.services.config.MCP_REGISTRY_NAME) }),
});

export { mcpHandlers };
