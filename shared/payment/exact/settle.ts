/**
 * The exact lane's last step, after a charged answer: deferred (deferral.ts: answer now, the
 * settle worker settles after), or settle first:
 *   /settle -> settled: one conditional write closes the claim as its sale (and stores the answer
 *   under its payment id) -> the data with PAYMENT-RESPONSE.
 *
 * The first rule of money: a settlement is failed only when the facilitator refused before sending
 * anything; every other outcome is pending (504, the same header retried later gets the data). The
 * claim is watched from its first write until the chain settles the question (ledger.ts), so a lost
 * answer of the chain, the facilitator or the store never charges a buyer without data.
 */
import { PaymentError, ServiceUnavailableError } from '../../errors/errors';
import { classifyFacilitatorError, isSettledBeforeSending, isSettlementPending, reasonFromFacilitator, type FacilitatorClient } from '../facilitator';
import { releaseReasonText, type AnswerToStore, type PaymentDeps, type ReleaseReason, type SettleOutcome } from '../lane';
import { paymentRequiredFor } from '../payment-required';
import type { SaleRecord } from '../sales';
import { tryDefer } from './deferral';
import { settlementOf, type ExactGrant } from './grant';
import { keptAnswer } from './kept-answer';
import { bestEffort, facilitatorDown, message, pendingOutcome } from './refusals';

/** Left over after the settle call's own timeout, for the settlement write and the answer. */
const SETTLE_MARGIN_MS = 1_000;

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
  // A cheap call within its payer's caps answers now and is settled off the request path.
  const deferred = await tryDefer(g, deps, answer);
  if (deferred) return deferred;

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

const release = async (g: ExactGrant, why: ReleaseReason, deps: PaymentDeps): Promise<{ budget?: undefined }> => {
  const reason = releaseReasonText(why);
  const who = { requestId: g.requestId, payer: g.payer, nonce: g.key.nonce, reason };
  if (g.mode === 'redeliver') await bestEffort(deps, 'return delivery', () => deps.ledger.returnDelivery(g.key, g.callId), who);
  else await bestEffort(deps, 'release', () => deps.ledger.release(g.key, g.callId, reason), who);
  return {};
};

export { release, settle };
