/**
 * The JSON Schemas of the MCP tools, from the route table's zod schemas: an input schema that
 * says exactly what a call may carry, and an output schema a client can validate every
 * structuredContent against (the data, or on an isError result the refusal).
 *
 * Both are JSON Schema 2020-12 (MCP's default dialect when `$schema` is absent) and portable:
 * none of the four findings MCP Inspector 2.x reports on tool schemas (boolean schemas, `type`
 * arrays, remote `$ref`, schemas with no validation keyword). Output schemas are summaries sized
 * for a model's context: tools/list carries every tool in one answer, and the full schemas of all
 * 23 bodies would be about 140 KB; each tool's body is described to the deepest level that fits
 * OUTPUT_BODY_BUDGET_BYTES (full detail for most), the rest is in /openapi.json.
 */
import * as z from '../zod';

type JsonSchema = { [key: string]: unknown };

/**
 * What a summary of a body may weigh; the list then fits 48 KB (test/mcp/tool-list.test.ts). 1100
 * until the four watch tools (issue 37, 3.2 KB) joined: at 1035 five bodies (curve, calendar spread,
 * WASDE, crop progress, sector snapshot) are described one level less deep; the list is 48.4 KB.
 */
const OUTPUT_BODY_BUDGET_BYTES = 1035;

/** Enums longer than this are left out of summaries (they are in /openapi.json). */
const SUMMARY_ENUM_MAX = 8;

const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmpty = (v: unknown): boolean => isObject(v) && Object.keys(v).length === 0;

/**
 * zod's JSON Schema made portable. Each rule removes something that is either zod's own spelling
 * or one of MCP Inspector's portability findings, and none changes which values validate:
 * - `$schema`: MCP's default dialect is 2020-12, the dialect zod writes.
 * - `pattern` beside `format`: zod spells `z.iso.datetime()` as both (a 250-character regex).
 * - `propertyNames: {type: string}` and `additionalProperties: {}` on records: true of every object.
 * - the ±2^53-1 bounds zod adds to `z.int()`: JSON numbers beyond them are not integers JavaScript keeps.
 * - `maxLength` / `pattern` beside an `enum`: the enum already says every value.
 * - `type: [a, b]` (Inspector "type-union"): the same as `anyOf` of one type each.
 */
const portable = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(portable);
  if (!isObject(node)) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema') continue;
    if (key === 'pattern' && (node.format !== undefined || node.enum !== undefined)) continue;
    if (key === 'maxLength' && node.enum !== undefined) continue;
    if (key === 'propertyNames' && isObject(value) && value.type === 'string' && Object.keys(value).length === 1) continue;
    if (key === 'additionalProperties' && isEmpty(value)) continue;
    if ((key === 'minimum' && value === Number.MIN_SAFE_INTEGER) || (key === 'maximum' && value === Number.MAX_SAFE_INTEGER)) continue;
    out[key] = portable(value);
  }
  if (Array.isArray(out.type)) {
    const { type, ...rest } = out;
    return { anyOf: (type as string[]).map((t) => ({ type: t })), ...rest };
  }
  return out;
};

/**
 * Whether a schema is a zod object (classic or Mini alike). Read from its definition, not with
 * `instanceof z.core.$ZodObject`: reaching `z.core` at run time makes the bundler keep zod's whole
 * core namespace, every locale included (about 310 KB more in the MCP bundle).
 */
const isObjectSchema = (schema: z.core.$ZodType): schema is z.core.$ZodObject => schema._zod.def.type === 'object';

/** A zod schema as portable JSON Schema 2020-12 (named schemas in `$defs`). */
const jsonSchemaOf = (schema: z.core.$ZodType, io: 'input' | 'output'): JsonSchema =>
  portable(z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' })) as JsonSchema;

/**
 * The shape of a schema to `depth` levels of nesting: types, property names, required keys, consts
 * and short enums; at the last level an object keeps the names of its keys (`required`) and an
 * array its type. It accepts every value the schema accepts (it only leaves constraints out), so a
 * client validating with it never rejects a real answer. A `$ref` is kept, and `onRef` told at
 * which depth its definition is needed.
 */
const summarize = (node: unknown, depth: number, onRef: (ref: string, depth: number) => void = () => {}): JsonSchema => {
  if (!isObject(node)) return {};
  if (typeof node.$ref === 'string') {
    onRef(node.$ref, depth);
    return { $ref: node.$ref };
  }
  const branches = (node.anyOf ?? node.oneOf) as unknown[] | undefined;
  if (branches) {
    const summarized = branches.map((b) => summarize(b, depth, onRef));
    const distinct = [...new Map(summarized.map((b) => [JSON.stringify(b), b])).values()];
    return distinct.length === 1 ? distinct[0]! : { anyOf: distinct };
  }
  const out: JsonSchema = {};
  if (node.type !== undefined) out.type = node.type;
  if (node.const !== undefined) out.const = node.const;
  if (Array.isArray(node.enum) && node.enum.length <= SUMMARY_ENUM_MAX) out.enum = node.enum;
  if (node.type === 'object') {
    if (depth > 0 && isObject(node.properties)) {
      out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, summarize(v, depth - 1, onRef)]));
    }
    if (Array.isArray(node.required) && node.required.length) out.required = node.required;
  }
  if (node.type === 'array' && depth > 0 && isObject(node.items)) out.items = summarize(node.items, depth - 1, onRef);
  return out;
};

/**
 * A body schema summarized to `depth`, with the definitions it still uses, each summarized to the
 * depth of its shallowest use.
 */
const summarizeBody = (full: JsonSchema, depth: number): JsonSchema => {
  const { $defs = {}, ...root } = full as JsonSchema & { $defs?: Record<string, unknown> };
  const wanted = new Map<string, number>();
  const pending: string[] = [];
  const onRef = (ref: string, at: number) => {
    const name = ref.replace(/^#\/\$defs\//, '');
    if ((wanted.get(name) ?? -1) >= at) return;
    wanted.set(name, at);
    pending.push(name);
  };
  const summary = summarize(root, depth, onRef);
  const defs: JsonSchema = {};
  for (let name = pending.shift(); name !== undefined; name = pending.shift()) defs[name] = summarize($defs[name], wanted.get(name)!, onRef);
  return Object.keys(defs).length ? { ...summary, $defs: defs } : summary;
};

/**
 * A schema with each definition used once written in place (a `$ref` and its `$defs` entry cost
 * more than the definition), and the others kept in `$defs`.
 */
const inlineSingleUse = (schema: JsonSchema): JsonSchema => {
  const { $defs = {}, ...root } = schema as JsonSchema & { $defs?: JsonSchema };
  const uses = new Map<string, number>();
  const count = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) count(item);
    } else if (isObject(node)) {
      if (typeof node.$ref === 'string') uses.set(node.$ref, (uses.get(node.$ref) ?? 0) + 1);
      for (const value of Object.values(node)) count(value);
    }
  };
  count(root);
  count($defs);
  const once = (name: string) => uses.get(`#/$defs/${name}`) === 1 && !JSON.stringify($defs[name]).includes(`"#/$defs/${name}"`);
  const resolve = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(resolve);
    if (!isObject(node)) return node;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/$defs/') && once(node.$ref.slice(8))) {
      const { $ref: _, ...siblings } = node;
      return resolve({ ...($defs[node.$ref.slice(8)] as JsonSchema), ...siblings });
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v)]));
  };
  const kept = Object.fromEntries(
    Object.keys($defs)
      .filter((name) => !once(name))
      .map((name) => [name, resolve($defs[name])]),
  );
  const out = resolve(root) as JsonSchema;
  return Object.keys(kept).length ? { ...out, $defs: kept } : out;
};

/**
 * A tool's input schema in the subset every model's strict tool calling takes (OpenAI strict
 * function calling, Gemini function declarations; test/mcp/function-calling-rules.ts restates
 * their rules): every property required, an optional one as `anyOf` of its schema and null (null
 * means "not given"), `additionalProperties: false`, and no keyword outside the subset. What the
 * subset cannot say moves into the description: a `default` ("Default: 365.") and a string's
 * length bounds. The route's zod schema still checks every value on the server, bounds included,
 * so nothing a client may send changes.
 */
const strictInputSchema = (schema: JsonSchema): JsonSchema => {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const strict = Object.fromEntries(
    Object.entries(properties).map(([name, prop]) => {
      const { default: dflt, maxLength, minLength, description, ...rest } = prop;
      const notes = [
        description,
        minLength !== undefined ? `At least ${minLength} characters.` : undefined,
        maxLength !== undefined ? `At most ${maxLength} characters.` : undefined,
        dflt !== undefined && !String(description ?? '').includes('(default)') ? `Default: ${dflt}.` : undefined,
      ].filter((n) => n !== undefined && n !== '');
      const text = notes.length ? { description: notes.join(' ') } : {};
      return [name, required.has(name) ? { ...rest, ...text } : { anyOf: [rest, { type: 'null' }], ...text }];
    }),
  );
  return { type: 'object', properties: strict, required: Object.keys(strict), additionalProperties: false };
};

/** Whether a property of a strict input schema may be null, i.e. left out of the call. */
const isOptionalInput = (prop: unknown): boolean => isObject(prop) && Array.isArray(prop.anyOf) && prop.anyOf.some((b) => isObject(b) && b.type === 'null');

const bytes = (schema: JsonSchema): number => JSON.stringify(inlineSingleUse(schema)).length;

/**
 * The body's schema in full if it fits the budget, else its deepest summary that does (down to
 * the names of its top-level keys).
 */
const bodySchemaOf = (output: z.core.$ZodType, budget = OUTPUT_BODY_BUDGET_BYTES): JsonSchema => {
  const full = jsonSchemaOf(output, 'output');
  if (bytes(full) <= budget) return full;
  for (let depth = 4; depth > 0; depth--) {
    const summary = summarizeBody(full, depth);
    if (bytes(summary) <= budget) return summary;
  }
  return summarizeBody(full, 0);
};

export { isObjectSchema, jsonSchemaOf, strictInputSchema, isOptionalInput, summarizeBody, inlineSingleUse, bodySchemaOf, OUTPUT_BODY_BUDGET_BYTES };
export type { JsonSchema };
