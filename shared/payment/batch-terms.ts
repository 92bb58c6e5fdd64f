/**
 * Whether the batch-settlement lane is open, and on which terms: the facilitator must support the
 * scheme on our network and advertise a `receiverAuthorizer` (it signs the claims and refunds of our
 * channels, so the service holds no key). Asked once per process and kept (a failure for ten
 * minutes); a 402 waits for the first answer at most CHALLENGE_WAIT_MS and otherwise offers `exact` only.
 */
import type { Address } from 'viem';
import type { Config } from '../config';
import { batchLaneConfig, type BatchLaneConfig } from './batch/config';
import type { FacilitatorClient } from './facilitator';

/** How long an unanswered or refused ask is kept before the facilitator is asked again. */
const FAILURE_KEPT_MS = 10 * 60_000;
/** The longest a 402 waits for the first answer; the ask goes on and serves the next ones. */
const CHALLENGE_WAIT_MS = 1_500;

const known = new WeakMap<FacilitatorClient, { at: number; config: Promise<BatchLaneConfig | null> }>();

const receiverAuthorizerOf = async (facilitator: FacilitatorClient, network: string): Promise<Address | null> => {
  const supported = await facilitator.getSupported();
  const kind = supported.kinds.find((k) => k.scheme === 'batch-settlement' && k.network === network);
  const authorizer = (kind?.extra as { receiverAuthorizer?: unknown } | undefined)?.receiverAuthorizer;
  return typeof authorizer === 'string' && /^0x[0-9a-fA-F]{40}$/.test(authorizer) ? (authorizer as Address) : null;
};

/**
 * The batch lane's settings, or null when the facilitator does not offer the scheme (or cannot be asked).
 * @example const lane = await batchLaneConfigOf(deps.facilitator, deps.config, deps.now)
 */
const batchLaneConfigOf = (
  facilitator: FacilitatorClient,
  config: Pick<Config, 'X402_NETWORK' | 'X402_PAY_TO' | 'X402_MAX_TIMEOUT_SECONDS'>,
  now: () => Date,
): Promise<BatchLaneConfig | null> => {
  const cached = known.get(facilitator);
  if (cached) return cached.config;
  const entry = {
    at: now().getTime(),
    config: receiverAuthorizerOf(facilitator, config.X402_NETWORK).then(
      (authorizer) => (authorizer ? batchLaneConfig(config, authorizer) : null),
      () => {
        // A failed ask is kept FAILURE_KEPT_MS, then the facilitator is asked again.
        setTimeout(() => known.delete(facilitator), FAILURE_KEPT_MS).unref?.();
        return null;
      },
    ),
  };
  known.set(facilitator, entry);
  return entry.config;
};

/** The batch lane's settings for a 402: as known, waiting at most CHALLENGE_WAIT_MS for the first answer. */
const batchLaneConfigForChallenge = (...args: Parameters<typeof batchLaneConfigOf>): Promise<BatchLaneConfig | null> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const wait = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), CHALLENGE_WAIT_MS);
    timer.unref?.();
  });
  return Promise.race([batchLaneConfigOf(...args), wait]).finally(() => clearTimeout(timer));
};

export { batchLaneConfigOf, batchLaneConfigForChallenge };
