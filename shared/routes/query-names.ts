/**
 * The query parameters a route accepts, read from its query schema in the route table, and the
 * refusal of every other one. A misspelt parameter used to be ignored: `?asknownat=2020-01-01…`
 * bought today's figure and `?from=…&to=…` the default window, silent look-ahead at full price.
 * The refusal is a 400 INVALID_PARAMETER raised while the input is parsed, so before any payment
 * lane (x402 exact, batch, Pro key) is asked for anything.
 */
import * as z from 'zod';

/**
 * The names a query schema accepts: the keys of its object, through refinements and pipes.
 * @throws Error when the schema is not an object (every route's query is one: test/routes)
 * @example queryNamesOf(z.object({ as_known_at: z.string().optional() })) // ['as_known_at']
 */
const queryNamesOf = (schema: z.ZodType): readonly string[] => {
  let s: z.ZodType = schema;
  while (s instanceof z.ZodPipe) s = s.in as z.ZodType;
  if (s instanceof z.ZodObject) return Object.keys(s.shape);
  throw new Error('a route query schema must be an object: its keys are the parameters it accepts');
};

/** Folds case, `_` and `-`: `asknownat` and `As-Known-At` both fold to the name `as_known_at`. */
const fold = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * One zod issue per query parameter the route does not accept: the parameter is the path, and the
 * message names it and every parameter the route accepts (with the likely one a misspelling meant).
 * Pure.
 * @param route the route (its id names it in the message)
 * @param query the raw query parameters of the request (or a tool call's query arguments)
 * @example unknownQueryIssues(findRoute('GET /v1/price/{code}')!, { asknownat: '2020-01-01T00:00:00Z' })
 *   // [{ path: ['asknownat'], message: 'unknown query parameter asknownat (did you mean as_known_at?); GET /v1/price/{code} accepts: as_known_at', … }]
 */
const unknownQueryIssues = (route: { id: string; query: z.ZodType }, query: unknown): z.core.$ZodIssue[] => {
  const given = Object.keys((query ?? {}) as Record<string, unknown>);
  if (given.length === 0) return [];
  const accepted = queryNamesOf(route.query);
  const accepts = accepted.length ? `${route.id} accepts: ${accepted.join(', ')}` : `${route.id} accepts no query parameters`;
  return given
    .filter((name) => !accepted.includes(name))
    .map((name) => {
      const meant = accepted.find((a) => fold(a) === fold(name));
      return {
        code: 'custom',
        path: [name],
        message: `unknown query parameter ${name}${meant ? ` (did you mean ${meant}?)` : ''}; ${accepts}`,
        input: (query as Record<string, unknown>)[name],
      };
    });
};

/**
 * The refusal as the route's documents state it (OpenAPI's 400).
 * @example unknownQueryRule(findRoute('GET /health')!) // 'Any query parameter is refused (400 INVALID_PARAMETER naming it), before any payment.'
 */
const unknownQueryRule = (route: { query: z.ZodType }): string => {
  const accepted = queryNamesOf(route.query);
  return accepted.length
    ? `A query parameter other than ${accepted.join(', ')} is refused (400 INVALID_PARAMETER naming it and these), before any payment.`
    : 'Any query parameter is refused (400 INVALID_PARAMETER naming it), before any payment.';
};

export { queryNamesOf, unknownQueryIssues, unknownQueryRule };
