/**
 * The MCP Registry `server.json` of this deployment, generated from the same server info as the
 * endpoint. Its name is the operator's (configuration: MCP_REGISTRY_NAME): a registry name is a
 * namespace its publisher proves to own, which no host name the request arrived on can stand for.
 */
import { SERVER_INFO } from './server';

const REGISTRY_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

/**
 * Pure: the registry entry.
 * @param registryName the configured MCP Registry name (namespace/name)
 */
const buildServerJson = (baseUrl: string, registryName: string) => ({
  $schema: REGISTRY_SCHEMA,
  name: registryName,
  title: SERVER_INFO.title,
  description: 'Primary-source commodity data (EIA, FRED, World Bank, CFTC, USDA, USGS), paid per call.',
  version: SERVER_INFO.version,
  websiteUrl: `${baseUrl}/llms.txt`,
  remotes: [{ type: 'streamable-http' as const, url: `${baseUrl}/api/mcp` }],
});

export { buildServerJson };
