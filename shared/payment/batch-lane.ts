/**
 * The x402 `batch-settlement` lane as a peer of `exact` and Pro behind the charge step: a voucher
 * on an escrow channel pays a call at once (shared/payment/batch/lane.ts checks and reserves it; the
 * scheduled job claims vouchers on chain in batches). This module only maps the channel lane onto
 * the core's shapes: a refusal carries the 402 with the lane's reason as its `error` and, when the
 * buyer can resynchronise, the corrective option (the channel's state) in place of the offered one.
 */
import { PaymentError } from '../errors/errors';
import type { BatchLaneConfig } from './batch/config';
import { createBatchLane, type BatchGrant, type BatchLane, type BatchRefusal } from './batch/lane';
import type { SettleResponse } from '@x402/core/types';
import { batchLaneConfigOf } from './batch-terms';
import { requirementsOf } from './challenge';
import { paymentRequiredFor } from './payment-required';
import { FacilitatorUnavailableError, PaymentOutcomeUnknownError } from './errors';
import type { AnswerToStore, ChargeOutcome, Credentials, Grant, Lane, PaidCall, PaymentDeps, Receipt, Refusal, SettleOutcome } from './lane';
import type { PaymentPayload } from '@x402/core/types';

interface BatchLaneGrant extends Grant {
  lane: 'x402-batch';
  batch: BatchGrant;
  call: Pick<PaidCall, 'route' | 'resource' | 'timeLeftMs'>;
}

/** One channel lane per process (per store, facilitator and terms). */
const lanes = new WeakMap<BatchLaneConfig, BatchLane>();
const laneFor = (config: BatchLaneConfig, deps: PaymentDeps): BatchLane => {
  let lane = lanes.get(config);
  if (!lane) {
    if (!deps.channels) throw new Error('batch lane: no channel store in the payment services');
    lane = createBatchLane({ config, store: deps.channels, facilitator: deps.facilitator, now: deps.now, log: deps.log });
    lanes.set(config, lane);
  }
  return lane;
};

/** A commit whose outcome is not known: it may have been charged; the same voucher sent again gets the data. */
const outcomeUnknown = (message: string) => new PaymentOutcomeUnknownError(message);

/** The core's receipt of a committed voucher. */
const receiptOf = (r: SettleResponse, g: BatchLaneGrant): Receipt => ({
  settlement: { success: true, transaction: r.transaction, network: r.network, payer: r.payer ?? g.batch.payer, amount: r.amount, extra: r.extra },
});

/** The core's refusal of a channel-lane refusal. */
const refusalOf = async (r: BatchRefusal, call: Pick<PaidCall, 'route' | 'resource'>, deps: PaymentDeps): Promise<Refusal> => {
  if (r.status === 502) return { error: new FacilitatorUnavailableError(r.message, { reason: 'facilitator_unavailable' }) };
  if (r.status === 503) return { error: outcomeUnknown(r.message) };
  const required = await paymentRequiredFor(call, deps, r.reason);
  return {
    error: new PaymentError('INVALID_PAYMENT', r.message, { reason: r.reason }),
    required: r.requirements ? { ...required, accepts: required.accepts.map((a) => (a.scheme === 'batch-settlement' ? r.requirements! : a)) } : required,
  };
};

const authorize = async (credentials: Credentials, call: PaidCall, deps: PaymentDeps): Promise<ChargeOutcome> => {
  if (credentials.kind !== 'x402') throw new Error('batch lane: not an x402 payment');
  const config = await batchLaneConfigOf(deps.facilitator, deps.config, deps.now);
  if (!config) {
    return {
      type: 'refused',
      refusal: {
        error: new PaymentError('INVALID_PAYMENT', 'batch-settlement is not offered now (its facilitator does not support it); pay with the exact scheme', {
          reason: 'scheme_not_offered',
        }),
        required: await paymentRequiredFor(call, deps, 'scheme_not_offered'),
      },
    };
  }
  const lane = laneFor(config, deps);
  const o = lane.offer(call.route, call.resource.path);
  const requirements = requirementsOf(o);
  const result = await lane.authorize(credentials.payload as PaymentPayload, requirements, {
    route: call.route.id,
    path: call.resource.path,
    requestId: call.requestId,
  });
  if (!result.ok && result.status === 200) return { type: 'replay', answer: result.answer };
  if (!result.ok) return { type: 'refused', refusal: await refusalOf(result, call, deps) };
  const grant: BatchLaneGrant = {
    lane: 'x402-batch',
    callId: call.callId,
    batch: result.grant,
    call: { route: call.route, resource: call.resource, timeLeftMs: call.timeLeftMs },
  };
  return { type: 'granted', grant };
};

/** Never throws: anything unexpected after the handler answered is "may have been charged", never "nothing charged". */
const settle = async (g: BatchLaneGrant, deps: PaymentDeps, answer?: AnswerToStore): Promise<SettleOutcome> => {
  try {
    const config = await batchLaneConfigOf(deps.facilitator, deps.config, deps.now);
    const lane = laneFor(config!, deps);
    const committed = await lane.commit(g.batch, {
      timeLeftMs: g.call.timeLeftMs,
      ...(answer ? { answerOf: (r: SettleResponse) => answer(receiptOf(r, g)) } : {}),
    });
    if (!committed.ok) return { type: 'refused', refusal: await refusalOf(committed, g.call, deps) };
    return { type: 'settled', receipt: receiptOf(committed.receipt, g) };
  } catch (err) {
    deps.log.error('batch lane: settle failed unexpectedly', { requestId: g.batch.call.requestId, error: err instanceof Error ? err.message : String(err) });
    return {
      type: 'refused',
      refusal: {
        error: outcomeUnknown(
          'the payment could not be confirmed: it may have been charged; send the same request again (with the same voucher) to get its data',
        ),
      },
    };
  }
};

const release = async (g: BatchLaneGrant, reason: string, deps: PaymentDeps): Promise<{ budget?: undefined }> => {
  try {
    const config = await batchLaneConfigOf(deps.facilitator, deps.config, deps.now);
    await laneFor(config!, deps).release(g.batch, reason);
  } catch (err) {
    // The reservation expires on its own (reservationTtlMs): nothing is charged either way.
    deps.log.error('batch lane: release failed', { requestId: g.batch.call.requestId, reason, error: err instanceof Error ? err.message : String(err) });
  }
  return {};
};

const batchLane: Lane<BatchLaneGrant> = { id: 'x402-batch', scheme: 'batch-settlement', authorize, settle, release };

export { batchLane };
export type { BatchLaneGrant };
