/**
 * `as_known_at` on every paid data route (and so on every MCP tool that runs one): the route's own
 * handler runs on the services of that instant (shared/services servicesAsKnownAt): every read
 * answers what had been published by then, in the value it had then, and the clock stands at it,
 * so staleness, multi-leg alignment and the decision gate are judged at that instant. Without the
 * parameter the handler runs as it is.
 *
 * Nothing is known before a series' first publication: a NO_DATA answer names, for each series the
 * call found empty, when it was first published (`first_known_from`). At a past instant no retry
 * changes the answer, so NO_DATA is a 404 there.
 */
import { BadRequestError, HttpError, NotFoundError } from '../errors/errors';
import type { FamilyHandlers, RouteHandler } from '../http/types';
import type { Family, RouteId } from '../routes/table';
import { servicesAsKnownAt, type Services } from '../services';
import type { PointInTimeStore } from '../store/point-in-time-store';

/** The NO_DATA of a past instant: 404, with the first publication of each series that was still to come. */
const pastNoData = async (err: unknown, view: PointInTimeStore): Promise<unknown> => {
  if (!(err instanceof HttpError) || err.code !== 'NO_DATA') return err;
  const at = Date.parse(view.asKnownAt);
  const ahead = Object.entries(await view.firstKnownFrom())
    .filter((e): e is [string, string] => e[1] !== null && Date.parse(e[1]) > at)
    .sort(([a], [b]) => a.localeCompare(b));
  if (ahead.length === 0)
    return new NotFoundError('NO_DATA', `${err.message} (as known at ${view.asKnownAt})`, { ...err.details, as_known_at: view.asKnownAt });
  // The answer needs every one of them: it exists from the last of their first publications.
  const first = ahead.map(([, f]) => f).sort((a, b) => Date.parse(a) - Date.parse(b))[ahead.length - 1]!;
  return new NotFoundError('NO_DATA', `not yet published at ${view.asKnownAt}: ${ahead.map(([k, f]) => `${k} first published ${f}`).join('; ')}`, {
    ...err.details,
    as_known_at: view.asKnownAt,
    first_known_from: first,
    first_known_from_by_series: Object.fromEntries(ahead),
  });
};

/**
 * A route handler that answers `as_known_at` (see the module comment).
 * @throws BadRequestError INVALID_PARAMETER when the instant is after the service's clock
 */
const answeringAsKnownAt =
  <Id extends RouteId>(handler: RouteHandler<Id>): RouteHandler<Id> =>
  (req) => {
    const asked = (req.query as { as_known_at?: string }).as_known_at;
    // Without the parameter, the handler's own promise: not one more step on the latest path.
    return asked === undefined ? handler(req) : answerAt(handler, req, asked);
  };

/** The handler run on the services of the instant asked for. */
const answerAt = async <Id extends RouteId>(handler: RouteHandler<Id>, req: Parameters<RouteHandler<Id>>[0], asked: string) => {
  const at = new Date(asked);
  if (at.getTime() > req.services.now().getTime()) {
    const message = `as_known_at ${asked} is in the future: nothing is known there yet`;
    throw new BadRequestError('INVALID_PARAMETER', message, { issues: [{ path: 'as_known_at', message }] });
  }
  const { services, view } = servicesAsKnownAt(req.services, at);
  try {
    return await handler({ ...req, services });
  } catch (err) {
    throw await pastNoData(err, view);
  }
};

/**
 * Every handler of a family map answering `as_known_at`.
 * @example const cotHandlers = answerAsKnownAt<'cot'>({ 'GET /v1/cot/{code}': cot });
 */
const answerAsKnownAt = <F extends Family>(handlers: FamilyHandlers<F>): FamilyHandlers<F> =>
  Object.freeze(
    Object.fromEntries(Object.entries(handlers).map(([id, h]) => [id, answeringAsKnownAt(h as RouteHandler<RouteId>)])),
  ) as unknown as FamilyHandlers<F>;

/**
 * A link to another view of the same answer (`full_view`), at the same instant when the call asked for one.
 * @example sameInstant(services, '/v1/snapshot/energy?view=full') // '/v1/snapshot/energy?view=full&as_known_at=2026-02-11T15%3A29%3A00.000Z'
 */
const sameInstant = (services: Pick<Services, 'asKnownAt'>, path: string): string =>
  services.asKnownAt ? `${path}${path.includes('?') ? '&' : '?'}as_known_at=${encodeURIComponent(services.asKnownAt)}` : path;

export { answerAsKnownAt, sameInstant };
