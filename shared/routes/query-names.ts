/**
 * The query parameters a route accepts, read from its query schema in the route table, and the
 * refusal of every other one. A misspelt parameter used to be ignored: `?asknownat=2020-01-01…`
 * bought today's figure and `?from=…&to=…` the default window, silent look-ahead at full price.
 * The refusal is a 400 INVALID_PARAMETER raised while the input is parsed, so before any payment
 * lane (x402 exact, batch, Pro key) is asked for anything.
 */
import type * as z from '../zod';

/**
 * The names a query schema accepts: the keys of its object (every route's query is one, refined
 * or not: test/routes/query-names.test.ts reads them all).
 * @example queryNamesOf(z.object({ as_known_at: z.optional(z.string()) })) // ['as_known_at']
 */
const queryNamesOf = (schema: z.core.$ZodType): readonly string[] => Object.keys((schema as z.ZodMiniObject).shape);

/**
 * One zod issue per query parameter the route does not accept: the parameter is the path, and the
 * message names it and every parameter the route accepts (`asknownat` next to `as_known_at`). Pure;
 * kept small, as every Lambda bundle carries it (the snapshot's is at its size limit).
 * @param route the route (its id names it in the message)
 * @param query the raw query parameters of the request (or a tool call's query arguments)
 * @example unknownQueryIssues(findRoute('GET /v1/price/{code}')!, { asknownat: '2020-01-01T00:00:00Z' })
 *   // [{ code: 'custom', path: ['asknownat'], message: 'unknown query parameter asknownat; GET /v1/price/{code} accepts: as_known_at' }]
 */
const unknownQueryIssues = (route: { id: string; query: z.core.$ZodType }, query: unknown): z.core.$ZodIssue[] => {
  const given = Object.keys(query ?? {});
  const accepted = given.length ? queryNamesOf(route.query) : [];
  return given
    .filter((name) => !accepted.includes(name))
    .map((name) => ({
      code: 'custom',
      path: [name],
      message: `unknown query parameter ${name}; ${route.id} accepts${accepted.length ? `: ${accepted.join(', ')}` : ' no query parameters'}`,
    }));
};

/**
 * The refusal as the route's documents state it (OpenAPI's 400).
 * @example unknownQueryRule(findRoute('GET /health')!) // 'Any query parameter is refused (400 INVALID_PARAMETER naming it), before any payment.'
 */
const unknownQueryRule = (route: { query: z.core.$ZodType }): string => {
  const accepted = queryNamesOf(route.query);
  return accepted.length
    ? `A query parameter other than ${accepted.join(', ')} is refused (400 INVALID_PARAMETER naming it and these), before any payment.`
    : 'Any query parameter is refused (400 INVALID_PARAMETER naming it), before any payment.';
};

export { queryNamesOf, unknownQueryIssues, unknownQueryRule };
