/**
 * What each registered lane offers in a 402, apart from its flow (lanes.ts joins the two): the
 * discovery function lists these options without bundling any lane's payment code.
 *
 *   x402-exact   the spec's exact option, always
 *   x402-batch   the batch-settlement option while the facilitator supports the scheme on our
 *                network (asked once per process, batch-terms.ts)
 *   pro          none (Pro keys are not paid through a 402)
 */
import type { RouteDef } from '../routes/table';
import { termsOf } from './batch/config';
import { batchLaneConfigForChallenge } from './batch-terms';
import { batchOption, paymentOption, type BatchPaymentOption, type PaymentOption } from './challenge';
import type { LaneId, PaymentDeps } from './lane';

/** A payment option of a 402 (accepts[]). */
type LaneOption = PaymentOption | BatchPaymentOption;
type OfferDeps = Pick<PaymentDeps, 'config' | 'facilitator' | 'now'>;
type OfferRoute = Pick<RouteDef, 'priceUsd' | 'summary' | 'mimeType'>;
/** The option a lane offers for a route now, or null (not offered, or not an x402 lane). */
type Offer = (route: OfferRoute, path: string, deps: OfferDeps) => Promise<LaneOption | null>;

/** By lane id, in the order a 402 offers them (the spec's exact option first). */
const LANE_OFFERS = {
  'x402-exact': async (route, path, deps) => paymentOption(route, path, deps.config),
  'x402-batch': async (route, path, deps) => {
    const config = await batchLaneConfigForChallenge(deps.facilitator, deps.config, deps.now);
    return config ? batchOption(route, path, deps.config, termsOf(config)) : null;
  },
  pro: async () => null,
} as const satisfies Record<LaneId, Offer>;

/**
 * Every option the lanes of these services offer for a route now: the registered lanes', or those
 * of the lanes a process was given (PaymentDeps.lanes).
 */
const offersFor = async (route: OfferRoute, path: string, deps: OfferDeps & Pick<PaymentDeps, 'lanes'>): Promise<LaneOption[]> => {
  const offers: Offer[] = deps.lanes ? deps.lanes.map((l) => l.offerFor) : Object.values(LANE_OFFERS);
  return (await Promise.all(offers.map((offer) => offer(route, path, deps)))).filter((o): o is LaneOption => o !== null);
};

export { LANE_OFFERS, offersFor };
export type { LaneOption, Offer };
