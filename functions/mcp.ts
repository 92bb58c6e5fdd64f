/** Lambda entry of the MCP endpoint (/api/mcp). */
import { mcpHandlers } from '../shared/families/mcp/handlers';
import { createFamilyHandler } from '../shared/http/family-handler';
import { servicesFromEnvironment } from '../shared/services';

export const handler = createFamilyHandler('mcp', mcpHandlers, servicesFromEnvironment);
