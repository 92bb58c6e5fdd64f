/**
 * The x402 `exact` lane: one EIP-3009 USDC authorization pays one call, settled on chain by the
 * facilitator before the data leaves.
 *
 * authorize, all before any data is read:
 *   parse -> terms (scheme, network, asset, pay-to, exact amount, window, signature form)
 *   -> [ /verify  ||  payment id (bound once) -> claim (payer, nonce) once ]
 *   (independent: overlapped; with a payment id /verify waits for its binding, so a replay costs none)
 *   /verify says who signed, as in x402's reference server; data owed to an earlier payment (no
 *   /verify) leaves only after the signer is recovered here.
 * settle, after a charged answer:
 *   /settle -> settled: one conditional write closes the claim as its sale (and stores the answer
 *   under its payment id) -> the data with PAYMENT-RESPONSE.
 *
 * The first rule of money: a settlement is failed only when the facilitator refused before sending
 * anything; every other outcome is pending (504, the same header retried later gets the data). The
 * claim is watched from its first write until the chain settles the question (ledger.ts), so a lost
 * answer of the chain, the facilitator or the store never charges a buyer without data.
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { Address } from 'viem';
import { getAddress, isAddressEqual } from './evm/address';
import { Semaphore } from '../concurrency/semaphore';
import type { X402Network } from '../config';
import { PaymentError, ServiceUnavailableError, type HttpError } from '../errors/errors';
import type { RouteDef } from '../routes/table';
import { usdcFor } from './assets';
import { paymentOption, requirementsOf, type PaymentOption } from './challenge';
import { paymentRequiredFor } from './payment-required';
import { checkSignature, checkSignatureForm, checkTerms, type ExpectedPayment } from './checks';
import { FacilitatorUnavailableError, PaymentIdConflictError, PaymentInProgressError, SettlementPendingError } from './errors';
import { classifyFacilitatorError, isSettledBeforeSending, isSettlementPending, reasonFromFacilitator, type FacilitatorClient } from './facilitator';
import type { AnswerToStore, ChargeOutcome, Credentials, Grant, Lane, PaidCall, PaymentDeps, Refusal, Settlement, SettleOutcome } from './lane';
import { CLAIM_LIFETIME_MS, REPLAY_WINDOW_MS, type ClaimKey, type ClaimRecord, type PaymentIdBinding } from './ledger';
import { parsePaymentPayload, type DecodedPayment, type PaymentRefusal } from './payload';
import { paymentIdOf } from './payment-id';
import type { SaleRecord } from './sales';

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
  /** The settlement transaction (redeliveries). */
  transaction?: string;
  timeLeftMs: () => number;
}

/** Largest stored answer (gzip): a credit-table item holds 400 KB with its keys. */
const MAX_STORED_ANSWER_BYTES = 350_000;

/** The answer kept for replays under a payment id, compressed; undefined when it cannot be kept. */
const keptAnswer = (answer: AnswerToStore, receipt: Parameters<AnswerToStore>[0], settledAt: string): { data: Uint8Array; settledAt: string } | undefined => {
  const data = gzipSync(answer(receipt));
  return data.byteLength <= MAX_STORED_ANSWER_BYTES ? { data, settledAt } : undefined;
};

/** Left over after the settle call's own timeout, for the settlement write and the answer. */
const SETTLE_MARGIN_MS = 1_000;
/** When a retry of a pending settlement may succeed: the reconciler runs every minute (api-stack). */
const PENDING_RETRY_AFTER_S = 60;
/** Payments of one payer this process verifies at once; more are claimed first and wait their turn. */
const MAX_VERIFIES_PER_PAYER = 8;

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

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Runs a ledger write whose failure must not change what the payer gets (the claim stays watched). */
const bestEffort = async (deps: PaymentDeps, what: string, fn: () => Promise<unknown>, extra: Record<string, unknown>): Promise<void> => {
  try {
    await fn();
  } catch (err) {
    deps.log.error(`payment ledger: ${what} failed`, { ...extra, error: message(err) });
  }
};

/** A refusal that carries a fresh challenge (error = the reason), so a client can pay again correctly. */
const invalidPayment = async (call: PaidCall, deps: PaymentDeps, refusal: Omit<PaymentRefusal, 'ok'>): Promise<ChargeOutcome> => ({
  type: 'refused',
  refusal: {
    error: new PaymentError('INVALID_PAYMENT', refusal.message, { reason: refusal.reason, ...refusal.details }),
    required: await paymentRequiredFor(call, deps, refusal.reason),
  },
});

const refused = (error: HttpError, extra: Omit<Refusal, 'error'> = {}): ChargeOutcome => ({ type: 'refused', refusal: { error, ...extra } });

/** A store failure is a retryable 503, not a payment verdict. */
const ledgerUnavailable = (): HttpError =>
  new ServiceUnavailableError('PAYMENT_LEDGER_UNAVAILABLE', 'the payment ledger is unavailable; nothing was charged, retry shortly');

/** 504: maybe submitted, outcome unknown; the same header is retried once reconciliation has run. */
const pending = (transaction: string): HttpError =>
  new SettlementPendingError('the settlement of this payment is not confirmed yet; retry the same request with the same payment header later', {
    reason: 'settlement_pending',
    transaction: transaction || null,
    retry_after_seconds: PENDING_RETRY_AFTER_S,
  });

const facilitatorDown = (timeout: boolean): HttpError =>
  new FacilitatorUnavailableError(
    timeout
      ? 'the payment facilitator did not answer in time; nothing was charged, retry shortly'
      : 'the payment facilitator is unavailable; nothing was charged, retry shortly',
    { reason: timeout ? 'facilitator_timeout' : 'facilitator_unavailable' },
  );

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

/** Payer -> its verifications in flight here (dropped when idle). */
const slots = new Map<string, Semaphore>();

/** Whether a slot of the payer is free now (the claim and /verify can then run at once). */
const slotFree = (payer: string): boolean => slots.get(payer)?.free ?? true;

/** Runs `fn` in one of the payer's verify slots, waiting for one to free up. */
const withVerifySlot = async <T>(payer: string, fn: () => Promise<T>): Promise<T> => {
  let s = slots.get(payer);
  if (!s) {
    s = new Semaphore(MAX_VERIFIES_PER_PAYER);
    slots.set(payer, s);
  }
  try {
    return await s.run(fn);
  } finally {
    if (s.idle) slots.delete(payer);
  }
};

/**
 * Gives a just-started fetch the event-loop turns it needs to write its request (undici takes two
 * on a kept-alive connection, measured), so that the CPU work that follows overlaps the call instead of
 * delaying its start. On a new connection the overlap is partial, never wrong.
 */
const letRequestLeave = async (): Promise<void> => {
  for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
};

type Verdict = Awaited<ReturnType<FacilitatorClient['verify']>> | { thrown: unknown };

const authorize = async (credentials: Credentials, call: PaidCall, deps: PaymentDeps): Promise<ChargeOutcome> => {
  if (credentials.kind !== 'x402') throw new Error('exact lane: not an x402 payment');
  const { config } = deps;
  const decoded = parsePaymentPayload(credentials.payload);
  if (!decoded.ok) return invalidPayment(call, deps, decoded);
  const { option, expected } = expectedFor(call.route, call.resource, config);
  // v1 payloads carry no extensions, so no payment id.
  const paymentId = paymentIdOf(decoded.envelope.x402Version === 2 ? (decoded.envelope.extensions ?? undefined) : undefined);
  if (!paymentId.ok) {
    return invalidPayment(call, deps, {
      reason: 'invalid_payment_identifier',
      message: 'the payment-identifier extension is malformed',
      details: { issues: paymentId.issues },
    });
  }
  const nowS = nowSeconds(deps.now());
  const terms = checkTerms(decoded, expected, nowS);
  // An expired authorization is still a retry the ledger may owe data for (a 504 asked the buyer to
  // retry the same header later): its terms must hold at the time it was signed.
  const expired = terms?.reason === 'authorization_expired';
  if (terms && !(expired && checkTerms(decoded, expected, signedAt(decoded)) === null)) return invalidPayment(call, deps, terms);

  const payer = getAddress(decoded.authorization.from);
  const key: ClaimKey = { payer: payer.toLowerCase(), nonce: decoded.authorization.nonce.toLowerCase() };
  const requirements = requirementsOf(option);
  const grant: ExactGrant = {
    lane: 'x402-exact',
    mode: 'settle',
    callId: call.callId,
    key,
    route: call.route.id,
    path: call.resource.path,
    requestId: call.requestId,
    call: { route: call.route, resource: call.resource },
    payer,
    amount: option.amount,
    network: config.X402_NETWORK,
    asset: expected.asset.address,
    payTo: expected.payTo,
    facilitatorPayload: facilitatorPayloadOf(decoded, requirements, call.route, call.resource.url),
    requirements,
    paymentId: paymentId.id,
    timeLeftMs: call.timeLeftMs,
  };

  // /verify is the slowest step before the data and depends on nothing of ours: it starts first, and
  // the payment id and the claim are written while the facilitator works. /verify also says who
  // signed: recovering the signer here as well (about 2 ms of CPU) would only repeat it, and it
  // cost the paid call 4-7 ms where the facilitator shares the machine. A forged signature therefore
  // costs what a valid one from a fresh unfunded key (which anyone can make) costs: one facilitator
  // call and a claim that /verify's refusal releases. Holding a stranger's nonce that long needs
  // the nonce, that is, the buyer's own header, which could be spent outright. A payer with
  // MAX_VERIFIES_PER_PAYER verifications in flight here is claimed first and then waits for a slot,
  // so copies and floods cost no facilitator call.
  const verifyCall = () => deps.facilitator.verify(grant.facilitatorPayload, requirements).catch((thrown: unknown): Verdict => ({ thrown }));
  const startVerify = () => (slotFree(key.payer) ? withVerifySlot(key.payer, verifyCall) : undefined);
  // With a payment id, its binding decides first: a replay costs no facilitator call.
  let early = !expired && paymentId.id === null ? startVerify() : undefined;
  if (early) await letRequestLeave();

  const form = checkSignatureForm(decoded);
  if (form) return invalidPayment(call, deps, form);
  const signedByPayer = () => checkSignature(decoded, expected.asset);

  // A payment id binds to one payload and one path, once: the same id again is a retry of that
  // payment (its first answer again, no second charge); with anything else it is a conflict.
  let binding: PaymentIdBinding | null = null;
  if (paymentId.id !== null) {
    const use = { nonce: key.nonce, digest: payloadDigest(decoded), path: call.resource.path };
    try {
      binding = await deps.ledger.bindPaymentId(key.payer, paymentId.id, use);
    } catch (err) {
      deps.log.error('payment ledger: bind payment id failed', { requestId: call.requestId, error: message(err) });
      return refused(ledgerUnavailable());
    }
    if (binding && (binding.nonce !== use.nonce || binding.digest !== use.digest || binding.path !== use.path)) {
      return refused(
        new PaymentIdConflictError('this payment id was already used with another payment or for another resource; use a new id', {
          reason: 'payment_id_conflict',
          payment_id: paymentId.id,
        }),
      );
    }
    if (binding?.answer && deps.now().getTime() - Date.parse(binding.answer.settledAt) <= REPLAY_WINDOW_MS) {
      deps.log.info('x402 payment replayed (payment id)', { requestId: call.requestId, payer, nonce: key.nonce });
      return { type: 'replay', answer: gunzipSync(binding.answer.data) };
    }
  }

  if (expired) {
    // Nothing new is claimed or verified for an expired authorization: only what is owed is served.
    let existing: ClaimRecord | null;
    try {
      existing = await deps.ledger.get(key);
    } catch (err) {
      deps.log.error('payment ledger: read failed', { requestId: call.requestId, error: message(err) });
      return refused(ledgerUnavailable());
    }
    const owed = existing?.state === 'PENDING' || existing?.state === 'CLAIMED' || (existing?.state === 'SETTLED' && existing.delivered === false);
    return owed ? onClaimConflict(existing, grant, call, deps, binding !== null, signedByPayer) : invalidPayment(call, deps, terms!);
  }

  const newClaim = {
    ...key,
    claimId: call.callId,
    route: call.route.id,
    path: call.resource.path,
    network: config.X402_NETWORK,
    asset: expected.asset.address,
    payTo: expected.payTo,
    amount: option.amount,
    validBefore: Number(decoded.authorization.validBefore),
    claimedAt: deps.now().toISOString(),
    // What the reconciler sends to /settle again, if it must. Without the payload's extensions (the
    // bazaar's schemas are two thirds of it): a claim is written twice, and DynamoDB bills by item size.
    payload: JSON.stringify(withoutExtensions(grant.facilitatorPayload)),
  };
  early ??= startVerify();
  // /verify's verdict counts only if the claim is ours (a proof is served once, even when fifty copies
  // arrive on different Lambdas).
  const claimed = await deps.ledger.claim(newClaim).catch((thrown: unknown) => ({ thrown }) as const);
  if ('thrown' in claimed) {
    deps.log.error('payment ledger: claim failed', { requestId: call.requestId, error: message(claimed.thrown) });
    return refused(ledgerUnavailable());
  }
  // A store retry of our own successful write also reads as a conflict: the claim is ours.
  const ours = !claimed.ok && claimed.existing?.state === 'CLAIMED' && claimed.existing.claimId === call.callId;
  if (!claimed.ok && !ours) return onClaimConflict(claimed.existing, grant, call, deps, binding !== null, signedByPayer);
  const verdict = await (early ?? withVerifySlot(key.payer, verifyCall));

  const release = (reason: string) => bestEffort(deps, 'release', () => deps.ledger.release(key, call.callId, reason), { requestId: call.requestId });
  if ('thrown' in verdict) {
    await release('facilitator_verify_failed');
    const failure = classifyFacilitatorError(verdict.thrown);
    if (failure.kind === 'verdict') {
      const reason = reasonFromFacilitator(failure.reason, 'payment_rejected_by_facilitator');
      return invalidPayment(call, deps, { reason, message: 'the facilitator refused the payment', details: { facilitator_reason: failure.reason ?? null } });
    }
    deps.log.warn('x402 facilitator verify failed', { requestId: call.requestId, failure });
    return refused(facilitatorDown(failure.kind === 'unknown' && failure.timeout));
  }
  if (!verdict.isValid) {
    await release(`verify_refused:${verdict.invalidReason ?? 'unknown'}`);
    const reason = reasonFromFacilitator(verdict.invalidReason, 'payment_rejected_by_facilitator');
    return invalidPayment(call, deps, {
      reason,
      message: 'the facilitator refused the payment',
      details: { facilitator_reason: verdict.invalidReason ?? null },
    });
  }
  if (!verdict.payer || !sameAddress(verdict.payer, payer)) {
    await release('payer_mismatch');
    return invalidPayment(call, deps, { reason: 'payer_mismatch', message: 'the facilitator verified a different payer than the signer' });
  }
  return { type: 'granted', grant };
};

/** When an expired authorization was signed, for judging its terms: a minute before it expired (x402 clients sign now + maxTimeoutSeconds). */
const signedAt = (p: DecodedPayment): bigint => {
  const at = p.authorization.validBefore - 60n;
  return at < p.authorization.validAfter ? p.authorization.validAfter : at;
};

/** A proof that is already claimed: data still owed, a settlement still pending, or a replay. */
const onClaimConflict = async (
  existing: ClaimRecord | null,
  grant: ExactGrant,
  call: PaidCall,
  deps: PaymentDeps,
  idempotentRetry: boolean,
  signature: () => PaymentRefusal | null,
): Promise<ChargeOutcome> => {
  if (existing && existing.path !== grant.path) {
    // Bound to what it was first presented for, whatever the payload names (v1 payloads name nothing).
    return invalidPayment(call, deps, {
      reason: 'proof_bound_to_other_resource',
      message: 'this payment authorization was presented for another resource first; sign a new one for this one',
    });
  }
  if (existing?.state === 'SETTLED' && existing.delivered === false) {
    // These data leave without a /verify: a payload that merely names the payer and nonce takes nothing.
    const forged = signature();
    if (forged) return invalidPayment(call, deps, forged);
    let taken: boolean;
    try {
      taken = await deps.ledger.takeDelivery(grant.key, call.callId);
    } catch (err) {
      deps.log.error('payment ledger: take delivery failed', { requestId: call.requestId, error: message(err) });
      return refused(ledgerUnavailable());
    }
    // Paid on chain (found by reconciliation) but never answered: this retry gets the data.
    if (taken) {
      const redeliver: ExactGrant = { ...grant, mode: 'redeliver', transaction: existing.transaction ?? '' };
      return { type: 'granted', grant: redeliver };
    }
  }
  const fresh = existing !== null && Date.parse(existing.updatedAt) > deps.now().getTime() - CLAIM_LIFETIME_MS;
  // Held by a call that may still be running: its outcome decides. Never "sign anew": the money may be moving.
  if (existing?.state === 'CLAIMED' && fresh) {
    return refused(
      new PaymentInProgressError(
        idempotentRetry
          ? 'this payment is being settled by an earlier request with the same payment id; retry shortly for its answer'
          : 'this payment is being settled by another request; retry the same request shortly',
        { reason: 'payment_in_progress' },
      ),
    );
  }
  // Maybe submitted, no outcome recorded: reconciliation settles it from the chain, and the same
  // header then gets the data if it is owed.
  if (existing?.state === 'PENDING' || existing?.state === 'CLAIMED') {
    return refused(pending(existing.transaction ?? ''), { settlement: { ...settlementOf(grant, existing.transaction ?? '', false) } });
  }
  if (existing?.state === 'SETTLED' && existing.delivered === true && idempotentRetry) {
    // Delivered, but its answer was not kept (larger than an item, or its write failed): not replayable.
    return refused(
      new PaymentIdConflictError('this payment was delivered and its answer cannot be replayed; pay again with a new payment id', {
        reason: 'answer_not_kept',
      }),
    );
  }
  if (existing?.state === 'UNPAID') {
    return invalidPayment(call, deps, { reason: 'authorization_expired', message: 'this authorization expired unused; nothing was charged, sign a new one' });
  }
  return invalidPayment(call, deps, {
    reason: 'nonce_already_used',
    message: 'this payment authorization was already used; sign a new one',
    details: { state: existing?.state ?? 'unknown' },
  });
};

/** The settlement write failed or lost its claim: the money may have moved, so no data now; retry later. */
const pendingOutcome = (g: ExactGrant, transaction: string): SettleOutcome => ({
  type: 'refused',
  refusal: { error: pending(transaction), settlement: settlementOf(g, transaction, false) },
});

const settle = async (g: ExactGrant, deps: PaymentDeps, answer?: AnswerToStore): Promise<SettleOutcome> => {
  const who = { requestId: g.requestId, payer: g.payer, nonce: g.key.nonce, route: g.route };
  if (g.mode === 'redeliver') {
    deps.log.info('x402 payment redelivered', { ...who, transaction: g.transaction });
    const receipt = { settlement: settlementOf(g, g.transaction ?? '') };
    if (g.paymentId && answer) {
      const kept = keptAnswer(answer, receipt, deps.now().toISOString());
      if (kept) await bestEffort(deps, 'store answer', () => deps.ledger.storeAnswer(g.key.payer, g.paymentId!, g.key.nonce, kept), who);
    }
    return { type: 'settled', receipt };
  }

  // Never start a settlement that cannot finish before the answer is due (the payer would be
  // charged with nobody left to deliver to): give the payment back instead.
  const settleTime = deps.config.X402_FACILITATOR_TIMEOUT_MS + SETTLE_MARGIN_MS;
  if (g.timeLeftMs() < settleTime) {
    await bestEffort(deps, 'release', () => deps.ledger.release(g.key, g.callId, 'out_of_time_before_settle'), who);
    deps.log.warn('x402 settle skipped: out of time', { ...who, timeLeftMs: g.timeLeftMs() });
    return {
      type: 'refused',
      refusal: {
        error: new ServiceUnavailableError(
          'PAYMENT_NOT_SETTLED',
          'the request ran out of time before its payment could be settled; nothing was charged, retry the same request',
          { reason: 'out_of_time' },
        ),
      },
    };
  }

  let result: Awaited<ReturnType<FacilitatorClient['settle']>>;
  let retried = false;
  try {
    result = await deps.facilitator.settle(g.facilitatorPayload, g.requirements);
    // Like x402ResourceServer: one retry lets the facilitator reconcile a broadcast it is still
    // waiting on, but only if it still fits before API Gateway (29 s) and Lambda give up.
    if (isSettlementPending(result) && g.timeLeftMs() >= settleTime) {
      retried = true;
      result = await deps.facilitator.settle(g.facilitatorPayload, g.requirements);
    }
  } catch (err) {
    const failure = classifyFacilitatorError(err);
    if (failure.kind === 'not_sent' && !retried) {
      // Nothing reached the facilitator: nothing can have been submitted. The claim stays watched.
      await bestEffort(deps, 'release', () => deps.ledger.release(g.key, g.callId, 'facilitator_unreachable_at_settle'), who);
      deps.log.warn('x402 settle not sent', { ...who, failure });
      return { type: 'refused', refusal: { error: facilitatorDown(false) } };
    }
    const reason =
      failure.kind === 'verdict'
        ? (failure.reason ?? 'settle_refused')
        : failure.kind === 'unknown' && failure.timeout
          ? 'facilitator_timeout'
          : 'facilitator_error';
    const transaction = failure.kind === 'verdict' ? (failure.transaction ?? '') : '';
    if (failure.kind === 'verdict' && !retried && isSettledBeforeSending({ success: false, errorReason: failure.reason, transaction })) {
      return settleFailed(g, deps, { transaction, reason });
    }
    return settlePending(g, deps, { transaction, reason });
  }

  if (result.success) {
    const sale: SaleRecord = {
      lane: 'x402-exact',
      saleId: `${g.key.payer}#${g.key.nonce}`,
      payer: g.key.payer,
      nonce: g.key.nonce,
      amount: g.amount,
      asset: g.asset,
      network: g.network,
      payTo: g.payTo,
      route: g.route,
      path: g.path,
      transaction: result.transaction,
      settledAt: deps.now().toISOString(),
      requestId: g.requestId,
    };
    const receipt = { settlement: settlementOf(g, result.transaction) };
    const stored = g.paymentId && answer ? keptAnswer(answer, receipt, sale.settledAt) : undefined;
    // The data leaves only once the settlement is durable: a buyer who gets it cannot get it again
    // by retrying, and one who does not is owed it (the claim stays watched, the reconciler books
    // the sale from the chain, the same header then gets the data).
    const written = await writeSettlement(g, deps, sale, stored, settleTime - deps.config.X402_FACILITATOR_TIMEOUT_MS);
    if (written !== 'recorded') {
      deps.log.error('x402 settled on chain but not recorded: no data until reconciliation', { ...who, transaction: result.transaction });
      return pendingOutcome(g, result.transaction);
    }
    deps.log.info('x402 payment settled', { ...who, amount: g.amount, transaction: result.transaction });
    return { type: 'settled', receipt };
  }
  if (!retried && isSettledBeforeSending(result))
    return settleFailed(g, deps, { transaction: result.transaction, reason: result.errorReason ?? 'settle_refused' });
  return settlePending(g, deps, { transaction: result.transaction, reason: result.errorReason ?? 'settlement_pending' });
};

/**
 * Writes the settlement, retrying an unacknowledged write (the write is idempotent) while the
 * request still has time; 'lost' when it could not be confirmed.
 */
const writeSettlement = async (
  g: ExactGrant,
  deps: PaymentDeps,
  sale: SaleRecord,
  answer: { data: Uint8Array; settledAt: string } | undefined,
  marginMs: number,
): Promise<'recorded' | 'lost'> => {
  for (let attempt = 0; ; attempt++) {
    try {
      return await deps.ledger.settle(g.key, g.callId, { sale, ...(g.paymentId && answer ? { paymentId: g.paymentId, answer } : {}) });
    } catch (err) {
      deps.log.error('payment ledger: settlement write failed', { requestId: g.requestId, attempt, error: message(err) });
      if (g.timeLeftMs() < marginMs) return 'lost';
    }
  }
};

/** Refused before anything was sent: nothing moved, no data. The claim stays watched until it expires. */
const settleFailed = async (g: ExactGrant, deps: PaymentDeps, f: { transaction: string; reason: string }): Promise<SettleOutcome> => {
  await bestEffort(deps, 'mark failed', () => deps.ledger.markFailed(g.key, g.callId, f), { requestId: g.requestId, payer: g.payer });
  deps.log.warn('x402 settlement refused', { requestId: g.requestId, payer: g.payer, nonce: g.key.nonce, reason: f.reason });
  return {
    type: 'refused',
    refusal: {
      error: new PaymentError('INVALID_PAYMENT', 'the payment could not be settled; nothing was charged and no data was served', {
        reason: reasonFromFacilitator(f.reason, 'settlement_failed'),
        facilitator_reason: f.reason,
        stage: 'settlement',
      }),
      required: await paymentRequiredFor(g.call, deps, reasonFromFacilitator(f.reason, 'settlement_failed')),
      settlement: settlementOf(g, f.transaction, false),
    },
  };
};

/** Outcome unknown: PENDING, no data now; the reconciler resolves it and the same header then gets the data. */
const settlePending = async (g: ExactGrant, deps: PaymentDeps, p: { transaction: string; reason: string }): Promise<SettleOutcome> => {
  await bestEffort(deps, 'mark pending', () => deps.ledger.markPending(g.key, g.callId, p), { requestId: g.requestId, payer: g.payer });
  deps.log.warn('x402 settlement pending', { requestId: g.requestId, payer: g.payer, nonce: g.key.nonce, transaction: p.transaction, reason: p.reason });
  return pendingOutcome(g, p.transaction);
};

const release = async (g: ExactGrant, reason: string, deps: PaymentDeps): Promise<{ budget?: undefined }> => {
  const who = { requestId: g.requestId, payer: g.payer, nonce: g.key.nonce, reason };
  if (g.mode === 'redeliver') await bestEffort(deps, 'return delivery', () => deps.ledger.returnDelivery(g.key, g.callId), who);
  else await bestEffort(deps, 'release', () => deps.ledger.release(g.key, g.callId, reason), who);
  return {};
};

const exactLane: Lane<ExactGrant> = {
  id: 'x402-exact',
  scheme: 'exact',
  authorize,
  settle,
  release,
};

export { exactLane, MAX_VERIFIES_PER_PAYER };
export type { ExactGrant };
