/**
 * Catalog parameters are served in any letter case (`/v1/price/cl` is CL, `/v1/snapshot/ENERGY` is
 * energy: shared/routes/params.ts folds them), so a document that lists them as an exact enum
 * refuses requests the server serves. JSON Schema regular expressions have no case-insensitive
 * flag: each letter is written as a class of both cases.
 */
type Json = Record<string, unknown>;

const bothCases = (value: string): string =>
  [...value].map((c) => (c.toLowerCase() !== c.toUpperCase() ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'))).join('');

/**
 * A parameter schema with a string enum, as the case-insensitive pattern of its values (named in
 * the description); any other schema as it is.
 * @example caseInsensitive({ type: 'string', enum: ['CL'] }) // { type: 'string', pattern: '^(?:[Cc][Ll])$', description: 'One of CL (any letter case).' }
 */
const caseInsensitive = (schema: Json): Json => {
  const values = schema.enum;
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) return schema;
  const { enum: _, ...rest } = schema;
  const named = `One of ${values.join(', ')} (any letter case).`;
  return {
    ...rest,
    type: 'string',
    pattern: `^(?:${values.map(bothCases).join('|')})$`,
    description: rest.description ? `${rest.description} ${named}` : named,
  };
};

export { caseInsensitive };
