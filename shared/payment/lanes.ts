/**
 * The lane registry: the one place a payment lane exists. Each entry is a lane's flow (lane.ts
 * `Lane`: authorize, settle, release) plus what the rest of the service needs to know of it:
 *
 *   offer    the x402 option it offers for a route now, after its own capability check (the batch
 *            lane only when the facilitator supports the scheme); null for a lane that is not paid
 *            through a 402 (Pro keys)
 *   booked   what a settled call books: USDC atomic units or Pro credits, and whether it was an
 *            on-chain settlement of its own
 *
 * The 402 (payment-required.ts), the x402 catalog (/.well-known/x402), the MCP refusals (through
 * the 402), the charge step and the business metrics are built from it, as x402's
 * `x402ResourceServer` builds each 402 from the schemes registered with it. Adding a lane is one
 * module plus one entry in the registry below (and its id in lane.ts LANE_IDS, its store, if it keeps
 * one, in lane.ts LaneStores): `satisfies` makes the compiler name a lane id without an entry, or an
 * entry without an offer or a booking, and LaneStores every builder of the services without its store.
 */
import { batchLane, type BatchLaneGrant } from './batch/lane';
import { exactLane, type ExactGrant } from './exact-lane';
import type { Grant, Lane, LaneId, PaymentDeps } from './lane';
import { LANE_OFFERS, type Offer } from './lane-offers';
import { proLane, type ProGrant } from './pro-lane';

/** What a settled call books, in the lane's own unit. */
interface Booking {
  unit: 'usdc_atomic' | 'credits';
  amount: number;
  /** The call's own on-chain settlement (exact); a batch voucher is claimed later, a credit is never on chain. */
  settlement: boolean;
}

/** A registered lane: its flow, its offer and its accounting. */
interface RegisteredLane<G extends Grant = Grant> extends Lane<G> {
  /** The x402 option this lane offers for the route now (null: not offered, or not an x402 lane); lane-offers.ts. */
  offerFor: Offer;
  /** What a settled grant books (null: nothing new, e.g. data redelivered for an earlier payment). */
  booked(grant: G): Booking | null;
  /** What the buyer paid for this answer, as its signed receipt states it (default: `booked`; differs for data paid earlier). */
  paid?(grant: G): Booking | null;
}

/** Every lane, by id, in the order a 402 offers them (the spec's exact option first). */
const buildRegistry = () =>
  ({
    'x402-exact': {
      ...exactLane,
      offerFor: LANE_OFFERS['x402-exact'],
      booked: (g) => (g.mode === 'settle' ? { unit: 'usdc_atomic', amount: Number(g.amount), settlement: true } : null),
      paid: (g) => ({ unit: 'usdc_atomic', amount: Number(g.amount), settlement: g.mode === 'settle' }),
    } satisfies RegisteredLane<ExactGrant>,
    'x402-batch': {
      ...batchLane,
      offerFor: LANE_OFFERS['x402-batch'],
      booked: (g) => ({ unit: 'usdc_atomic', amount: Number(g.batch.amount), settlement: false }),
    } satisfies RegisteredLane<BatchLaneGrant>,
    pro: {
      ...proLane,
      offerFor: LANE_OFFERS.pro,
      booked: (g) => ({ unit: 'credits', amount: g.usage.credits, settlement: false }),
    } satisfies RegisteredLane<ProGrant>,
  }) as const satisfies Record<LaneId, RegisteredLane<never>>;

type LaneRegistry = ReturnType<typeof buildRegistry>;
let registry: LaneRegistry | undefined;
/**
 * The registry, built on first use: the lanes import the 402 builder, which reads the registry, so
 * the entries are made once every module of that circle has loaded.
 */
const laneRegistry = (): LaneRegistry => {
  registry ??= buildRegistry();
  return registry;
};

/** The lanes a process runs: the registry, or (tests) a list with a lane of their own. */
type Lanes = readonly RegisteredLane<never>[];

/** The lanes of these payment services. */
const lanesOf = (deps: Pick<PaymentDeps, 'lanes'>): Lanes => deps.lanes ?? registeredLanes();

/** The registry's lanes in order (what a process runs unless told otherwise). */
const registeredLanes = (): Lanes => Object.values(laneRegistry()) as Lanes;

/** The lane of a grant (by its id); undefined for a grant of a lane this process does not run. */
const laneOfGrant = (deps: Pick<PaymentDeps, 'lanes'>, grant: Grant): RegisteredLane<Grant> | undefined =>
  lanesOf(deps).find((l) => l.id === grant.lane) as RegisteredLane<Grant> | undefined;

/** The x402 lane taking payloads of a scheme. */
const laneOfScheme = (deps: Pick<PaymentDeps, 'lanes'>, scheme: string): RegisteredLane<Grant> | undefined =>
  lanesOf(deps).find((l) => l.scheme === scheme) as RegisteredLane<Grant> | undefined;

export { laneRegistry, lanesOf, laneOfGrant, laneOfScheme, registeredLanes };
export type { Booking, Lanes, RegisteredLane };
