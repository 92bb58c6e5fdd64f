/**
 * What the MCP SDK's server gets for its runtime shim inside a Lambda bundle (infra/bundle/options.ts
 * routes `@modelcontextprotocol/server/_shims` here). On Node the SDK's shim exports an Ajv-backed
 * default validator (Ajv with ajv-formats and fast-uri, about 130 KB minified and a third of the MCP
 * function's import time), used only for elicitation answers when no validator is passed;
 * shared/mcp/server.ts passes its own (the server never elicits), so the default is never built. If
 * it ever is, this fails loudly instead of validating nothing.
 */
import process from 'node:process';

export class DefaultJsonSchemaValidator {
  constructor() {
    throw new Error('Ajv is left out of this bundle: pass jsonSchemaValidator to the MCP Server (shared/mcp/server.ts)');
  }
}

export { process };
