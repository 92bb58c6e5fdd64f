/**
 * What two model vendors' tool calling takes as a function's parameter schema, restated from their
 * documentation as checks (neither vendor ships a validator; a schema they refuse fails the whole
 * request with HTTP 400, so a client that maps MCP tools to functions loses every tool).
 *
 * OpenAI, strict function calling (`strict: true`; platform.openai.com/docs/guides/structured-outputs,
 * "Supported schemas"):
 * - the root is an object, not `anyOf`;
 * - every object sets `additionalProperties: false` and lists every property in `required`
 *   (an optional field is a required one whose type admits null);
 * - keywords: type (one type or a list), enum, const, anyOf, $ref/$defs/definitions, properties,
 *   required, additionalProperties, items, description, title; for strings pattern and format
 *   (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid); for numbers multipleOf,
 *   maximum, exclusiveMaximum, minimum, exclusiveMinimum; for arrays minItems, maxItems. Anything
 *   else (default, minLength, maxLength, oneOf, allOf, not, patternProperties, uniqueItems …) is refused;
 * - at most 5000 properties, 10 levels of nesting and 1000 enum values in one schema;
 * - a function name matches ^[a-zA-Z0-9_-]{1,64}$.
 *
 * Google, Gemini function declarations (ai.google.dev/api/caching#Schema, "a select subset of an
 * OpenAPI 3.0 schema object"; Vertex AI's FunctionDeclaration reference for names):
 * - keywords: type, format, title, description, nullable, enum, maxItems, minItems, properties,
 *   required, minProperties, maxProperties, minLength, maxLength, pattern, example, anyOf,
 *   propertyOrdering, default, items, minimum, maximum; plus `additionalProperties: false`, which the
 *   JSON Schema form of a declaration (`parametersJsonSchema`) shows in its own example. No $ref,
 *   $defs, const, oneOf, allOf, not;
 * - `type` is one of string, number, integer, boolean, array, object, null (never a list);
 * - `format` on a string is `enum` or `date-time` (the Gemini Developer API refuses others), on a
 *   number float or double, on an integer int32 or int64; `enum` only on strings;
 * - a function or parameter name starts with a letter or underscore, has only a-z, A-Z, 0-9 and
 *   underscores (a function name may also have dots and dashes), at most 64 characters.
 */

type Schema = Record<string, unknown>;
type Finding = { path: string; rule: string };

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Visits every subschema with its JSON path and nesting depth (objects and arrays count). */
const walk = (root: unknown, visit: (node: Schema, path: string, depth: number) => void): void => {
  const go = (node: unknown, path: string, depth: number) => {
    if (!isSchema(node)) return;
    visit(node, path, depth);
    const nested = node.type === 'object' || node.type === 'array' ? depth + 1 : depth;
    for (const [k, v] of Object.entries(isSchema(node.properties) ? node.properties : {})) go(v, `${path}.properties.${k}`, nested);
    for (const key of ['$defs', 'definitions'] as const)
      for (const [k, v] of Object.entries(isSchema(node[key]) ? node[key] : {})) go(v, `${path}.${key}.${k}`, depth);
    if (isSchema(node.items)) go(node.items, `${path}.items`, nested);
    if (Array.isArray(node.anyOf)) for (const [i, b] of node.anyOf.entries()) go(b, `${path}.anyOf[${i}]`, depth);
  };
  go(root, '', 1);
};

const OPENAI_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'description',
  'title',
  'pattern',
  'format',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'minItems',
  'maxItems',
]);
const OPENAI_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

/**
 * What OpenAI's strict function calling would refuse in a function (name and parameter schema).
 * @returns one finding per violation, [] for a schema it takes
 */
const openAiStrictFindings = (name: string, parameters: unknown): Finding[] => {
  const findings: Finding[] = [];
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) findings.push({ path: '', rule: 'function name' });
  if (!isSchema(parameters) || parameters.type !== 'object' || parameters.anyOf !== undefined)
    findings.push({ path: '', rule: 'root must be an object, not anyOf' });
  let properties = 0;
  let enumValues = 0;
  walk(parameters, (node, path, depth) => {
    for (const key of Object.keys(node)) if (!OPENAI_KEYWORDS.has(key)) findings.push({ path, rule: `keyword ${key}` });
    if (typeof node.format === 'string' && !OPENAI_FORMATS.has(node.format)) findings.push({ path, rule: `format ${node.format}` });
    if (Array.isArray(node.enum)) enumValues += node.enum.length;
    if (depth > 10) findings.push({ path, rule: 'nesting deeper than 10' });
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes('object') || isSchema(node.properties)) {
      const keys = Object.keys(isSchema(node.properties) ? node.properties : {});
      properties += keys.length;
      if (node.additionalProperties !== false) findings.push({ path, rule: 'additionalProperties must be false' });
      const required = new Set(Array.isArray(node.required) ? node.required : []);
      for (const k of keys)
        if (!required.has(k)) findings.push({ path: `${path}.properties.${k}`, rule: 'optional property (strict mode requires every property)' });
    }
  });
  if (properties > 5000) findings.push({ path: '', rule: 'more than 5000 properties' });
  if (enumValues > 1000) findings.push({ path: '', rule: 'more than 1000 enum values' });
  return findings;
};

const GEMINI_KEYWORDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
  'additionalProperties',
]);
const GEMINI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);
const GEMINI_FORMATS: Record<string, ReadonlySet<string>> = {
  string: new Set(['enum', 'date-time']),
  number: new Set(['float', 'double']),
  integer: new Set(['int32', 'int64']),
};

/**
 * What a Gemini function declaration would refuse in a function (name and parameter schema).
 * @returns one finding per violation, [] for a schema it takes
 */
const geminiFindings = (name: string, parameters: unknown): Finding[] => {
  const findings: Finding[] = [];
  if (!/^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/.test(name)) findings.push({ path: '', rule: 'function name' });
  walk(parameters, (node, path) => {
    for (const key of Object.keys(node)) if (!GEMINI_KEYWORDS.has(key)) findings.push({ path, rule: `keyword ${key}` });
    if (node.type !== undefined && !(typeof node.type === 'string' && GEMINI_TYPES.has(node.type)))
      findings.push({ path, rule: `type ${JSON.stringify(node.type)}` });
    if (node.type === undefined && node.anyOf === undefined) findings.push({ path, rule: 'a schema without type' });
    if (typeof node.format === 'string' && !GEMINI_FORMATS[node.type as string]?.has(node.format))
      findings.push({ path, rule: `format ${node.format} on ${node.type}` });
    if (node.enum !== undefined && node.type !== 'string') findings.push({ path, rule: 'enum on a non-string' });
    if (node.additionalProperties !== undefined && node.additionalProperties !== false) findings.push({ path, rule: 'additionalProperties other than false' });
    if (isSchema(node.properties)) {
      for (const k of Object.keys(node.properties))
        if (!/^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/.test(k)) findings.push({ path: `${path}.properties.${k}`, rule: 'parameter name' });
    }
  });
  return findings;
};

export { openAiStrictFindings, geminiFindings };
export type { Finding };
