/**
 * The exact lane's first step, all before any data is read:
 *   parse -> terms (scheme, network, asset, pay-to, exact amount, window, signature form)
 *   -> [ /verify  ||  payment id (bound once) -> claim (payer, nonce) once ]
 *   (independent: overlapped; with a payment id /verify waits for its binding, so a replay costs none)
 * /verify says who signed, as in x402's reference server; data owed to an earlier payment (no
 * /verify) leaves only after the signer is recovered here (claim.ts).
 */
import { gunzipSync } from 'node:zlib';
import { requirementsOf } from '../challenge';
import { checkSignature, checkSignatureForm, checkTerms } from '../checks';
import { PaymentIdConflictError } from '../errors';
import { classifyFacilitatorError, reasonFromFacilitator, type FacilitatorClient } from '../facilitator';
import type { ChargeOutcome, Credentials, PaidCall, PaymentDeps } from '../lane';
import { REPLAY_WINDOW_MS, type ClaimKey, type ClaimRecord, type PaymentIdBinding } from '../ledger';
import { parsePaymentPayload, type DecodedPayment } from '../payload';
import { paymentIdOf } from '../payment-id';
import { getAddress } from '../evm/address';
import { onClaimConflict } from './claim';
import { expectedFor, facilitatorPayloadOf, nowSeconds, payloadDigest, sameAddress, withoutExtensions, type ExactGrant } from './grant';
import { bestEffort, facilitatorDown, invalidPayment, ledgerUnavailable, message, refused } from './refusals';
import { slotFree, withVerifySlot } from './slots';

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
    validBefore: Number(decoded.authorization.validBefore),
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

export { authorize };
