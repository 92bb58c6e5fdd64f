/**
 * The MCP Registry `server.json` of this deployment, generated from the same server info as the
 * endpoint. The registry name is reverse-DNS of the public host (api.example.com ->
 * com.example.api/commodity-data), so it names the operator's own domain.
 */
import { SERVER_INFO } from './server';

const REGISTRY_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

const registryNameOf = (baseUrl: string): string => `${new URL(baseUrl).hostname.split('.').reverse().join('.')}/${SERVER_INFO.name}`;

const buildServerJson = (baseUrl: string) => ({
  $schema: REGISTRY_SCHEMA,
  name: registryNameOf(baseUrl),
  title: SERVER_INFO.title,
  description: 'Primary-source commodity data (EIA, FRED, World Bank, CFTC, USDA, USGS), paid per call.',
  version: SERVER_INFO.version,
  websiteUrl: `${baseUrl}/llms.txt`,
  remotes: [{ type: 'streamable-http' as const, url: `${baseUrl}/api/mcp` }],
});

export { buildServerJson };
