/**
 * The `zod` that @x402/* packages see inside a Lambda bundle (infra/bundle/options.ts routes their
 * `import { z } from 'zod'` here). They are written against zod 3 and ship their own copy of it (58 KB
 * minified, next to the zod 4 every function bundles anyway); the constructors they call are ones zod 4
 * keeps v3-compatible (`z.record(value)` included), so zod 4 serves them. Named imports, not the `z`
 * namespace: re-exporting the namespace would pull every zod locale into the bundle.
 * test/infra/bundles.test.ts checks that this covers every `z.<name>` the packages use and that their
 * schemas answer as they do on zod 3.
 */
import { array, boolean, custom, discriminatedUnion, enum as enum_, literal, number, object, record, string, union, unknown } from 'zod';

export const z = Object.freeze({ array, boolean, custom, discriminatedUnion, enum: enum_, literal, number, object, record, string, union, unknown });
