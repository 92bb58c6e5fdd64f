/**
 * What the MCP SDK's server gets for its Ajv validator inside a Lambda bundle (infra/bundle/options.ts
 * routes `../validation/ajv-provider.js` here). The SDK imports Ajv (about 130 KB minified with
 * ajv-formats and fast-uri, and a third of the MCP function's import time) only to build a default
 * validator for elicitation answers; shared/mcp/server.ts passes its own (the server never elicits),
 * so the default is never built. If it ever is, this fails loudly instead of validating nothing.
 */
export class AjvJsonSchemaValidator {
  constructor() {
    throw new Error('Ajv is left out of this bundle: pass jsonSchemaValidator to the MCP Server (shared/mcp/server.ts)');
  }
}
