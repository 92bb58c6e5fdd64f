/**
 * Canonical JSON and SHA-256 digests, so that a decision pack can name exactly what it was
 * computed from: the same inputs give the same digest on any machine, whatever order the
 * store returned attributes in.
 *
 * Canonical form (RFC 8785 style): object keys sorted by UTF-16 code units, no whitespace,
 * numbers as ECMAScript prints them (what JSON.stringify does), `undefined` members dropped.
 * Non-finite numbers are refused rather than silently turned into null.
 */
import { createHash } from 'node:crypto';

/**
 * Canonical JSON text of a JSON-like value.
 * @throws Error on a non-finite number, a function, a symbol or a bigint
 * @example canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
const canonicalJson = (value: unknown): string => {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`canonical JSON has no form for ${value}`);
      return JSON.stringify(value);
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
    }
    default:
      throw new Error(`canonical JSON has no form for a ${typeof value}`);
  }
};

/**
 * A deep copy without any `provenance` member: what is left is what the data says, not how
 * this request happened to read it (cache hit or miss).
 */
const withoutProvenance = <T>(value: T): T => {
  if (Array.isArray(value)) return value.map(withoutProvenance) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== 'provenance') out[k] = withoutProvenance(v);
    return out as T;
  }
  return value;
};

/** Lower-case hex SHA-256 of a UTF-8 string. @example sha256Hex('') // 'e3b0c442…b855' */
const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** SHA-256 of the canonical JSON of a value. */
const digestOf = (value: unknown): string => sha256Hex(canonicalJson(value));

export { canonicalJson, withoutProvenance, sha256Hex, digestOf };
