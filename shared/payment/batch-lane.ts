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
import { batchLaneConfigOf } from './batch-terms';
import { requirementsOf } from './challenge';
import { paymentRequiredFor } from './payment-required';
import { FacilitatorUnavailableError } from './errors';
import type { ChargeOutcome, Credentials, Grant, Lane, PaidCall, PaymentDeps, Refusal, SettleOutcome } from './lane';
import type { PaymentPayload } from '@x402/core/types';

interface BatchLaneGrant extends Grant {
  lane: 'x402-batch';
  batch: BatchGrant;
  call: Pick<PaidCall, 'route' | 'resource'>;
}

/** One channel lane per process (per store, facilitator and terms). */
const lanes = new WeakMap<BatchLaneConfig, BatchLane>();
const laneFor = (config: BatchLaneConfig, deps: PaymentDeps): BatchLane => {
  let lane = lanes.get(config);
  if (!lane) {
    if (!deps.channels) throw new Error('batch lane: no channel store in the payment services');
    lane = createBatchLane({ config, store: deps.channels, facilitator: deps.facilitator, now: deps.now });
    lanes.set(config, lane);
  }
  return lane;
};

/** The core's refusal of a channel-lane refusal. */
const refusalOf = async (r: BatchRefusal, call: Pick<PaidCall, 'route' | 'resource'>, deps: PaymentDeps): Promise<Refusal> => {
  if (r.status === 502) return { error: new FacilitatorUnavailableError(r.message, { reason: 'facilitator_unavailable' }) };
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
  if (!result.ok) return { type: 'refused', refusal: await refusalOf(result, call, deps) };
  const grant: BatchLaneGrant = { lane: 'x402-batch', callId: call.callId, batch: result.grant, call: { route: call.route, resource: call.resource } };
  return { type: 'granted', grant };
};

const settle = async (g: BatchLaneGrant, deps: PaymentDeps): Promise<SettleOutcome> => {
  const config = await batchLaneConfigOf(deps.facilitator, deps.config, deps.now);
  const committed = await laneFor(config!, deps).commit(g.batch);
  if (!committed.ok) return { type: 'refused', refusal: await refusalOf(committed, g.call, deps) };
  const r = committed.receipt;
  return {
    type: 'settled',
    receipt: {
      settlement: { success: true, transaction: r.transaction, network: r.network, payer: r.payer ?? g.batch.payer, amount: r.amount, extra: r.extra },
    },
  };
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
