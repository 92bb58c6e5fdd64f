/**
 * The leases of delivery attempts (issue 37) and the sweep of stopped ones: constants the delivery
 * code and the CDK app share (the app imports this module without the delivery code).
 */

/**
 * Seconds an attempt holds its delivery: twice the delivery function's timeout (infra/constructs/watches.ts
 * derives that timeout from it), so an attempt whose lease ended has certainly stopped (a Lambda past its
 * timeout is killed; locally a POST gives up after 10 s). Only then may another take it over and give
 * its credits back.
 */
const ATTEMPT_LEASE_S = 120;

/**
 * Seconds after its lease ended that the sweep (no message at hand) gives back a stopped attempt's
 * credits and dead-letters the delivery: beyond SQS's own redelivery of the attempt's message (5
 * receives x a 6-minute visibility timeout), which retries the delivery instead.
 */
const SWEEP_AFTER_S = 3600;

/** The event a schedule sends the delivery function to run the sweep (rather than a queue's batch). */
const SWEEP_EVENT = Object.freeze({ sweep: 'stopped-attempts' as const });

type SweepEvent = typeof SWEEP_EVENT;

/** Pure: whether a Lambda event is the sweep's. */
const isSweepEvent = (e: unknown): e is SweepEvent => (e as { sweep?: unknown } | null)?.sweep === SWEEP_EVENT.sweep;

export { ATTEMPT_LEASE_S, SWEEP_AFTER_S, SWEEP_EVENT, isSweepEvent };
export type { SweepEvent };
