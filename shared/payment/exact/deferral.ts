/**
 * Deferred settlement of the exact lane: a cheap call answers once /verify passed and its claim is
 * durable, and is settled after, off the request path (deferred-worker.ts); the seller's risk is
 * bounded per payer. The policy, per deployment (X402_DEFER_*, stated in /.well-known/x402.json):
 *
 *   price <= maxPrice (0.05 USD)                      and
 *   the authorization leaves the worker MIN_SETTLE_WINDOW_S before validBefore   and
 *   the payer's unsettled deferred calls stay <= maxCalls and <= maxOutstanding (0.25 USD) with this one and
 *   no deferred settlement of the payer ever failed
 *     -> DEFERRED: the data leaves with PAYMENT-RESPONSE { success: false, errorReason: 'settlement_pending' }
 *   otherwise -> settle first (settle.ts), as before.
 *
 * The caps and the refusal are checked by the store in the same transaction that defers the claim,
 * so two processes cannot both take the last room.
 */
import type { Config } from '../../config';
import { usdToAtomic } from '../../routes/pricing';
import type { AnswerToStore, PaymentDeps, Settlement, SettleOutcome } from '../lane';
import type { DeferralCaps } from './deferred-store';
import { nowSeconds, type ExactGrant } from './grant';
import { keptAnswer } from './kept-answer';
import { message } from './refusals';

/**
 * Seconds an authorization must still be valid for its settlement to be deferred: the worker settles
 * within a few seconds (one pass plus two blocks), and the facilitator refuses to settle with less
 * than 6 s left; the rest is margin for retries.
 */
const MIN_SETTLE_WINDOW_S = 30;

interface DeferralPolicy extends DeferralCaps {
  /** Highest price (USDC atomic units) whose settlement is deferred; 0n: never. */
  maxPrice: bigint;
}

const deferralPolicyOf = (config: Pick<Config, 'X402_DEFER_MAX_USD' | 'X402_DEFER_OUTSTANDING_USD' | 'X402_DEFER_MAX_CALLS'>): DeferralPolicy => ({
  maxPrice: BigInt(usdToAtomic(config.X402_DEFER_MAX_USD)),
  maxOutstanding: BigInt(usdToAtomic(config.X402_DEFER_OUTSTANDING_USD)),
  maxCalls: config.X402_DEFER_MAX_CALLS,
});

/** Whether a call may be deferred by its own terms (the payer's account is the store's to judge). */
const mayDefer = (policy: DeferralPolicy, amount: bigint, validBefore: number, nowS: number): boolean =>
  policy.maxPrice > 0n && amount <= policy.maxPrice && amount <= policy.maxOutstanding && policy.maxCalls > 0 && validBefore - nowS >= MIN_SETTLE_WINDOW_S;

/** The two sentences of the policy, for buyers and sellers (x402.json, llms.txt, README). */
const DEFERRAL_POLICY_TEXT =
  'Exact payments for routes priced at or below deferred_up_to_usd are answered as soon as the facilitator has verified them and are settled on chain right after (PAYMENT-RESPONSE success false, errorReason settlement_pending, extra.status the free URL that shows the transaction); dearer routes, a payer over its unsettled caps, and a payer whose deferred settlement ever failed are settled before the data leaves. ' +
  'A deferred payment is still charged once and only with its data; a payer who moves its funds before settlement is refused deferral from then on, and the seller books the call as a deferred_loss.';

/** What /.well-known/x402.json states of the policy of this deployment. */
const deferralTerms = (config: Parameters<typeof deferralPolicyOf>[0], routes: ReadonlyArray<{ id: string; priceUsd: string | null }>) => {
  const policy = deferralPolicyOf(config);
  return {
    deferred_up_to_usd: config.X402_DEFER_MAX_USD,
    max_outstanding_usd_per_payer: config.X402_DEFER_OUTSTANDING_USD,
    max_unsettled_calls_per_payer: config.X402_DEFER_MAX_CALLS,
    deferred_routes: routes
      .filter((r) => r.priceUsd !== null && mayDefer(policy, BigInt(usdToAtomic(r.priceUsd)), Number.MAX_SAFE_INTEGER, 0))
      .map((r) => r.id),
    status_url: '/v1/payments/{payer}-{nonce}',
    policy: DEFERRAL_POLICY_TEXT,
  };
};

/** The id of an exact payment in GET /v1/payments/{id}: `<payer>-<nonce>`, lower-case hex. */
const paymentStatusId = (key: { payer: string; nonce: string }): string => `${key.payer.toLowerCase()}-${key.nonce.toLowerCase()}`;

/**
 * The PAYMENT-RESPONSE of a deferred call: x402 core's own form of a settlement not confirmed yet
 * (`success: false`, `errorReason: 'settlement_pending'`, as x402ResourceServer reports a broadcast
 * still waiting), with where to watch it. The official clients decode it without judging it.
 */
const pendingSettlement = (g: ExactGrant): Settlement => ({
  success: false,
  errorReason: 'settlement_pending',
  transaction: '',
  network: g.network,
  payer: g.payer,
  extra: { settlement: 'deferred', status: `/v1/payments/${paymentStatusId(g.key)}` },
});

/** Left over after the deferral write, for the answer. */
const DEFER_MARGIN_MS = 1_000;

/**
 * Defers the settlement of a granted call when the policy and the payer's account allow it.
 * @returns the settled outcome to answer with (data now, settlement pending), or null to settle first
 */
const tryDefer = async (g: ExactGrant, deps: PaymentDeps, answer?: AnswerToStore): Promise<SettleOutcome | null> => {
  const store = deps.stores['x402-exact'].deferred;
  if (!store || g.mode !== 'settle') return null;
  const policy = deferralPolicyOf(deps.config);
  if (!mayDefer(policy, BigInt(g.amount), g.validBefore, Number(nowSeconds(deps.now())))) return null;
  const receipt = { settlement: pendingSettlement(g) };
  const kept = g.paymentId && answer ? keptAnswer(answer, receipt, deps.now().toISOString()) : undefined;
  const who = { requestId: g.requestId, payer: g.payer, nonce: g.key.nonce, route: g.route };
  // The write is idempotent (a retry finds its own DEFERRED claim): retried while the request has time.
  for (let attempt = 0; ; attempt++) {
    try {
      const r = await store.defer(g.key, g.callId, g.amount, policy, kept && g.paymentId ? { paymentId: g.paymentId, answer: kept } : undefined);
      if (!r.deferred) {
        deps.log.info('x402 settlement not deferred: settling first', { ...who, why: r.why });
        return null;
      }
      deps.log.info('x402 settlement deferred', { ...who, amount: g.amount });
      return { type: 'settled', receipt };
    } catch (err) {
      deps.log.error('payment ledger: deferral write failed', { ...who, attempt, error: message(err) });
      if (g.timeLeftMs() < DEFER_MARGIN_MS + deps.config.X402_FACILITATOR_TIMEOUT_MS) {
        // Unconfirmed, and no time left to settle first: the claim is DEFERRED (a write landed, its
        // answer lost: the worker settles it, and a retry of the header would find it used) or still
        // CLAIMED (nothing landed: nobody settles it). The data leave either way, so the buyer is
        // never charged without them; the seller risks this one call's price, and only when the store
        // failed between this request's claim and its deferral (a new call cannot claim then).
        deps.log.error('x402 deferral unconfirmed: answered; settled by the worker if the write landed, else not charged', {
          ...who,
          amount: g.amount,
        });
        return { type: 'settled', receipt };
      }
    }
  }
};

export { deferralTerms, tryDefer };
export type { DeferralPolicy };
