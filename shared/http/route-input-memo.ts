/**
 * The parsed input of recent requests, remembered: a client polling the same URL sends the same path
 * and query each time, and checking them against the route's schemas again (zod, with its transforms)
 * gave the same answer. An input is remembered only once it passed (a refusal is checked each time:
 * it is cheap to repeat and its message names the request), deep-frozen, since every later call with
 * the same input shares it (and so, being frozen, its ETag input text is computed once: conditional.ts).
 * Pure in effect: the schemas' transforms depend on the input alone, and what passes them stays
 * valid (`as_known_at` refuses future instants only, and time moves one way).
 */
import { parseRouteInput } from '../routes/input';
import type { RouteDef } from '../routes/table';
import { deepFreeze } from '../store/observation-reader';

type ParsedInput = { params: unknown; query: unknown };

/** Raw parameters as one text, each name and value escaped (a member present without a value told from an absent one). */
const textOf = (members: Record<string, string | undefined> | undefined): string => {
  let text = '';
  for (const k in members) {
    const v = members[k];
    text += v === undefined ? `${encodeURIComponent(k)}&` : `${encodeURIComponent(k)}=${encodeURIComponent(v)}&`;
  }
  return text;
};

/** Inputs kept per handler: a few hundred distinct URLs cover a polling client's; the oldest goes first. */
const REMEMBERED_INPUTS = 256;

/**
 * A `parseRouteInput` that remembers what passed (the same route and raw input give the same parsed input).
 * @example const parse = rememberedRouteInput(); parse(route, { code: 'CL' }, undefined) // { params: { code: 'CL' }, query: {} }
 */
const rememberedRouteInput = (limit = REMEMBERED_INPUTS) => {
  const known = new Map<string, ParsedInput>();
  return (
    route: RouteDef,
    pathParameters: Record<string, string | undefined> | undefined,
    query: Record<string, string | undefined> | undefined,
  ): ParsedInput => {
    const key = `${route.id}\n${textOf(pathParameters)}\n${query ? textOf(query) : '-'}`;
    const hit = known.get(key);
    if (hit) return hit;
    const parsed = deepFreeze(parseRouteInput(route, pathParameters, query));
    if (known.size >= limit) known.delete(known.keys().next().value as string);
    known.set(key, parsed);
    return parsed;
  };
};

export { rememberedRouteInput };
