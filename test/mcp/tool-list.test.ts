/**
 * What tools/list gives a client, in both protocol eras, over HTTP against the local runtime:
 * a list that fits a model's context (48 KB, was 240,814 bytes), no MCP Inspector schema-portability
 * finding (was 281 warnings, all in output schemas), and for every tool a title, a description with
 * its price, annotations, its price in `_meta`, a strict input schema and an output schema that every
 * real structuredContent validates against (Ajv, JSON Schema 2020-12: MCP's default dialect).
 */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { TOOLS } from '../../shared/mcp/tools';
import { WATCH_TOOLS } from '../../shared/mcp/watch-tools';
import { SPEC_PAID_ROUTES } from '../helpers/spec-prices';
import { startTestStack } from '../helpers/stack';
import { connect, ERAS, type McpClient, rawRpc, sampleCalls } from './clients';
import { geminiFindings, openAiStrictFindings } from './function-calling-rules';
import { lintTools } from './inspector-schema-lint';

/** What a client may put in a model's context for one server's tools (issue 27). */
const TOOL_LIST_MAX_BYTES = 48 * 1024;

/** The curve stubs are free while indicative futures are off (the local default). */
const FREE_WHILE_STUBBED = new Set(['/v1/curve/{root}', '/v1/spreads/calendar/{root}']);

/** Ajv as strict as a careful client: unknown keywords and misplaced ones are errors (a `required` without `properties` is valid). */
const newAjv = () => {
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
  addFormats(ajv);
  return ajv;
};

describe.each(ERAS)('tools/list, protocol %s', (era) => {
  let stack: LocalStack;
  let client: McpClient;
  let tools: Array<Record<string, any> & { name: string }>;
  beforeAll(async () => {
    // On a day the replayed samples give every spread a value (their legs share 2025-06-16).
    stack = await startTestStack({ X402_ENFORCE: undefined }, true, { now: () => new Date('2025-06-17T15:00:00Z') });
    client = await connect(stack.url, era);
    tools = (await client.listTools()).tools;
  });
  afterAll(async () => {
    await client?.close();
    await stack?.close();
  });

  it(`fits ${TOOL_LIST_MAX_BYTES} bytes on the wire, every tool included`, async () => {
    const res = await rawRpc(stack.url, era, 'tools/list');
    expect(res.status).toBe(200);
    console.info(`tools/list (${era}): ${Buffer.byteLength(res.text)} bytes`);
    expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(TOOL_LIST_MAX_BYTES);
    expect(JSON.parse(res.text).result.tools.map((t: { name: string }) => t.name)).toEqual([...TOOLS, ...WATCH_TOOLS].map((t) => t.name));
  });

  it('has no MCP Inspector schema-portability finding (errors or warnings)', () => {
    expect(lintTools(tools)).toEqual([]);
  });

  it('every input schema as listed is one OpenAI strict function calling and Gemini function declarations take', () => {
    for (const tool of tools) {
      expect(openAiStrictFindings(tool.name, tool.inputSchema), tool.name).toEqual([]);
      expect(geminiFindings(tool.name, tool.inputSchema), tool.name).toEqual([]);
    }
  });

  it('gives every tool a title, annotations, a description and _meta stating its price', () => {
    const specPrice = new Map(SPEC_PAID_ROUTES.map(([path, , usd]) => [`GET ${path}`, usd]));
    const watchTools = new Map(WATCH_TOOLS.map((t) => [t.name, t]));
    for (const tool of tools.filter((t) => watchTools.has(t.name))) {
      // Issue 37: the watch tools change state (annotations of their own); free, a delivery is what is charged.
      expect(tool.title, tool.name).toMatch(/\S/);
      expect(tool.annotations, tool.name).toEqual(watchTools.get(tool.name)!.annotations);
      expect(tool._meta, tool.name).toEqual({ route: watchTools.get(tool.name)!.route.id, price_usd: null });
      expect(tool.description, tool.name).toContain('Pro key');
    }
    for (const tool of tools.filter((t) => !watchTools.has(t.name))) {
      expect(tool.title, tool.name).toMatch(/\S/);
      expect(tool.annotations, tool.name).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });
      const route = tool._meta?.route as string;
      const path = route.replace(/^GET /, '');
      const price = specPrice.has(route) && !FREE_WHILE_STUBBED.has(path) ? specPrice.get(route)! : null;
      expect(tool._meta, tool.name).toEqual({ route, price_usd: price });
      expect(tool.description, tool.name).toContain(price ? `Price: ${price} USD per call` : 'Free.');
    }
    // Every paid route of SPEC.md is a tool.
    expect(new Set(tools.map((t) => t._meta?.route))).toEqual(
      new Set([...specPrice.keys(), 'GET /v1/catalog', 'GET /v1/calendar', 'GET /health', ...WATCH_TOOLS.map((t) => t.route.id)]),
    );
  });

  it('input schemas are objects that refuse undeclared arguments; output schemas are objects; all compile under strict Ajv 2020', () => {
    const ajv = newAjv();
    for (const tool of tools) {
      expect(tool.inputSchema, tool.name).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(() => ajv.compile(tool.inputSchema), `${tool.name} inputSchema`).not.toThrow();
      expect(() => ajv.compile(tool.outputSchema), `${tool.name} outputSchema`).not.toThrow();
    }
  });

  it("every tool's real structuredContent (each view) validates against its listed outputSchema, and so does an error result", async () => {
    const ajv = newAjv();
    const validators = new Map(tools.map((t) => [t.name, ajv.compile(t.outputSchema)]));
    for (const call of sampleCalls()) {
      const res = await client.callTool(call);
      const what = `${call.name} ${JSON.stringify(call.arguments)}`;
      expect(res.isError, `${what}: ${JSON.stringify(res.structuredContent).slice(0, 200)}`).toBeFalsy();
      const validate = validators.get(call.name)!;
      expect(validate(res.structuredContent) ? [] : validate.errors, what).toEqual([]);
    }
    for (const tool of tools) {
      const refused = await client.callTool({ name: tool.name, arguments: { not_an_argument: 1 } });
      expect(refused.isError, tool.name).toBe(true);
      const validate = validators.get(tool.name)!;
      expect(validate(refused.structuredContent) ? [] : validate.errors, tool.name).toEqual([]);
    }
  });
});
