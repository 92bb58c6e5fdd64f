/**
 * The batch-settlement lane's settings, and the terms a 402 states from them: small, so that what
 * only describes the lane (discovery documents, the 402) need not carry the lane itself.
 */
import type { Address } from 'viem';
import type { Config, X402Network } from '../../config';
import { usdToAtomic } from '../../routes/pricing';
import type { BatchTerms } from '../challenge';

/** The escrow's bounds on a channel's withdrawal delay (seconds): 15 minutes to 30 days. */
const MIN_WITHDRAW_DELAY_S = 900;
const MAX_WITHDRAW_DELAY_S = 2_592_000;

/** The lane's settings (all amounts in USDC atomic units). */
interface BatchLaneConfig {
  network: X402Network;
  payTo: Address;
  maxTimeoutSeconds: number;
  /** Signs claims and refunds of our channels: the facilitator's advertised authorizer, or our own key's address. */
  receiverAuthorizer: Address;
  /** How long a buyer's timed withdrawal waits (seconds): the settlement job must claim well within it. */
  withdrawDelaySeconds: number;
  /** The deposit buyers are asked for at least (extra.minDeposit), so one deposit serves many calls. */
  minDeposit: string;
  /** How long the mirrored chain state of a channel is trusted for a local voucher check. */
  onchainStateTtlMs: number;
  /** How long a reservation holds a channel if its request dies before commit or release. */
  reservationTtlMs: number;
}

/** One day: far longer than the settlement job's period, so every voucher is claimed before a withdrawal completes. */
const DEFAULT_WITHDRAW_DELAY_S = 86_400;
/**
 * The deposit asked for: 5 USD, the most the official client deposits by default (5 times its
 * default 1 USD cap per payment), so a buyer of 0.01 calls makes one deposit per 500 calls.
 */
const DEFAULT_MIN_DEPOSIT_USD = '5.00';
/** The library's own cap for trusting a mirrored state (5 min); a withdrawal cannot complete in that time. */
const DEFAULT_ONCHAIN_STATE_TTL_MS = 5 * 60_000;
/** A request lives at most 28 s (the Lambda timeout), as a payment claim does (ledger.ts CLAIM_LIFETIME_MS). */
const DEFAULT_RESERVATION_TTL_MS = 30_000;

const addressOf = (a: string): Address => {
  if (!/^0x[0-9a-fA-F]{40}$/.test(a)) throw new Error(`batch lane: not an address: ${a}`);
  return a as Address;
};

/**
 * The lane's settings from the service configuration.
 * @param receiverAuthorizer the facilitator's advertised `receiverAuthorizer` (GET /supported) or our own
 */
const batchLaneConfig = (
  config: Pick<Config, 'X402_NETWORK' | 'X402_PAY_TO' | 'X402_MAX_TIMEOUT_SECONDS'>,
  receiverAuthorizer: Address,
  overrides: Partial<Omit<BatchLaneConfig, 'network' | 'payTo' | 'receiverAuthorizer'>> = {},
): BatchLaneConfig => {
  const c: BatchLaneConfig = {
    network: config.X402_NETWORK,
    // As configured and as the facilitator states it: every comparison of addresses ignores case, and
    // the facilitator gets its authorizer back as it wrote it (no checksum code in discovery's bundle).
    payTo: addressOf(config.X402_PAY_TO),
    maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS,
    receiverAuthorizer: addressOf(receiverAuthorizer),
    withdrawDelaySeconds: DEFAULT_WITHDRAW_DELAY_S,
    minDeposit: usdToAtomic(DEFAULT_MIN_DEPOSIT_USD),
    onchainStateTtlMs: DEFAULT_ONCHAIN_STATE_TTL_MS,
    reservationTtlMs: DEFAULT_RESERVATION_TTL_MS,
    ...overrides,
  };
  if (c.withdrawDelaySeconds < MIN_WITHDRAW_DELAY_S || c.withdrawDelaySeconds > MAX_WITHDRAW_DELAY_S) {
    throw new Error(`batch lane: withdrawal delay must be ${MIN_WITHDRAW_DELAY_S}-${MAX_WITHDRAW_DELAY_S} s`);
  }
  if (/^0x0{40}$/.test(c.receiverAuthorizer)) throw new Error('batch lane: a receiver authorizer is required');
  return Object.freeze(c);
};

/** The terms the 402 states, from the lane's settings. */
const termsOf = (config: BatchLaneConfig): BatchTerms => ({
  receiverAuthorizer: config.receiverAuthorizer,
  withdrawDelay: config.withdrawDelaySeconds,
  minDeposit: config.minDeposit,
});

export { batchLaneConfig, termsOf, DEFAULT_WITHDRAW_DELAY_S, MIN_WITHDRAW_DELAY_S, MAX_WITHDRAW_DELAY_S };
export type { BatchLaneConfig };
