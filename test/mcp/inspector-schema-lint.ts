/**
 * MCP Inspector 2.x's tool-schema portability checks, as a test helper. The Inspector runs them on
 * every `tools/list` (`--cli --method tools/list` prints "Schema portability: N errors, M warnings";
 * `--strict` lists them). Its function is not exported by the package (it is bundled into
 * `clients/cli/build/index.js`, region `core/json/schemaLint.ts`, of @modelcontextprotocol/inspector
 * 2.12.0), so the rules are restated here, in its terms:
 *
 * - `boolean-schema` (error): a bare `true`/`false` where a schema object is expected; allowed only
 *   as the value of additionalProperties, unevaluatedProperties, additionalItems, unevaluatedItems.
 * - `type-union` (warning): `type` is an array of distinct JSON types.
 * - `remote-ref` (warning): a `$ref` that does not start with `#`, when the document declares no `$id`.
 * - `untyped-schema` (warning): a schema object with no constraining keyword (an `if` counts only
 *   with a `then` or `else`), except directly under `not`.
 *
 * Subschemas are visited where the Inspector visits them (the keyword lists below are its), to a
 * depth of 64.
 */

type Finding = { rule: 'boolean-schema' | 'type-union' | 'remote-ref' | 'untyped-schema'; severity: 'error' | 'warning'; schema: string; path: string };

const BOOLEAN_VALUED_KEYWORDS = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const SUBSCHEMA_KEYWORDS = [
  'items',
  'contains',
  'not',
  'propertyNames',
  'if',
  'then',
  'else',
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
  'contentSchema',
];
const SUBSCHEMA_ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];
const CONSTRAINING_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'items',
  'prefixItems',
  'contains',
  'additionalItems',
  'unevaluatedItems',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'dependentSchemas',
  'dependencies',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
]);
const JSON_SCHEMA_TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'string', 'integer']);
const MAX_DEPTH = 64;

type Node = Record<string, unknown>;
const isRecord = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

const constrains = (node: Node): boolean => Object.keys(node).some((k) => CONSTRAINING_KEYWORDS.has(k)) || ('if' in node && ('then' in node || 'else' in node));

const isPortableTypeUnion = (type: unknown[]): boolean =>
  type.length > 0 && type.every((t) => typeof t === 'string' && JSON_SCHEMA_TYPES.has(t)) && new Set(type).size === type.length;

const forEachSubschema = (node: Node, path: string, visit: (child: unknown, path: string, keyword: string) => void): void => {
  for (const key of SUBSCHEMA_MAP_KEYWORDS) {
    const map = node[key];
    if (isRecord(map)) for (const [name, sub] of Object.entries(map)) visit(sub, `${path}.${key}.${name}`, key);
  }
  for (const key of SUBSCHEMA_ARRAY_KEYWORDS) {
    const arr = node[key];
    if (Array.isArray(arr)) for (const [i, sub] of arr.entries()) visit(sub, `${path}.${key}[${i}]`, key);
  }
  for (const key of SUBSCHEMA_KEYWORDS) {
    if (!(key in node)) continue;
    const value = node[key];
    if (key === 'items' && Array.isArray(value)) {
      for (const [i, sub] of value.entries()) visit(sub, `${path}.${key}[${i}]`, key);
    } else visit(value, `${path}.${key}`, key);
  }
};

const declaresAnyId = (node: unknown, depth = 0): boolean => {
  if (depth > MAX_DEPTH || !isRecord(node)) return false;
  if (typeof node.$id === 'string' && node.$id !== '') return true;
  let found = false;
  forEachSubschema(node, '', (child) => {
    found ||= declaresAnyId(child, depth + 1);
  });
  return found;
};

/** The Inspector's findings on one tool schema (`schema` names it: inputSchema or outputSchema). */
const lintSchema = (root: unknown, schema: string): Finding[] => {
  const findings: Finding[] = [];
  const hasEmbeddedIds = declaresAnyId(root);
  const walk = (node: unknown, path: string, keyword: string | undefined, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (typeof node === 'boolean') {
      if (keyword === undefined || !BOOLEAN_VALUED_KEYWORDS.has(keyword)) findings.push({ rule: 'boolean-schema', severity: 'error', schema, path });
      return;
    }
    if (!isRecord(node)) return;
    if (Array.isArray(node.type) && isPortableTypeUnion(node.type)) findings.push({ rule: 'type-union', severity: 'warning', schema, path });
    if (typeof node.$ref === 'string' && node.$ref !== '' && !node.$ref.startsWith('#') && !hasEmbeddedIds) {
      findings.push({ rule: 'remote-ref', severity: 'warning', schema, path });
    }
    if (!constrains(node) && keyword !== 'not') findings.push({ rule: 'untyped-schema', severity: 'warning', schema, path });
    forEachSubschema(node, path, (child, childPath, childKeyword) => walk(child, childPath, childKeyword, depth + 1));
  };
  walk(root, '', undefined, 0);
  return findings;
};

/** Findings on every tool of a tools/list result, as the Inspector counts them. */
const lintTools = (tools: ReadonlyArray<{ name: string; inputSchema?: unknown; outputSchema?: unknown }>): Array<Finding & { tool: string }> =>
  tools.flatMap((t) =>
    [
      ...(t.inputSchema === undefined ? [] : lintSchema(t.inputSchema, 'inputSchema')),
      ...(t.outputSchema === undefined ? [] : lintSchema(t.outputSchema, 'outputSchema')),
    ].map((f) => ({ ...f, tool: t.name })),
  );

export { lintSchema, lintTools };
export type { Finding };
