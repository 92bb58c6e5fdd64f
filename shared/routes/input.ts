/**
 * A route's input checked against its schemas, whatever carried it: an HTTP request's path and
 * query (family-handler.ts), an MCP tool's arguments (mcp/server.ts), a watch's stored query
 * (watches/watch.ts).
 */
import * as z from '../zod';
import { NotFoundError } from '../errors/errors';
import type { NotFoundIssue } from './params';
import { unknownQueryIssues } from './query-names';
import type { RouteDef } from './table';

/** The catalog 404 carried by a zod issue of a catalog parameter, if any. */
const notFoundOf = (issues: readonly z.core.$ZodIssue[]): { issue: z.core.$ZodIssue; notFound: NotFoundIssue } | null => {
  for (const issue of issues) {
    const notFound = (issue as { params?: { notFound?: NotFoundIssue } }).params?.notFound;
    if (notFound) return { issue, notFound };
  }
  return null;
};

/**
 * Validates a route's params and query (HTTP path/query, or an MCP tool's arguments). Malformed
 * input and a query parameter the route does not accept are a 400 listing every issue; a
 * well-formed value that the catalog does not list is a 404. Both happen before any payment or store read.
 * @throws $ZodError (400) or NotFoundError (404)
 */
const parseRouteInput = (route: RouteDef, pathParameters: unknown, queryParameters: unknown): { params: unknown; query: unknown } => {
  const params = route.params.safeParse(pathParameters ?? {});
  const query = route.query.safeParse(queryParameters ?? {});
  const issues = [...unknownQueryIssues(route, queryParameters), ...(params.error?.issues ?? []), ...(query.error?.issues ?? [])];
  if (issues.length === 0) return { params: params.data, query: query.data };
  const found = notFoundOf(issues);
  if (found && issues.every((i) => notFoundOf([i]))) {
    throw new NotFoundError(found.notFound.code, found.issue.message, found.notFound.details);
  }
  throw new z.$ZodError(issues.filter((i) => !notFoundOf([i])));
};

export { parseRouteInput };
