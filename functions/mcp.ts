/** Lambda entry of the MCP endpoint (/api/mcp). */
import { mcpHandlers } from '../shared/families/mcp/handlers';
import { createFreeFamilyHandler } from '../shared/http/family-handler';
import { MCP_ROUTES } from '../shared/routes/table';
import { servicesFromEnvironment } from '../shared/services';

export const handler = createFreeFamilyHandler(MCP_ROUTES, mcpHandlers, servicesFromEnvironment);
