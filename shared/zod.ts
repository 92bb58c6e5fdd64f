/**
 * The zod every module of shared/, functions/ and infra/ imports: Zod Mini, with zod's English messages.
 * Zod Mini is zod 4's tree-shakable API (functions instead of methods: `z.optional(z.string())`,
 * `s.check(z.minLength(1))`): a bundle carries only the validators it calls, about 40 KB less per
 * Lambda than zod's classic API, whose every schema carries every method. Classic zod sets its English
 * messages when it loads; Mini leaves that to the caller, and clients read these messages in a 400's
 * details.issues. package.json lists this file under sideEffects so that bundles keep the call; biome's
 * noRestrictedImports (biome.json) refuses any other zod import in service code.
 */
import { config } from 'zod/mini';
import { $ZodObject, type $ZodShape, type $ZodType } from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/mini';
// The core classes tested with instanceof or constructed, by name: a runtime `z.core.X` makes a bundle
// build the whole `core` namespace, every one of zod's locales included (about 370 KB). Types through
// `z.core` cost nothing.
export { $ZodError, $ZodObject } from 'zod/v4/core';

/** The fields of an object schema (a route's params or query, a tool's arguments); none for any other schema. */
export const shapeOf = (schema: $ZodType): $ZodShape => (schema instanceof $ZodObject ? schema._zod.def.shape : {});
