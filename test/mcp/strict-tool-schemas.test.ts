/**
 * Every tool's input schema is one that strict tool calling takes as listed (OpenAI strict function
 * calling and Gemini function declarations, rules restated in function-calling-rules.ts), and the
 * server checks a call as strictly as before: null is "not given", the bounds the listed schema
 * states only in words (a string's length) are still enforced, a bad value is still refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { jsonSchemaOf } from '../../shared/mcp/tool-schemas';
import { TOOLS } from '../../shared/mcp/tools';
import * as z from '../../shared/zod';
import { startTestStack } from '../helpers/stack';
import { connect, type McpClient } from './clients';
import { geminiFindings, openAiStrictFindings } from './function-calling-rules';

describe('tool input schemas as strict tool calling takes them', () => {
  it.each(TOOLS.map((t) => [t.name, t] as const))('%s: nothing OpenAI strict mode or Gemini refuses', (name, tool) => {
    expect(openAiStrictFindings(name, tool.inputSchema)).toEqual([]);
    expect(geminiFindings(name, tool.inputSchema)).toEqual([]);
  });

  it('an optional argument is required and nullable, with the default it had in words', () => {
    const history = TOOLS.find((t) => t.name === 'get_history')!.inputSchema as any;
    expect(history.required).toEqual(Object.keys(history.properties));
    expect(history.properties.limit).toEqual({ anyOf: [{ type: 'integer', minimum: 1, maximum: 1000 }, { type: 'null' }], description: 'Default: 365.' });
    expect(history.properties.code.anyOf).toBeUndefined();
    const prices = TOOLS.find((t) => t.name === 'get_prices')!.inputSchema as any;
    expect(prices.properties.codes).toEqual({ type: 'string', description: 'At most 600 characters.' });
  });

  it('the rules find what the issue counted in the schemas as listed before: 18 of 23 tools refused by OpenAI strict mode', () => {
    // The input schema as it was listed: zod's portable JSON Schema of the route's parameters.
    const before = TOOLS.map((t) => [t.name, jsonSchemaOf(z.strictObject({ ...z.shapeOf(t.route.params), ...z.shapeOf(t.route.query) }), 'input')] as const);
    const refused = before.filter(([name, schema]) => openAiStrictFindings(name, schema).length > 0);
    expect(refused.length).toBe(18);
    const rules = new Set(before.flatMap(([name, schema]) => openAiStrictFindings(name, schema).map((f) => f.rule)));
    expect(rules).toEqual(new Set(['optional property (strict mode requires every property)', 'keyword default', 'keyword maxLength']));
  });

  describe('each rule finds what it describes (synthetic schemas)', () => {
    const ok = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };
    it.each([
      ['OpenAI: root anyOf', openAiStrictFindings, { anyOf: [ok] }, 'root must be an object, not anyOf'],
      ['OpenAI: missing additionalProperties', openAiStrictFindings, { ...ok, additionalProperties: undefined }, 'additionalProperties must be false'],
      ['OpenAI: optional property', openAiStrictFindings, { ...ok, required: [] }, 'optional property (strict mode requires every property)'],
      ['OpenAI: default', openAiStrictFindings, { ...ok, properties: { a: { type: 'string', default: 'x' } } }, 'keyword default'],
      ['OpenAI: maxLength', openAiStrictFindings, { ...ok, properties: { a: { type: 'string', maxLength: 3 } } }, 'keyword maxLength'],
      ['OpenAI: unknown format', openAiStrictFindings, { ...ok, properties: { a: { type: 'string', format: 'uri' } } }, 'format uri'],
      ['Gemini: type list', geminiFindings, { ...ok, properties: { a: { type: ['string', 'null'] } } }, 'type ["string","null"]'],
      ['Gemini: $ref', geminiFindings, { ...ok, properties: { a: { $ref: '#/$defs/a' } } }, 'keyword $ref'],
      ['Gemini: const', geminiFindings, { ...ok, properties: { a: { type: 'string', const: 'x' } } }, 'keyword const'],
      ['Gemini: format date', geminiFindings, { ...ok, properties: { a: { type: 'string', format: 'date' } } }, 'format date on string'],
      ['Gemini: enum on integer', geminiFindings, { ...ok, properties: { a: { type: 'integer', enum: [1] } } }, 'enum on a non-string'],
      ['Gemini: parameter name', geminiFindings, { ...ok, properties: { 'a-b': { type: 'string' } }, required: ['a-b'] }, 'parameter name'],
    ] as const)('%s', (_what, rules, schema, rule) => {
      expect(rules('get_x', schema).map((f) => f.rule)).toContain(rule);
      expect(rules('get_x', ok)).toEqual([]);
    });
    it('function names', () => {
      expect(openAiStrictFindings('get.x', ok).map((f) => f.rule)).toEqual(['function name']);
      expect(geminiFindings('1get', ok).map((f) => f.rule)).toEqual(['function name']);
    });
  });
});

describe('the server checks a strict call as strictly as before (v2 client, 2026-07-28)', () => {
  let stack: LocalStack;
  let client: McpClient;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: undefined }, true, { now: () => new Date('2025-06-17T15:00:00Z') });
    client = await connect(stack.url, '2026-07-28');
  });
  afterAll(async () => {
    await client?.close();
    await stack?.close();
  });

  it('null for every optional argument answers what leaving them out answers', async () => {
    const omitted = await client.callTool({ name: 'get_history', arguments: { code: 'CL' } });
    const nulls = await client.callTool({
      name: 'get_history',
      arguments: { code: 'CL', start: null, end: null, limit: null, frequency: null, cursor: null, as_known_at: null },
    });
    expect(omitted.isError).toBeFalsy();
    expect((omitted.structuredContent as any).observations.length).toBeGreaterThan(0);
    // The second call is served from the cache the first filled: everything but that flag is the same.
    const uncached = (body: unknown) => JSON.parse(JSON.stringify(body).replaceAll('"cache_hit":true', '"cache_hit":false'));
    expect(uncached(nulls.structuredContent)).toEqual(uncached(omitted.structuredContent));
    const view = await client.callTool({ name: 'get_sector_snapshot', arguments: { sector: 'energy', view: null, as_known_at: null } });
    expect(view.isError).toBeFalsy();
  });

  it.each([
    ['a required argument given as null is refused as missing', 'get_price', { code: null, as_known_at: null }, 'code'],
    ['a limit outside 1..1000', 'get_history', { code: 'CL', limit: 0 }, 'limit'],
    ['a frequency outside its enum', 'get_history', { code: 'CL', frequency: 'daily' }, 'frequency'],
    ['codes longer than the 600 characters the description states', 'get_prices', { codes: 'CL,'.repeat(201), as_known_at: null }, 'codes'],
    ['a commodity longer than 32 characters', 'get_wasde', { commodity: 'c'.repeat(33), view: null, as_known_at: null }, 'commodity'],
    ['an as_known_at that is not a date-time', 'get_price', { code: 'CL', as_known_at: 'yesterday' }, 'as_known_at'],
  ])('%s', async (_what, name, args, path) => {
    const res = await client.callTool({ name, arguments: args });
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toMatchObject({ error: { code: 'INVALID_PARAMETER', details: { issues: [expect.objectContaining({ path })] } } });
  });
});
