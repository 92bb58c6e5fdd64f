/**
 * The dev stage's check of every 200 answer against its route's output schema (family-handler.ts),
 * done once per deep-frozen answer: a cache hit serves the same frozen figure to every caller, and
 * the same value checked against the same schema gets the same verdict (the output schemas hold no
 * clock or randomness). Every other answer is checked each time, as before.
 */
import type * as z from '../zod';
import { isDeepFrozen } from './conditional';

/** Deep-frozen answers that passed, by output schema. */
const passed = new WeakMap<z.ZodMiniType, WeakSet<object>>();

/**
 * `schema.safeParse(body)`, skipped for a deep-frozen body that already passed this schema.
 * @example checkOutput(route.output, result.body).success
 */
const checkOutput = (schema: z.ZodMiniType, body: unknown): { success: true } | { success: false; error: z.core.$ZodError } => {
  const frozen = body !== null && typeof body === 'object' && isDeepFrozen(body) ? body : null;
  if (frozen && passed.get(schema)?.has(frozen)) return { success: true };
  const checked = schema.safeParse(body);
  if (checked.success && frozen) {
    const set = passed.get(schema) ?? new WeakSet<object>();
    set.add(frozen);
    passed.set(schema, set);
  }
  return checked.success ? { success: true } : { success: false, error: checked.error };
};

export { checkOutput };
