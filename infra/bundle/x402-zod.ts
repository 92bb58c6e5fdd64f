/**
 * The `zod` that @x402/* packages see inside a Lambda bundle (infra/bundle/options.ts routes their
 * `import { z } from 'zod'` here). They are written against zod 3's chained API
 * (`z.string().min(1).nullish().transform(f)`) and ship their own copy of it (58 KB minified); classic
 * zod 4 would serve them too, but it carries every method on every schema (81 KB), so they get the
 * service's own Zod Mini (shared/zod.ts) instead, with this thin chained layer on top.
 *
 * It covers only what the packages call: these constructors, and on every schema they return the
 * methods below, each returning a schema with the same methods. test/infra/bundles.test.ts scans
 * their dist files for the constructors and chained methods they use, and checks that their schemas
 * and facilitator client answer as they do on zod 3: a new @x402 release that calls more fails there.
 */
import * as z from '../../shared/zod';

type Schema = z.ZodMiniType;
type Refinement = Parameters<typeof z.refine>;

/** zod 3's min/max bound a length on strings and arrays, the value on numbers. */
const isNumber = (s: Schema): boolean => s._zod.def.type === 'number';

/** The chained methods x402 calls, as Zod Mini functions. */
const CHAINED = {
  min(this: Schema, n: number) {
    return fluent(this.check(isNumber(this) ? z.gte(n) : z.minLength(n)));
  },
  max(this: Schema, n: number) {
    return fluent(this.check(isNumber(this) ? z.lte(n) : z.maxLength(n)));
  },
  positive(this: Schema) {
    return fluent(this.check(z.positive()));
  },
  regex(this: Schema, pattern: RegExp, message?: string) {
    return fluent(this.check(z.regex(pattern, message)));
  },
  refine(this: Schema, check: Refinement[0], params?: Refinement[1]) {
    return fluent(this.check(z.refine(check, params)));
  },
  optional(this: Schema) {
    return fluent(z.optional(this));
  },
  nullable(this: Schema) {
    return fluent(z.nullable(this));
  },
  nullish(this: Schema) {
    return fluent(z.nullish(this));
  },
  default(this: Schema, value: unknown) {
    return fluent(z._default(this, value as never));
  },
  transform(this: Schema, f: (value: unknown) => unknown) {
    return fluent(z.pipe(this, z.transform(f)));
  },
};

type Fluent = Schema & typeof CHAINED;

/** The schema itself, with the chained methods (a Mini schema's `check` returns a new one without them). */
const fluent = (s: Schema): Fluent => Object.assign(s, CHAINED);

/** A constructor whose schema has the chained methods (x402 is JavaScript: the types stay loose). */
const chained =
  (make: (...args: never[]) => Schema) =>
  (...args: unknown[]): Fluent =>
    fluent(make(...(args as never[])));

const facade = Object.freeze({
  array: chained(z.array),
  boolean: chained(z.boolean),
  custom: chained(z.custom),
  discriminatedUnion: chained(z.discriminatedUnion),
  enum: chained(z.enum),
  literal: chained(z.literal),
  number: chained(z.number),
  object: chained(z.object),
  /** zod 3's `z.record(value)`: string keys. */
  record: chained((key: Schema, value?: Schema) => (value ? z.record(key as z.ZodMiniString, value) : z.record(z.string(), key))),
  string: chained(z.string),
  union: chained(z.union),
  unknown: chained(z.unknown),
});

export { facade as z };
