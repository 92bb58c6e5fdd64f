/** Lambda entry of the MCP endpoint (/api/mcp). */
import { mcpHandlers } from '../shared/families/mcp/handlers';
import { createFamilyHandler } from '../shared/http/family-handler';

export const handler = createFamilyHandler('mcp', mcpHandlers);
