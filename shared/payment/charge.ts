/**
 * The payment core's one step: `charge` decides a paid call before any data is read, by the lane
 * its credentials name, and `settle` / `release` finish it after the handler. Transport-free: HTTP
 * (shared/http/payment-middleware.ts) and MCP (shared/mcp/payment.ts) decode credentials and render
 * the outcomes themselves.
 *
 *   no credentials    -> 402 with every x402 lane's option (enforced, or X-Force-402), else free (demo)
 *   Pro key           -> Pro lane (a key wins over x402: nothing is charged twice)
 *   x402 payload      -> the x402 lane of its scheme
 */
import { PaymentError } from '../errors/errors';
import { isChargeable } from '../routes/table';
import { paymentRequiredFor } from './payment-required';
import { laneOfGrant, laneOfScheme, laneRegistry, lanesOf } from './lanes';
import type { AnswerToStore, Budget, ChargeOutcome, Credentials, Grant, Lane, PaidCall, PaymentDeps, ReleaseReason, SettleOutcome } from './lane';

/** The lane of a grant this process made (a grant names its lane by id). */
const laneOf = (grant: Grant, deps: PaymentDeps): Lane<Grant> => {
  const lane = laneOfGrant(deps, grant);
  if (!lane) throw new Error(`payment: no lane ${grant.lane} in this process`);
  return lane;
};

/** The scheme an x402 payload names (v2: accepted.scheme; v1: scheme). */
const schemeOf = (payload: unknown): unknown => {
  const p = payload as { accepted?: { scheme?: unknown }; scheme?: unknown } | null;
  return p?.accepted?.scheme ?? p?.scheme;
};

/**
 * Decides how a call is paid, before any data is read.
 * @param credentials what the buyer presented, decoded by the transport
 * @param call the route (after parameter validation), what is bought, the call's ids and deadline
 * @param opts.challenge ask for payment even in demo mode (HTTP `X-Force-402: 1`)
 * @returns free (serve), granted (serve, then settle or release the grant), replay (send the stored
 *   answer) or refused (render the refusal)
 * @example
 * const outcome = await charge(credentialsOf(headers), call, services.payment);
 * if (outcome.type === 'refused') return renderRefusal(outcome.refusal, requestId);
 */
const charge = async (credentials: Credentials, call: PaidCall, deps: PaymentDeps, opts: { challenge?: boolean } = {}): Promise<ChargeOutcome> => {
  if (!isChargeable(call.route, deps.config)) return { type: 'free', reason: call.route.priceKey === null ? 'free-route' : 'not-chargeable' };
  switch (credentials.kind) {
    case 'none':
      if (deps.config.X402_ENFORCE || opts.challenge) {
        return {
          type: 'refused',
          refusal: {
            error: new PaymentError('PAYMENT_REQUIRED', 'this route is paid: pay with x402 or a Pro key'),
            required: await paymentRequiredFor(call, deps),
          },
        };
      }
      return { type: 'free', reason: 'demo' };
    case 'pro': {
      const pro = lanesOf(deps).find((l) => l.id === 'pro') ?? laneRegistry().pro;
      const outcome = await pro.authorize(credentials as never, call, deps);
      // Out of credits, with an x402 payment for this one call (the QUOTA_EXCEEDED answer carries the
      // 402's requirements): the key charged nothing, so the payment may.
      const exhausted = outcome.type === 'refused' && outcome.refusal.error.code === 'QUOTA_EXCEEDED';
      if (exhausted && credentials.x402 !== undefined) return charge({ kind: 'x402', payload: credentials.x402 }, call, deps, opts);
      return outcome;
    }
    case 'unreadable':
      return {
        type: 'refused',
        refusal: {
          error: new PaymentError('INVALID_PAYMENT', credentials.message, { reason: credentials.reason, ...credentials.details }),
          required: await paymentRequiredFor(call, deps, credentials.reason),
        },
      };
    case 'x402': {
      const scheme = schemeOf(credentials.payload);
      if (typeof scheme !== 'string') {
        return {
          type: 'refused',
          refusal: {
            error: new PaymentError('INVALID_PAYMENT', 'the payment is not an x402 payment payload (v1 or v2) naming its scheme', {
              reason: 'invalid_payload',
            }),
            required: await paymentRequiredFor(call, deps, 'invalid_payload'),
          },
        };
      }
      const lane = laneOfScheme(deps, scheme);
      if (lane) return lane.authorize(credentials, call, deps);
      const schemes = lanesOf(deps).flatMap((l) => (l.scheme ? [l.scheme] : []));
      return {
        type: 'refused',
        refusal: {
          error: new PaymentError('INVALID_PAYMENT', `scheme must be one of ${schemes.join(', ')}`, {
            reason: 'scheme_mismatch',
            got: scheme ?? null,
          }),
          required: await paymentRequiredFor(call, deps, 'scheme_mismatch'),
        },
      };
    }
  }
};

/** The call delivered data: its lane takes the money, or refuses to let the data go. Never throws. */
const settle = (grant: Grant, deps: PaymentDeps, answer?: AnswerToStore): Promise<SettleOutcome> => laneOf(grant, deps).settle(grant, deps, answer);

/** The call delivered nothing (an error, or an answer not charged): its lane gives everything back. Never throws. */
const release = (grant: Grant, reason: ReleaseReason, deps: PaymentDeps): Promise<{ budget?: Budget }> => laneOf(grant, deps).release(grant, reason, deps);

export { charge, settle, release };
