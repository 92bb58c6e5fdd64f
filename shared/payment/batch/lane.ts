/**
 * The x402 `batch-settlement` lane: a buyer deposits once into an escrow channel and signs a
 * cumulative voucher per call; the lane checks the voucher and answers at once, and the
 * settlement job (settle-job.ts) claims the vouchers on chain in batches later. The lane is
 * transport-free and shaped for the payment core's `charge` step:
 *
 *   offer(route, path, config)              the 402's batch-settlement option, at the route's price
 *   authorize(payload, requirements, ctx)   checks the voucher and reserves it (no chain wait for a voucher)
 *   commit(grant)                           the call delivered data: the voucher counts, its sale is booked
 *   release(grant, reason)                  an error answer: the voucher is not counted
 *
 * and, at the end of this module, `batchLane`: the same lane as the payment core's `Lane` (the one
 * module of the lane; lanes.ts registers it).
 *
 * Money rules (x402 spec: specs/schemes/batch-settlement/scheme_batch_settlement_evm.md):
 *   - a voucher must be exactly the channel's charged amount plus this call's price (vouchers only
 *     grow, by one price per call); any other is refused with a corrective 402 that carries the
 *     channel's state, from which the official client resynchronises and retries;
 *   - a voucher beyond the channel's balance (the buyer's deposit, less what was withdrawn or
 *     refunded) is refused, with the same corrective 402: the client re-reads the chain and tops up;
 *   - one voucher pays one call: a reservation (the channel's pending request) holds the channel
 *     from authorize to commit/release; a second request on the channel meanwhile is refused
 *     `channel_busy`, and once committed the same voucher no longer matches;
 *   - an error answer is not charged: release drops the reservation, the charged amount is unchanged;
 *   - no voucher is accepted on a channel whose payer started a timed withdrawal, or that the
 *     settlement job is closing with a refund (nothing is charged that cannot be claimed).
 *
 * A voucher is checked locally (EIP-712 recovery against the channel's payer authorizer, balance
 * and claimed amount mirrored from the chain) while the mirror is fresh; otherwise, and for
 * smart-wallet payers, deposits and the first voucher of a channel, the facilitator's /verify
 * reads the chain. A deposit goes on chain in commit (facilitator /settle), so an error answer
 * neither charges nor takes a deposit.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { FacilitatorClient } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import type { Address } from 'viem';
import { getAddress, isAddressEqual } from '../evm/address';
import type { RouteDef } from '../../routes/table';
import { usdcFor } from '../assets';
import { PaymentError } from '../../errors/errors';
import { batchOption, requirementsOf, type BatchPaymentOption } from '../challenge';
import { batchLaneConfigOf } from '../batch-terms';
import { FacilitatorUnavailableError, PaymentOutcomeUnknownError } from '../errors';
import {
  releaseReasonText,
  type AnswerToStore,
  type ChargeOutcome,
  type Credentials,
  type Grant,
  type Lane,
  type PaidCall,
  type PaymentDeps,
  type Receipt,
  type Refusal,
  type ReleaseReason,
  type SettleOutcome,
} from '../lane';
import { paymentRequiredFor } from '../payment-required';
import { termsOf, type BatchLaneConfig } from './config';
import { classifyFacilitatorError } from '../facilitator';
import { type BatchSale, type ChannelLaneStore, isClosing, isPendingLive, type StoredChannel } from './channel-store';
import { BatchPayloadSchema, type BatchPayload, checkChannel, voucherSignedByAuthorizer } from './voucher';

const SCHEME = 'batch-settlement';

/** x402's reason codes the official client acts on (it resynchronises on a mismatch) and the others we send. */
const REASON = Object.freeze({
  mismatch: 'invalid_batch_settlement_evm_cumulative_amount_mismatch',
  busy: 'invalid_batch_settlement_evm_channel_busy',
  signature: 'invalid_batch_settlement_evm_voucher_signature',
  scheme: 'invalid_batch_settlement_evm_scheme',
  payloadType: 'invalid_batch_settlement_evm_payload_type',
  voucherPayload: 'invalid_batch_settlement_evm_voucher_payload',
  exceedsBalance: 'invalid_batch_settlement_evm_cumulative_exceeds_balance',
  belowClaimed: 'invalid_batch_settlement_evm_cumulative_below_claimed',
  missingChannel: 'invalid_batch_settlement_evm_missing_channel',
  withdrawalPending: 'batch_channel_withdrawal_pending',
  accepted: 'accepted_requirements_mismatch',
  facilitator: 'facilitator_unavailable',
  /** The facilitator refused the voucher for a reason of its own (its words are logged, not sent). */
  facilitatorRefused: 'facilitator_refused',
  /** The commit's write was not acknowledged: the call may have been charged. */
  outcomeUnknown: 'payment_outcome_unknown',
} as const);

/** How long a commit keeps retrying an unacknowledged write when the caller gives no deadline. */
const COMMIT_BUDGET_MS = 20_000;
/** Time a commit leaves for its answer: no retry starts with less (the store client's own timeout is 2 s). */
const COMMIT_RETRY_MARGIN_MS = 3_000;
/** Largest kept answer (gzip): a credit-table item holds 400 KB with its keys. */
const MAX_KEPT_ANSWER_BYTES = 350_000;

/** The transport's answer for a receipt (what a re-sent voucher gets back). */
type AnswerOf = (receipt: SettleResponse) => Uint8Array;

const keptAnswer = (data: Uint8Array): Uint8Array | undefined => {
  const zipped = gzipSync(data);
  return zipped.byteLength <= MAX_KEPT_ANSWER_BYTES ? zipped : undefined;
};

const errorText = (err: unknown): string => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

/**
 * The batch-settlement payment option of a priced route (challenge.ts `batchOption` with this lane's terms).
 * @param path the requested path (accepts[].resource)
 */
const offer = (route: Pick<RouteDef, 'priceUsd' | 'summary' | 'mimeType'>, path: string, config: BatchLaneConfig): BatchPaymentOption =>
  batchOption(route, path, { X402_NETWORK: config.network, X402_PAY_TO: config.payTo, X402_MAX_TIMEOUT_SECONDS: config.maxTimeoutSeconds }, termsOf(config));

/** What authorize needs to know about the call. */
interface BatchCallContext {
  /** Route id from the route table. */
  route: string;
  path: string;
  requestId: string;
}

/** A reserved voucher, held from authorize until commit or release. */
interface BatchGrant {
  lane: 'x402-batch';
  kind: 'voucher' | 'deposit';
  channelId: string;
  /** Identifies this request's reservation of the channel. */
  pendingId: string;
  payer: Address;
  /** This call's price (atomic units). */
  amount: string;
  /** The voucher's cumulative ceiling: the channel's charged amount once committed. */
  cumulative: string;
  voucherSignature: string;
  /** What the facilitator settles for a deposit. */
  payload: PaymentPayload;
  /** The channel as this reservation wrote it (lets commit and release skip a read). */
  reserved: StoredChannel;
  requirements: PaymentRequirements;
  call: BatchCallContext;
  /** The deposit's settlement, once it went on chain (a retried commit does not deposit twice). */
  deposited?: SettleResponse;
}

/** Why a payment was refused, in x402 terms; `requirements` is the corrective option when the buyer can resynchronise. */
interface BatchRefusal {
  ok: false;
  /**
   * 402: the payment is refused (pay again); 502: the facilitator could not be asked; 503: the
   * commit's outcome is unknown (it may have been charged: the same voucher sent again gets the data).
   */
  status: 402 | 502 | 503;
  /** x402 error code (the 402's `error` field; the official client recovers on the mismatch code). */
  reason: string;
  message: string;
  requirements?: BatchPaymentOption;
}

/** The same voucher sent again after it was committed: the answer it paid for, nothing charged again. */
interface BatchReplay {
  ok: false;
  status: 200;
  reason: 'replay';
  message: string;
  answer: Uint8Array;
  requirements?: undefined;
}

type AuthorizeResult = { ok: true; grant: BatchGrant } | BatchRefusal | BatchReplay;
type CommitResult = { ok: true; receipt: SettleResponse } | BatchRefusal;

interface BatchLaneDeps {
  config: BatchLaneConfig;
  store: ChannelLaneStore;
  facilitator: Pick<FacilitatorClient, 'verify' | 'settle'>;
  now: () => Date;
  /** Reservation ids (default random UUIDs). */
  newId?: () => string;
  /** Where what the buyer is not told goes (a facilitator's own words, unacknowledged writes). */
  log?: { warn(message: string, extra?: Record<string, unknown>): void; error(message: string, extra?: Record<string, unknown>): void };
}

/** Chain state of a channel, as mirrored or as the facilitator just read it. */
interface ChainView {
  balance: bigint;
  totalClaimed: bigint;
  withdrawRequestedAt: number;
  refundNonce: number;
  /** When it was read from the chain (epoch ms); undefined: taken from a mirror, keep the mirror's time. */
  readAt?: number;
}

/** A reason code the buyer may see: a short snake_case token, never free text. */
const isReasonCode = (r: string | undefined): r is string => r !== undefined && /^[a-z0-9_]{1,80}$/.test(r);

const refuse = (reason: string, message: string, extra: Partial<BatchRefusal> = {}): BatchRefusal => ({ ok: false, status: 402, reason, message, ...extra });

/** Whether the payload's `accepted` is the option we offer for this call (a client may not pick its own terms). */
const acceptedMatches = (accepted: PaymentRequirements | undefined, req: PaymentRequirements): boolean => {
  if (!accepted) return false;
  const a = accepted.extra ?? {};
  const r = req.extra ?? {};
  return (
    accepted.scheme === req.scheme &&
    accepted.network === req.network &&
    accepted.amount === req.amount &&
    typeof accepted.asset === 'string' &&
    isAddressEqual(accepted.asset as Address, req.asset as Address) &&
    typeof accepted.payTo === 'string' &&
    isAddressEqual(accepted.payTo as Address, req.payTo as Address) &&
    typeof a.receiverAuthorizer === 'string' &&
    isAddressEqual(a.receiverAuthorizer as Address, r.receiverAuthorizer as Address) &&
    Number(a.withdrawDelay) === Number(r.withdrawDelay)
  );
};

const chainViewOf = (c: StoredChannel): ChainView => ({
  balance: BigInt(c.balance),
  totalClaimed: BigInt(c.totalClaimed),
  withdrawRequestedAt: c.withdrawRequestedAt,
  refundNonce: c.refundNonce,
});

/** The facilitator's channel snapshot (verify `extra`, or settle `extra.channelState`). */
const chainViewFrom = (extra: Record<string, unknown> | undefined, readAt: number): ChainView | undefined => {
  const big = (v: unknown) =>
    typeof v === 'string' && /^\d+$/.test(v) ? BigInt(v) : typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : undefined;
  const balance = big(extra?.balance);
  const totalClaimed = big(extra?.totalClaimed);
  if (balance === undefined || totalClaimed === undefined) return undefined;
  return {
    balance,
    totalClaimed,
    withdrawRequestedAt: Number(big(extra?.withdrawRequestedAt) ?? 0n),
    refundNonce: Number(big(extra?.refundNonce) ?? 0n),
    readAt,
  };
};

const stateExtra = (channelId: string, chain: ChainView, charged: bigint): ChannelStateExtra => ({
  channelId,
  balance: chain.balance.toString(),
  totalClaimed: chain.totalClaimed.toString(),
  withdrawRequestedAt: chain.withdrawRequestedAt,
  refundNonce: chain.refundNonce.toString(),
  chargedCumulativeAmount: charged.toString(),
});

/**
 * The corrective option: the offered one plus the server's channel state. With a stored record,
 * its last committed voucher proves the charged amount to the buyer (it checks the signature is
 * its own); without one, the buyer takes the charged amount from the chain (claimed so far).
 */
const corrective = (req: PaymentRequirements, channelId: string, chain: ChainView, record: StoredChannel | undefined): BatchPaymentOption => {
  const trusted = record?.signature && record.signature !== '0x' && BigInt(record.chargedCumulativeAmount) >= chain.totalClaimed ? record : undefined;
  const charged = trusted ? BigInt(trusted.chargedCumulativeAmount) : chain.totalClaimed;
  const option = req as unknown as BatchPaymentOption;
  return {
    ...option,
    extra: {
      ...option.extra,
      channelState: stateExtra(channelId, chain, charged),
      ...(trusted ? { voucherState: { signedMaxClaimable: trusted.signedMaxClaimable, signature: trusted.signature } } : {}),
    },
  };
};

/** A new channel record, from the chain (nothing charged by us beyond what is claimed). */
const newRecord = (channelId: string, p: BatchPayload, chain: ChainView, now: number): StoredChannel => ({
  channelId,
  channelConfig: {
    ...p.channelConfig,
    payer: p.channelConfig.payer as Address,
    payerAuthorizer: p.channelConfig.payerAuthorizer as Address,
    receiver: p.channelConfig.receiver as Address,
    receiverAuthorizer: p.channelConfig.receiverAuthorizer as Address,
    token: p.channelConfig.token as Address,
    salt: p.channelConfig.salt as `0x${string}`,
  },
  chargedCumulativeAmount: chain.totalClaimed.toString(),
  signedMaxClaimable: chain.totalClaimed.toString(),
  signature: '',
  balance: chain.balance.toString(),
  totalClaimed: chain.totalClaimed.toString(),
  withdrawRequestedAt: chain.withdrawRequestedAt,
  refundNonce: chain.refundNonce,
  onchainSyncedAt: now,
  lastRequestTimestamp: now,
});

/** The record's chain fields replaced by a fresher view. */
const withChain = (c: StoredChannel, chain: ChainView): StoredChannel =>
  chain.readAt === undefined
    ? c
    : {
        ...c,
        balance: chain.balance.toString(),
        totalClaimed: chain.totalClaimed.toString(),
        withdrawRequestedAt: chain.withdrawRequestedAt,
        refundNonce: chain.refundNonce,
        onchainSyncedAt: chain.readAt,
      };

/** Whether the channel's last committed voucher is this grant's (its commit landed). */
const carriesVoucher = (c: StoredChannel, g: Pick<BatchGrant, 'cumulative' | 'voucherSignature'>): boolean =>
  c.signedMaxClaimable === g.cumulative && c.signature.toLowerCase() === g.voucherSignature.toLowerCase();

/** What the buyer is told of a committed voucher (PAYMENT-RESPONSE): the channel after the call. */
const receiptOf = (grant: BatchGrant, committed: StoredChannel, deposited: SettleResponse | undefined): SettleResponse => ({
  success: true,
  transaction: deposited?.transaction ?? '',
  network: grant.requirements.network as SettleResponse['network'],
  payer: grant.payer,
  amount: deposited ? String(deposited.amount ?? '') : '',
  extra: { chargedAmount: grant.amount, channelState: stateExtra(grant.channelId, chainViewOf(committed), BigInt(grant.cumulative)) },
});

/**
 * The lane over its store, facilitator and clock.
 * @example
 * const lane = createBatchLane({ config, store: new DynamoChannelStore(doc, table), facilitator, now: () => new Date() });
 * const auth = await lane.authorize(payload, lane.offer(route, path), { route: route.id, path, requestId });
 * if (auth.ok) { const answer = await handler(); answer.ok ? await lane.commit(auth.grant) : await lane.release(auth.grant, 'handler_failed'); }
 */
const createBatchLane = (deps: BatchLaneDeps) => {
  const { config, store, facilitator, log } = deps;
  const newId = deps.newId ?? randomUUID;
  const chainId = usdcFor(config.network).chainId;

  /** Asks the facilitator; a failure to answer is a 502, never a verdict on the payment. */
  const ask = async <T>(call: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; refusal: BatchRefusal }> => {
    try {
      return { ok: true, value: await call() };
    } catch (err) {
      const failure = classifyFacilitatorError(err);
      if (failure.kind === 'verdict') return { ok: false, refusal: refuse(failure.reason ?? REASON.facilitator, 'the facilitator refused the payment') };
      return {
        ok: false,
        refusal: { ok: false, status: 502, reason: REASON.facilitator, message: 'the payment facilitator could not be reached; nothing was charged' },
      };
    }
  };

  const authorize = async (payload: PaymentPayload, requirements: PaymentRequirements, call: BatchCallContext): Promise<AuthorizeResult> => {
    const now = deps.now().getTime();
    if (payload.x402Version !== 2 || payload.accepted?.scheme !== SCHEME || requirements.scheme !== SCHEME) {
      return refuse(REASON.scheme, 'not an x402 v2 batch-settlement payment');
    }
    const type = (payload.payload as { type?: unknown })?.type;
    if (type === 'refund')
      return refuse(REASON.payloadType, 'refunds are not taken by request: idle channels are refunded by the service, and a timed withdrawal is always open');
    const parsed = BatchPayloadSchema.safeParse(payload.payload);
    if (!parsed.success) return refuse(REASON.voucherPayload, 'malformed batch-settlement payload');
    const p = parsed.data;
    if (!acceptedMatches(payload.accepted, requirements))
      return refuse(REASON.accepted, "the payment accepts other terms than this route's batch-settlement option");

    const bound = checkChannel(p.channelConfig, p.voucher, {
      chainId,
      payTo: requirements.payTo as Address,
      asset: requirements.asset as Address,
      receiverAuthorizer: requirements.extra.receiverAuthorizer as Address,
      withdrawDelay: Number(requirements.extra.withdrawDelay),
    });
    if (!bound.ok) return refuse(bound.reason, bound.message);
    const channelId = bound.channelId;
    const signed = voucherSignedByAuthorizer(p.channelConfig, p.voucher, chainId);
    if (signed === false) return refuse(REASON.signature, "the voucher is not signed by the channel's payer authorizer");

    const cumulative = BigInt(p.voucher.maxClaimableAmount);
    const price = BigInt(requirements.amount);
    const record = await store.get(channelId);
    // This very voucher was committed already (its answer may have been lost): the answer it paid for, nothing charged again.
    if (record && carriesVoucher(record, { cumulative: cumulative.toString(), voucherSignature: p.voucher.signature })) {
      const kept = await store.answerOf(channelId);
      if (kept && kept.cumulative === cumulative.toString() && kept.path === call.path) {
        return { ok: false, status: 200, reason: 'replay', message: 'this voucher paid an earlier call: its answer again', answer: gunzipSync(kept.body) };
      }
      return refuse(REASON.mismatch, `this voucher paid an earlier call${kept && kept.path !== call.path ? ` for ${kept.path}` : ''}: sign the next one`, {
        requirements: corrective(requirements, channelId, chainViewOf(record), record),
      });
    }
    if (isClosing(record, now)) return refuse(REASON.busy, 'the channel is being refunded; open a new deposit after the refund');
    if (isPendingLive(record, now)) return refuse(REASON.busy, 'another request of this channel is in progress; retry when it has answered');

    // Chain state: the mirror while fresh, else the facilitator reads the chain (and checks the signature on chain terms).
    const mirrorFresh =
      record !== undefined &&
      p.type === 'voucher' &&
      signed === true &&
      record.withdrawRequestedAt === 0 &&
      record.onchainSyncedAt !== undefined &&
      now - record.onchainSyncedAt <= config.onchainStateTtlMs;
    let chain: ChainView;
    if (record && mirrorFresh) {
      chain = chainViewOf(record);
    } else {
      const asked = await ask<VerifyResponse>(() => facilitator.verify(payload, requirements));
      if (!asked.ok) return asked.refusal;
      const v = asked.value;
      const view = v.isValid ? chainViewFrom(v.extra, now) : undefined;
      if (!v.isValid || !view) {
        // Over the balance or under the claimed amount: the buyer's view of the channel is stale; it resynchronises from the chain.
        if (v.invalidReason === REASON.exceedsBalance || v.invalidReason === REASON.belowClaimed) {
          const known = record ? chainViewOf(record) : { balance: 0n, totalClaimed: 0n, withdrawRequestedAt: 0, refundNonce: 0 };
          return refuse(REASON.mismatch, `voucher refused: ${v.invalidReason}`, { requirements: corrective(requirements, channelId, known, record) });
        }
        // The facilitator's own words can carry its RPC URL and call data: they are logged, the buyer gets a code.
        log?.warn('batch lane: the facilitator refused a voucher', {
          requestId: call.requestId,
          channelId,
          invalidReason: v.invalidReason,
          invalidMessage: v.invalidMessage,
        });
        return refuse(isReasonCode(v.invalidReason) ? v.invalidReason : REASON.facilitatorRefused, 'the facilitator refused the voucher');
      }
      if (v.payer && !isAddressEqual(getAddress(v.payer), getAddress(p.channelConfig.payer)))
        return refuse(REASON.signature, 'the verified payer is not the channel payer');
      chain = view;
    }

    // The charged amount so far: ours when we hold the channel's last voucher, else what the chain has claimed.
    const trusted = record !== undefined && BigInt(record.chargedCumulativeAmount) >= chain.totalClaimed;
    const charged = trusted ? BigInt(record!.chargedCumulativeAmount) : chain.totalClaimed;
    if (cumulative !== charged + price) {
      return refuse(REASON.mismatch, `the voucher must be the charged amount ${charged} plus the price ${price}`, {
        requirements: corrective(requirements, channelId, chain, trusted ? record : undefined),
      });
    }
    if (chain.withdrawRequestedAt !== 0)
      return refuse(REASON.withdrawalPending, 'the payer started a withdrawal from this channel: no voucher is accepted until it completes');
    const deposit = p.type === 'deposit' ? BigInt(p.deposit.amount) : 0n;
    if (cumulative > chain.balance + deposit || cumulative <= chain.totalClaimed) {
      return refuse(REASON.mismatch, `voucher refused: ${cumulative > chain.balance + deposit ? REASON.exceedsBalance : REASON.belowClaimed}`, {
        requirements: corrective(requirements, channelId, chain, trusted ? record : undefined),
      });
    }

    // Reserve: only if nobody moved the channel since (a concurrent request, the settlement job).
    const pendingId = newId();
    let verdict: BatchRefusal | undefined;
    const reserved = await store.change(
      channelId,
      (current) => {
        verdict = undefined;
        // Gone since it was read (the settlement job refunded and closed it): the chain view above is stale.
        if ((record && !current) || isClosing(current, now) || isPendingLive(current, now)) {
          verdict = refuse(REASON.busy, 'another request of this channel is in progress; retry when it has answered');
          return { channel: current };
        }
        const base = current ? withChain(current, chain) : newRecord(channelId, p, chain, now);
        const baseCharged = BigInt(base.chargedCumulativeAmount) >= chain.totalClaimed ? BigInt(base.chargedCumulativeAmount) : chain.totalClaimed;
        if (cumulative !== baseCharged + price) {
          verdict = refuse(REASON.mismatch, 'the channel moved on meanwhile', { requirements: corrective(requirements, channelId, chain, current) });
          return { channel: current };
        }
        return {
          channel: {
            ...base,
            chargedCumulativeAmount: baseCharged.toString(),
            lastRequestTimestamp: now,
            pendingRequest: { pendingId, signedMaxClaimable: cumulative.toString(), expiresAt: now + config.reservationTtlMs },
          },
        };
      },
      record,
    );
    if (verdict) return verdict;

    return {
      ok: true,
      grant: {
        lane: 'x402-batch',
        kind: p.type,
        channelId,
        pendingId,
        payer: getAddress(p.channelConfig.payer),
        amount: price.toString(),
        cumulative: cumulative.toString(),
        voucherSignature: p.voucher.signature,
        payload,
        reserved: reserved.channel!,
        requirements,
        call,
      },
    };
  };

  /** Drops this request's reservation (nothing else): the voucher is not counted. */
  const release = async (grant: BatchGrant, _reason: string): Promise<void> => {
    await store.change(
      grant.channelId,
      (current) => ({ channel: current && current.pendingRequest?.pendingId === grant.pendingId ? { ...current, pendingRequest: undefined } : current }),
      grant.reserved,
    );
  };

  /**
   * The commit's write: the voucher counts and its sale (and the answer it pays for) is booked, if
   * this request still holds the channel. Idempotent: a channel that already carries this very
   * voucher was committed by an earlier attempt whose acknowledgement was lost.
   */
  const commitOnce = async (
    grant: BatchGrant,
    depositView: ChainView | undefined,
    answerOf: AnswerOf | undefined,
    afterLostWrite: boolean,
  ): Promise<StoredChannel | 'unknown' | undefined> => {
    const now = deps.now();
    const price = BigInt(grant.amount);
    let committed: StoredChannel | 'unknown' | undefined;
    await store.change(
      grant.channelId,
      (current) => {
        committed = undefined;
        if (current && carriesVoucher(current, grant)) {
          // Ours (an earlier attempt landed), another request's (it was paid there), or not known (a
          // writer that does not keep the mark): only the first two are certain.
          if (current.committedBy === grant.pendingId) committed = current;
          else if (current.committedBy === undefined) committed = 'unknown';
          return { channel: current };
        }
        if (!current || current.pendingRequest?.pendingId !== grant.pendingId) {
          // An earlier attempt of ours may have landed and a later voucher moved the channel on
          // since (its mark is gone): not provably uncharged.
          if (afterLostWrite && current && BigInt(current.signedMaxClaimable) >= BigInt(grant.cumulative)) committed = 'unknown';
          return { channel: current };
        }
        const charged = BigInt(current.chargedCumulativeAmount) + price;
        if (charged.toString() !== grant.cumulative) return { channel: { ...current, pendingRequest: undefined } };
        const base = depositView ? withChain(current, depositView) : current;
        const next: StoredChannel = {
          ...base,
          chargedCumulativeAmount: charged.toString(),
          signedMaxClaimable: grant.cumulative,
          signature: grant.voucherSignature,
          lastRequestTimestamp: now.getTime(),
          pendingRequest: undefined,
          committedBy: grant.pendingId,
        };
        committed = next;
        const sale: BatchSale = {
          saleId: `batch:${grant.channelId}:${grant.cumulative}`,
          lane: 'x402-batch',
          route: grant.call.route,
          path: grant.call.path,
          amount: grant.amount,
          asset: getAddress(grant.requirements.asset),
          network: grant.requirements.network,
          payTo: getAddress(grant.requirements.payTo),
          payer: grant.payer.toLowerCase(),
          transaction: '',
          settledAt: now.toISOString(),
          requestId: grant.call.requestId,
          extra: { channel_id: grant.channelId, cumulative_amount: grant.cumulative },
        };
        const body = answerOf ? keptAnswer(answerOf(receiptOf(grant, next, grant.deposited))) : undefined;
        return {
          channel: next,
          sales: [sale],
          ...(body ? { answer: { channelId: grant.channelId, cumulative: grant.cumulative, path: grant.call.path, body } } : {}),
        };
      },
      grant.reserved,
    );
    return committed;
  };

  /**
   * The call delivered data: the voucher counts and its sale is booked (a deposit goes on chain
   * first). A write whose acknowledgement is lost may have landed: the commit is retried (it is
   * idempotent) while the request has time, and when the store still does not answer the outcome
   * is pending (503 "may have been charged"), never "nothing charged": the kept answer then goes
   * to the same voucher sent again. Never throws.
   * @param opts.answerOf the transport's answer for a receipt, kept for a re-sent voucher
   * @param opts.timeLeftMs the request's remaining time (default: the lane's own budget)
   */
  const outcomeUnknown: BatchRefusal = {
    ok: false,
    status: 503,
    reason: REASON.outcomeUnknown,
    message: 'the data store did not confirm this payment: it may have been charged; send the same request again (with the same voucher) to get its data',
  };

  const commit = async (grant: BatchGrant, opts: { answerOf?: AnswerOf; timeLeftMs?: () => number } = {}): Promise<CommitResult> => {
    if (grant.kind === 'deposit' && !grant.deposited) {
      // The deposit goes on chain only now, for a call that delivers: escrow is the buyer's money until vouchers are claimed.
      const asked = await ask(() => facilitator.settle(grant.payload, grant.requirements));
      if (!asked.ok || !asked.value.success) {
        await release(grant, 'deposit_failed').catch((err: unknown) =>
          log?.warn('batch lane: release after a failed deposit failed', { error: errorText(err) }),
        );
        return asked.ok ? refuse(asked.value.errorReason ?? 'deposit_failed', 'the deposit did not go through; nothing was charged') : asked.refusal;
      }
      grant.deposited = asked.value;
    }
    const depositView = grant.deposited
      ? chainViewFrom(grant.deposited.extra?.channelState as Record<string, unknown> | undefined, deps.now().getTime())
      : undefined;
    const started = Date.now();
    const timeLeft = opts.timeLeftMs ?? (() => COMMIT_BUDGET_MS - (Date.now() - started));
    for (let attempt = 0; ; attempt++) {
      try {
        const committed = await commitOnce(grant, depositView, opts.answerOf, attempt > 0);
        if (committed === 'unknown') return outcomeUnknown;
        if (!committed) {
          // The reservation expired and another request took the channel: this call is not paid, so its data must not go out.
          return refuse(REASON.busy, 'the reservation of this channel expired before the answer; nothing was charged');
        }
        return { ok: true, receipt: receiptOf(grant, committed, grant.deposited) };
      } catch (err) {
        log?.error('batch lane: commit not acknowledged by the store', { requestId: grant.call.requestId, attempt, error: errorText(err) });
        if (timeLeft() < COMMIT_RETRY_MARGIN_MS) return outcomeUnknown;
        await sleep(Math.min(1_000, 100 * 2 ** Math.min(attempt, 4)));
      }
    }
  };

  return {
    offer: (route: Pick<RouteDef, 'priceUsd' | 'summary' | 'mimeType'>, path: string) => offer(route, path, config),
    authorize,
    commit,
    release,
  };
};

/*
 * The lane as the payment core sees it (lane.ts `Lane`, registered in lanes.ts): the channel lane
 * above behind the charge step. A refusal carries the 402 with the lane's reason as its `error`
 * and, when the buyer can resynchronise, the corrective option (the channel's state) in place of
 * the offered one; a commit whose outcome is unknown is a 503 that says so.
 */

interface BatchLaneGrant extends Grant {
  lane: 'x402-batch';
  batch: BatchGrant;
  call: Pick<PaidCall, 'route' | 'resource' | 'timeLeftMs'>;
}

/** One channel lane per process (per store, facilitator and terms). */
const channelLanes = new WeakMap<BatchLaneConfig, BatchLane>();
const laneFor = (config: BatchLaneConfig, deps: PaymentDeps): BatchLane => {
  let lane = channelLanes.get(config);
  if (!lane) {
    const store = deps.stores['x402-batch'];
    if (!store) throw new Error('batch lane: no channel store in the payment services');
    lane = createBatchLane({ config, store, facilitator: deps.facilitator, now: deps.now, log: deps.log });
    channelLanes.set(config, lane);
  }
  return lane;
};

/** A commit whose outcome is not known: it may have been charged; the same voucher sent again gets the data. */
const coreOutcomeUnknown = (message: string) => new PaymentOutcomeUnknownError(message);

/** The core's receipt of a committed voucher. */
const coreReceiptOf = (r: SettleResponse, g: BatchLaneGrant): Receipt => ({
  settlement: { success: true, transaction: r.transaction, network: r.network, payer: r.payer ?? g.batch.payer, amount: r.amount, extra: r.extra },
});

/** The core's refusal of a channel-lane refusal. */
const coreRefusalOf = async (r: BatchRefusal, call: Pick<PaidCall, 'route' | 'resource'>, deps: PaymentDeps): Promise<Refusal> => {
  if (r.status === 502) return { error: new FacilitatorUnavailableError(r.message, { reason: 'facilitator_unavailable' }) };
  if (r.status === 503) return { error: coreOutcomeUnknown(r.message) };
  const required = await paymentRequiredFor(call, deps, r.reason);
  return {
    error: new PaymentError('INVALID_PAYMENT', r.message, { reason: r.reason }),
    required: r.requirements ? { ...required, accepts: required.accepts.map((a) => (a.scheme === 'batch-settlement' ? r.requirements! : a)) } : required,
  };
};

const coreAuthorize = async (credentials: Credentials, call: PaidCall, deps: PaymentDeps): Promise<ChargeOutcome> => {
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
  if (!result.ok) return { type: 'refused', refusal: await coreRefusalOf(result, call, deps) };
  const grant: BatchLaneGrant = {
    lane: 'x402-batch',
    callId: call.callId,
    batch: result.grant,
    call: { route: call.route, resource: call.resource, timeLeftMs: call.timeLeftMs },
  };
  return { type: 'granted', grant };
};

/** Never throws: anything unexpected after the handler answered is "may have been charged", never "nothing charged". */
const coreSettle = async (g: BatchLaneGrant, deps: PaymentDeps, answer?: AnswerToStore): Promise<SettleOutcome> => {
  try {
    const config = await batchLaneConfigOf(deps.facilitator, deps.config, deps.now);
    const lane = laneFor(config!, deps);
    const committed = await lane.commit(g.batch, {
      timeLeftMs: g.call.timeLeftMs,
      ...(answer ? { answerOf: (r: SettleResponse) => answer(coreReceiptOf(r, g)) } : {}),
    });
    if (!committed.ok) return { type: 'refused', refusal: await coreRefusalOf(committed, g.call, deps) };
    return { type: 'settled', receipt: coreReceiptOf(committed.receipt, g) };
  } catch (err) {
    deps.log.error('batch lane: settle failed unexpectedly', { requestId: g.batch.call.requestId, error: err instanceof Error ? err.message : String(err) });
    return {
      type: 'refused',
      refusal: {
        error: coreOutcomeUnknown(
          'the payment could not be confirmed: it may have been charged; send the same request again (with the same voucher) to get its data',
        ),
      },
    };
  }
};

const coreRelease = async (g: BatchLaneGrant, why: ReleaseReason, deps: PaymentDeps): Promise<{ budget?: undefined }> => {
  const reason = releaseReasonText(why);
  try {
    const config = await batchLaneConfigOf(deps.facilitator, deps.config, deps.now);
    await laneFor(config!, deps).release(g.batch, reason);
  } catch (err) {
    // The reservation expires on its own (reservationTtlMs): nothing is charged either way.
    deps.log.error('batch lane: release failed', { requestId: g.batch.call.requestId, reason, error: err instanceof Error ? err.message : String(err) });
  }
  return {};
};

const batchLane: Lane<BatchLaneGrant> = { id: 'x402-batch', scheme: 'batch-settlement', authorize: coreAuthorize, settle: coreSettle, release: coreRelease };

/** The channel snapshot a response (and a corrective 402) carries. */
interface ChannelStateExtra {
  channelId: string;
  balance: string;
  totalClaimed: string;
  withdrawRequestedAt: number;
  refundNonce: string;
  chargedCumulativeAmount: string;
}

type BatchLane = ReturnType<typeof createBatchLane>;

export { batchLane, createBatchLane, offer, REASON as BATCH_REASON };
export type {
  AnswerOf,
  BatchLane,
  BatchLaneGrant,
  BatchLaneDeps,
  BatchGrant,
  BatchRefusal,
  BatchReplay,
  BatchCallContext,
  BatchPaymentOption,
  AuthorizeResult,
  CommitResult,
  ChannelStateExtra,
};
