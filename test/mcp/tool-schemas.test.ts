/**
 * The tools' JSON Schemas (shared/mcp/tool-schemas.ts), without a server: zod's spellings made
 * portable without changing what validates, summaries that accept every value the full schema
 * accepts, and bodies within their budget. Also checks that the Inspector rules restated in
 * inspector-schema-lint.ts do find what they describe (a lint that finds nothing proves nothing).
 */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../../shared/mcp/tools';
import { bodySchemaOf, inlineSingleUse, jsonSchemaOf, OUTPUT_BODY_BUDGET_BYTES, summarizeBody } from '../../shared/mcp/tool-schemas';
import { INSTRUMENTS } from '../../shared/catalog/instruments';
import { InstrumentParam } from '../../shared/routes/params';
import { ErrorBody, ServedObservation } from '../../shared/schemas';
import * as z from '../../shared/zod';
import { lintSchema } from './inspector-schema-lint';

const ajv = () => {
  const a = new Ajv2020({ strict: true, strictRequired: false });
  addFormats(a);
  return a;
};

/** An observation as the API serves it (every field, values of the right kinds; synthetic). */
const OBSERVATION = {
  instrument: 'CL',
  value: 71.5,
  unit: 'USD/bbl',
  as_of: '2026-11-20',
  observed_at: '2026-11-20T21:00:00Z',
  freshness_class: 'eod',
  quality: 'official',
  derived: false,
  source: { name: 'EIA', series_id: 'RWTC', url: null },
  license_tag: 'public-domain',
  provenance: { retrieved_at: '2026-11-21T06:00:00Z', cache_hit: false, cache_ttl_s: 300 },
  published_at: null,
  next_release_at: '2026-11-27T21:00:00Z',
  attributes: { synthetic: true },
};

describe('portable JSON Schema from zod', () => {
  it.each([
    ['a datetime is format date-time, without zod’s 250-character pattern', z.iso.datetime({ offset: true }), { type: 'string', format: 'date-time' }],
    ['an int loses the ±2^53-1 bounds zod adds, keeps its own', z.int().check(z.minimum(0)), { type: 'integer', minimum: 0 }],
    ['a record of unknown values is an object', z.record(z.string(), z.unknown()), { type: 'object' }],
    ['a nullable string is anyOf string or null, not a type array', z.nullable(z.string()), { anyOf: [{ type: 'string' }, { type: 'null' }] }],
  ])('%s', (_what, schema, expected) => {
    expect(jsonSchemaOf(schema as z.ZodMiniType, 'input')).toEqual(expected);
  });

  it('a catalog parameter is its enum, without the maxLength every value meets', () => {
    expect(jsonSchemaOf(InstrumentParam, 'input')).toEqual({ type: 'string', enum: INSTRUMENTS.map((i) => i.code) });
  });

  it('accepts and refuses what zod’s own conversion does (the Observation, with values on both sides)', () => {
    const raw = z.toJSONSchema(ServedObservation, { target: 'draft-2020-12', io: 'output' });
    const zodOwn = new Ajv2020({ strict: true, allowUnionTypes: true });
    addFormats(zodOwn);
    const [strictRaw, portable] = [zodOwn.compile(raw), ajv().compile(jsonSchemaOf(ServedObservation, 'output'))];
    const values = [
      OBSERVATION,
      { ...OBSERVATION, observed_at: '2026-11-20' },
      { ...OBSERVATION, quality: null, source: null, provenance: null },
      { ...OBSERVATION, value: 'x' },
      { ...OBSERVATION, extra: 1 },
      { ...OBSERVATION, provenance: { ...OBSERVATION.provenance, cache_ttl_s: -1 } },
    ];
    expect(values.map((v) => portable(v))).toEqual(values.map((v) => strictRaw(v)));
    expect(values.map((v) => portable(v))).toEqual([true, false, true, false, false, false]);
  });
});

describe('summaries of a body', () => {
  const full = jsonSchemaOf(ServedObservation, 'output');

  it('keep types, property names and required keys to the depth asked, and only names below', () => {
    const one = inlineSingleUse(summarizeBody(full, 1));
    expect(one).toMatchObject({ type: 'object', required: expect.arrayContaining(['instrument', 'provenance']) });
    expect((one.properties as any).provenance).toEqual({
      anyOf: [{ type: 'object', required: ['retrieved_at', 'cache_hit', 'cache_ttl_s'] }, { type: 'null' }],
    });
    expect(inlineSingleUse(summarizeBody(full, 0))).toEqual({ type: 'object', required: Object.keys(OBSERVATION) });
  });

  it('accept every value the full schema accepts, at every depth', () => {
    const good = [OBSERVATION, { ...OBSERVATION, quality: null, source: null, provenance: null }];
    for (let depth = 0; depth <= 4; depth++) {
      const validate = ajv().compile(summarizeBody(full, depth));
      expect(
        good.map((v) => validate(v)),
        `depth ${depth}`,
      ).toEqual([true, true]);
      expect(validate({ ...OBSERVATION, instrument: undefined }), `depth ${depth}: a missing key`).toBe(false);
    }
  });

  it(`every tool's body fits ${OUTPUT_BODY_BUDGET_BYTES} bytes; one that fits whole is given whole`, () => {
    for (const tool of TOOLS) {
      const body = bodySchemaOf(tool.route.output);
      expect(JSON.stringify(inlineSingleUse(body)).length, tool.name).toBeLessThanOrEqual(OUTPUT_BODY_BUDGET_BYTES);
      const whole = jsonSchemaOf(tool.route.output, 'output');
      if (JSON.stringify(inlineSingleUse(whole)).length <= OUTPUT_BODY_BUDGET_BYTES) expect(body, tool.name).toEqual(whole);
    }
  });
});

describe('the Inspector rules (inspector-schema-lint.ts) find what they describe', () => {
  it.each([
    ['type-union', { type: 'object', properties: { a: { type: ['string', 'null'] } } }, '.properties.a'],
    ['untyped-schema', { type: 'object', properties: { a: {} } }, '.properties.a'],
    ['untyped-schema', { type: 'object', additionalProperties: {} }, '.additionalProperties'],
    ['remote-ref', { $ref: 'https://example.com/observation.json' }, ''],
    ['boolean-schema', { type: 'object', properties: { a: true } }, '.properties.a'],
  ])('%s in %j', (rule, schema, path) => {
    expect(lintSchema(schema, 'outputSchema')).toEqual([expect.objectContaining({ rule, path })]);
  });

  it('and not what they allow: additionalProperties false, an if with a then, a local $ref, a schema under not', () => {
    // Parsed from text: a `then` key in an object literal reads as a thenable to the linter; here it is JSON Schema's.
    const schema = JSON.parse(
      '{"type":"object","additionalProperties":false,"if":{"required":["a"]},"then":{"required":["b"]},"$defs":{"x":{"type":"string"}},"not":{}}',
    );
    expect(lintSchema({ ...schema, properties: { x: { $ref: '#/$defs/x' } } }, 'outputSchema')).toEqual([]);
  });

  it('zod’s draft-07 conversion of the Observation and the error body, as tools/list carried them, has type-union and untyped findings', () => {
    const rules = [ServedObservation, ErrorBody].flatMap((s) =>
      lintSchema(z.toJSONSchema(s, { target: 'draft-7', io: 'output', unrepresentable: 'any' }), 'outputSchema').map((f) => f.rule),
    );
    expect(new Set(rules)).toEqual(new Set(['type-union', 'untyped-schema']));
  });
});
