/**
 * The exact lane's grant and the pure pieces every step shares: what a route's payment must be, the
 * payload sent to the facilitator, the payment-id digest, the settlement as the buyer is told of it.
 */
import { createHash } from 'node:crypto';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { Address } from 'viem';
import type { X402Network } from '../../config';
import type { RouteDef } from '../../routes/table';
import { usdcFor } from '../assets';
import { paymentOption, type PaymentOption } from '../challenge';
import type { ExpectedPayment } from '../checks';
import { getAddress, isAddressEqual } from '../evm/address';
import type { Grant, PaidCall, PaymentDeps, Settlement } from '../lane';
import type { ClaimKey } from '../ledger';
import type { DecodedPayment } from '../payload';

/** A granted exact payment, held between the handler and its settlement. */
interface ExactGrant extends Grant {
  lane: 'x402-exact';
  /** settle: settle after the handler; redeliver: settled earlier (found on chain), data still owed. */
  mode: 'settle' | 'redeliver';
  key: ClaimKey;
  route: RouteDef['id'];
  path: string;
  requestId: string;
  /** What was bought, to ask for payment again when the settlement is refused. */
  call: Pick<PaidCall, 'route' | 'resource'>;
  payer: Address;
  /** USDC atomic units. */
  amount: string;
  network: X402Network;
  asset: Address;
  payTo: Address;
  /** What is sent to the facilitator's /settle (a v2 payload, also for v1 payers). */
  facilitatorPayload: PaymentPayload;
  requirements: PaymentRequirements;
  paymentId: string | null;
  /** Unix seconds after which the authorization cannot settle (deferral leaves the worker time before it). */
  validBefore: number;
  /** The settlement transaction (redeliveries). */
  transaction?: string;
  timeLeftMs: () => number;
}

const nowSeconds = (now: Date): bigint => BigInt(Math.floor(now.getTime() / 1000));

/**
 * The payload sent to the facilitator: always v2. A v1 payer signed the very same EIP-712
 * message, so its authorization is wrapped in a v2 envelope with our requirements as `accepted`.
 */
const facilitatorPayloadOf = (p: DecodedPayment, requirements: PaymentRequirements, route: RouteDef, url: string): PaymentPayload => ({
  x402Version: 2,
  resource: { url, description: route.summary, mimeType: route.mimeType },
  accepted: requirements,
  payload: { signature: p.signature, authorization: p.wireAuthorization },
  ...(p.envelope.x402Version === 2 && p.envelope.extensions ? { extensions: p.envelope.extensions } : {}),
});

const withoutExtensions = ({ extensions: _extensions, ...payload }: PaymentPayload): PaymentPayload => payload;

/** Identifies a payment payload for the payment-id binding: the signature over the authorization. */
const payloadDigest = (p: DecodedPayment): string =>
  createHash('sha256')
    .update(JSON.stringify([p.signature.toLowerCase(), p.wireAuthorization]))
    .digest('hex');

const sameAddress = (a: string, b: string): boolean => {
  try {
    return isAddressEqual(a as Address, b as Address);
  } catch {
    return false;
  }
};

const settlementOf = (g: ExactGrant, transaction: string, success = true): Settlement => ({ success, transaction, network: g.network, payer: g.payer });

/**
 * What a route's exact payment must be.
 * @param resource what is bought: the path (accepts[].resource) and the absolute URL (a payload naming another is refused)
 */
const expectedFor = (route: RouteDef, resource: PaidCall['resource'], config: PaymentDeps['config']): { option: PaymentOption; expected: ExpectedPayment } => {
  const option = paymentOption(route, resource.path, config);
  return {
    option,
    expected: {
      network: config.X402_NETWORK,
      asset: usdcFor(config.X402_NETWORK),
      payTo: getAddress(config.X402_PAY_TO),
      amount: BigInt(option.amount),
      resource: resource.url,
      maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS,
    },
  };
};

export { expectedFor, facilitatorPayloadOf, nowSeconds, payloadDigest, sameAddress, settlementOf, withoutExtensions };
export type { ExactGrant };
