/**
 * The agent card (/.well-known/agent-card.json, and /.well-known/agent.json where A2A before 0.3
 * looked): an A2A AgentCard of protocol 0.3.0, generated from the route table. The service has no
 * A2A message endpoint: `url` is the HTTP API it does have, and a required extension says how to
 * reach it (OpenAPI, x402, Pro keys, MCP), so an A2A client learns it cannot send it messages.
 */
import { PAID_ROUTES } from '../routes/table';
import { chargedUsd, type DocsConfig, freeText } from './charge';
import { API_VERSION, SERVICE_NAME, SERVICE_SUMMARY } from './identity';
import { examplePath } from './text';

/** The A2A protocol version this card follows (its JSON schema is test/docs/fixtures/a2a-v0.3.0.json). */
const A2A_PROTOCOL_VERSION = '0.3.0' as const;
/** Identifies the access extension: what it means is fixed, wherever the card is served. */
const ACCESS_EXTENSION_URI = 'urn:commodity-data:a2a-extension:access:v1';

/** Pure: the agent card of a deployment at `baseUrl`. */
const buildAgentCard = (baseUrl: string, config: DocsConfig) => ({
  protocolVersion: A2A_PROTOCOL_VERSION,
  name: SERVICE_NAME,
  description: `${SERVICE_SUMMARY} An HTTP API and an MCP server; no A2A message endpoint (see the access extension).`,
  url: baseUrl,
  preferredTransport: 'HTTP+JSON',
  version: API_VERSION,
  provider: { organization: SERVICE_NAME, url: baseUrl },
  documentationUrl: `${baseUrl}/llms-full.txt`,
  capabilities: {
    streaming: false,
    pushNotifications: false,
    stateTransitionHistory: false,
    extensions: [
      {
        uri: ACCESS_EXTENSION_URI,
        description:
          'This agent is reached through its HTTP API (described by OpenAPI) or its MCP server, not with A2A messages. ' +
          'Paid calls are paid per call with x402 (USDC) or a prepaid Pro key.',
        required: true,
        params: {
          a2a_endpoint: null,
          openapi: `${baseUrl}/openapi.json`,
          x402: {
            resources: `${baseUrl}/.well-known/x402`,
            request_headers: ['PAYMENT-SIGNATURE', 'X-PAYMENT'],
            response_headers: ['PAYMENT-RESPONSE', 'X-PAYMENT-RESPONSE'],
          },
          pro: { header: 'Authorization: Bearer', credit_usd: '0.01', plans: `${baseUrl}/pro` },
          mcp: { endpoint: `${baseUrl}/api/mcp`, transport: 'streamable-http', server_json: `${baseUrl}/.well-known/mcp/server.json` },
        },
      },
    ],
  },
  // The two payment lanes, in OpenAPI's security scheme shape (A2A 0.3 uses it): either one pays a call.
  securitySchemes: {
    x402: {
      type: 'apiKey' as const,
      in: 'header' as const,
      name: 'PAYMENT-SIGNATURE',
      description: 'x402: read the 402, sign the USDC authorization it asks for, retry with PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1).',
    },
    proKey: { type: 'http' as const, scheme: 'bearer', description: 'A prepaid Pro key: Authorization: Bearer cds_live_… (1 credit = 0.01 USD).' },
  },
  security: [{ x402: [] }, { proKey: [] }] as Array<Record<string, string[]>>,
  defaultInputModes: ['application/json'],
  defaultOutputModes: ['application/json'],
  skills: [...new Set(PAID_ROUTES.map((r) => r.family))].map((family) => {
    const routes = PAID_ROUTES.filter((r) => r.family === family);
    return {
      id: family,
      name: family,
      description: routes.map((r) => `${r.summary} (${chargedUsd(r, config) ? `${chargedUsd(r, config)} USD` : freeText(r)})`).join('; '),
      tags: ['commodities', family],
      examples: routes.map((r) => `${r.method} ${baseUrl}${examplePath(r)}`),
    };
  }),
});

export { buildAgentCard };
