/**
 * The x402 `exact` lane: one EIP-3009 USDC authorization pays one call. Its steps, one module each:
 * authorize.ts (terms, /verify, payment id, claim), claim.ts (a proof claimed before), settle.ts
 * (/settle before the data leaves), refusals.ts, and the per-payer verify slots (slots.ts).
 */
import type { Lane } from '../lane';
import { authorize } from './authorize';
import type { ExactGrant } from './grant';
import { release, settle } from './settle';

const exactLane: Lane<ExactGrant> = {
  id: 'x402-exact',
  scheme: 'exact',
  authorize,
  settle,
  release,
};

export { exactLane };
export type { ExactGrant };
