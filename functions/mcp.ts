/** Lambda entry of the MCP endpoint (/api/mcp). */
import { mcpHandlers } from '../shared/families/mcp/handlers';
import { createFamilyHandler } from '../shared/http/family-handler';
import { MCP_ROUTES } from '../shared/routes/table';
import { servicesFromEnvironment } from '../shared/services';

export const handler = createFamilyHandler(MCP_ROUTES, mcpHandlers, servicesFromEnvironment);
