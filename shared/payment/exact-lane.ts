/** The x402 `exact` lane (shared/payment/exact/): what the charge step, metrics and tests import. */
export { exactLane } from './exact/lane';
export { MAX_VERIFIES_PER_PAYER } from './exact/slots';
export type { ExactGrant } from './exact/grant';
