/**
 * The framework-free payment core (STYLE.md convention 4). An adapter (the middy middleware,
 * or any other runtime) turns its request into an HttpRequestLike and asks:
 *
 *   processPayment(req, route, deps) -> {type: 'free'} | {type: 'verified', receipt} | {type: 'rejected', response}
 *
 * then runs the handler, and afterwards either settlePayment(receipt) (the answer is a success
 * that is charged) or releasePayment(receipt) (it failed or is free). Payment problems come
 * back as ready-made responses (402 challenge, 402 INVALID_PAYMENT, 502 facilitator down, 504
 * settlement pending), never as thrown errors; only infrastructure faults (the store) throw.
 *
 * x402 order of work (DESIGN.md "Request pipeline"), all before any data is read:
 *   decode -> local checks (scheme, network, asset, pay-to, exact amount, window, EIP-712
 *   signature) -> claim (payer, nonce) once in the credit table -> facilitator /verify.
 * After the handler: facilitator /settle, and only a confirmed settlement releases the data.
 *
 * The Pro-key lane (Authorization: Bearer, shared/pro) is decided first: a key wins over an x402
 * header. It returns a `verified` outcome with a `{lane: 'pro'}` receipt (credits debited), and
 * settle/release dispatch on the receipt's lane (release = refund). Adapters do not change.
 */
import { createHash } from 'node:crypto';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { getAddress, isAddressEqual, type Address } from 'viem';
import type { Config, X402Network } from '../config';
import { mapError } from '../errors/error-mapper';
import { PaymentError, ServiceUnavailableError, type HttpError } from '../errors/errors';
import type { RouteDef } from '../routes/table';
import { usdcFor } from './assets';
import { buildPaymentRequired, encodeX402Header, paymentOption, toV1Body, V1_BODY_HEADER, type PaymentOption } from './challenge';
import { checkPayment } from './checks';
import { paymentIdOf } from './payment-id';
import { FacilitatorUnavailableError, PaymentIdConflictError, SettlementPendingError } from './errors';
import { classifyFacilitatorError, isSettlementPending, reasonFromFacilitator, type FacilitatorClient } from './facilitator';
import type { ClaimKey, ClaimRecord, PaymentLedger } from './ledger';
import { decodePaymentHeader, paymentHeaderOf, type DecodedPayment, type PaymentRefusal } from './payload';
import { isChargeable } from '../routes/table';
import { authorizeProCall, bearerOf, budgetHeaders, BUDGET_HEADERS, type CreditLedger, type ProReceipt } from '../pro/lane';

/** What the core needs to know about a request (any HTTP runtime can provide it). */
interface HttpRequestLike {
  method: string;
  /** Raw request path, e.g. /v1/price/CL (accepts[].resource). */
  path: string;
  /** Absolute URL of the request (resource.url). */
  url: string;
  /** Lower-cased header names. */
  headers: Readonly<Record<string, string | undefined>>;
  requestId: string;
  /** Milliseconds left before the answer is due (Lambda: context.getRemainingTimeInMillis); default REQUEST_BUDGET_MS from arrival. */
  timeLeftMs?: () => number;
}

/** A complete HTTP response (API Gateway v2 result shape). */
interface HttpResponseLike {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

interface PaymentLog {
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

/** Dependencies of the core: configuration, the ledger (credit table), the facilitator, a clock. */
interface PaymentDeps {
  config: Config;
  ledger: PaymentLedger;
  /** Pro keys and their credits. */
  credits: CreditLedger;
  facilitator: FacilitatorClient;
  now: () => Date;
  log: PaymentLog;
}

/** A verified x402 payment, held between the handler and settlement. */
interface X402Receipt {
  lane: 'x402';
  /**
   * settle: settle after the handler; redeliver: already settled earlier (reconciled), data still
   * owed; replay: a retry of a delivered payment under the same payment id (idempotent, not charged).
   */
  mode: 'settle' | 'redeliver' | 'replay';
  key: ClaimKey;
  /** The request holding the claim. */
  claimId: string;
  route: RouteDef['id'];
  path: string;
  payer: Address;
  /** USDC atomic units. */
  amount: string;
  network: X402Network;
  asset: Address;
  payTo: Address;
  /** What is sent to the facilitator's /settle (a v2 payload, also for v1 payers). */
  facilitatorPayload: PaymentPayload;
  requirements: PaymentRequirements;
  /** The settlement transaction (redeliveries). */
  transaction?: string;
  /** Milliseconds left before the answer is due: no settlement is started that cannot finish in time. */
  timeLeftMs: () => number;
}

/** What a paid request holds until it is settled or released. */
type PaymentReceipt = X402Receipt | ProReceipt;

type PaymentOutcome =
  | { type: 'free'; reason: 'free-route' | 'not-chargeable' | 'demo' }
  | { type: 'verified'; receipt: PaymentReceipt }
  | { type: 'rejected'; response: HttpResponseLike };

type SettleOutcome = { type: 'settled'; headers: Record<string, string> } | { type: 'rejected'; response: HttpResponseLike };

/** Time a paid request may spend before its answer is due: API Gateway cuts at 29 s, the Lambda at 28 s. */
const REQUEST_BUDGET_MS = 25_000;
/** Left over after the settle call's own timeout, for the ledger write and the answer. */
const SETTLE_MARGIN_MS = 1_000;
/** When a retry of a pending settlement may succeed: the reconciler runs every minute (api-stack). */
const PENDING_RETRY_AFTER_S = 60;

/** Response headers of x402, readable by browser clients. */
const EXPOSE_HEADERS = ['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'X-PAYMENT-RESPONSE', ...BUDGET_HEADERS.map((h) => h.toUpperCase())].join(', ');

/**
 * Encoded challenges by configuration and request: a challenge is a pure function of the route,
 * the path and URL asked for and the configuration, and building and encoding one (JSON Schemas,
 * JSON, base64) was most of a 402's time. Bounded, so arbitrary query strings cannot grow it.
 */
const CHALLENGES = new WeakMap<Config, Map<string, { header: string; body: string }>>();
const MAX_CACHED_CHALLENGES = 1000;

const encodedChallenge = (route: RouteDef, req: HttpRequestLike, config: Config) => {
  let cached = CHALLENGES.get(config);
  if (!cached) {
    cached = new Map();
    CHALLENGES.set(config, cached);
  }
  // The header is always v2; the body is the spec's, or v1's when a v1 client asks for it.
  const v1 = req.headers[V1_BODY_HEADER]?.trim() === '1';
  const key = `${route.id} ${req.path} ${req.url} ${v1 ? 1 : 2}`;
  let encoded = cached.get(key);
  if (!encoded) {
    const doc = buildPaymentRequired(route, req.path, req.url, config);
    encoded = { header: encodeX402Header(doc), body: JSON.stringify(v1 ? toV1Body(doc, config.X402_NETWORK) : doc) };
    if (cached.size >= MAX_CACHED_CHALLENGES) cached.delete(cached.keys().next().value!);
    cached.set(key, encoded);
  }
  return encoded;
};

const challengeResponse = (route: RouteDef, req: HttpRequestLike, config: Config): HttpResponseLike => {
  const { header, body } = encodedChallenge(route, req, config);
  return {
    statusCode: 402,
    headers: {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'payment-required': header,
      'access-control-expose-headers': EXPOSE_HEADERS,
      'x-request-id': req.requestId,
    },
    body,
  };
};

/** An error response in DESIGN.md's body (through the one error mapper) plus x402 headers. */
const errorResponse = (err: HttpError, requestId: string, headers: Record<string, string> = {}): HttpResponseLike => {
  const mapped = mapError(err, requestId);
  return {
    statusCode: mapped.statusCode,
    headers: { ...mapped.headers, 'access-control-expose-headers': EXPOSE_HEADERS, 'x-request-id': requestId, ...headers },
    body: JSON.stringify(mapped.body),
  };
};

/**
 * 402 INVALID_PAYMENT: never data, never a 500. It carries a fresh PAYMENT-REQUIRED header
 * (error = the reason) so that a client can pay again correctly.
 */
const invalidPayment = (
  route: RouteDef,
  req: HttpRequestLike,
  config: Config,
  refusal: Omit<PaymentRefusal, 'ok'>,
  extraHeaders: Record<string, string> = {},
) =>
  errorResponse(new PaymentError('INVALID_PAYMENT', refusal.message, { reason: refusal.reason, ...refusal.details }), req.requestId, {
    'payment-required': encodeX402Header(buildPaymentRequired(route, req.path, req.url, config, refusal.reason)),
    ...extraHeaders,
  });

const settlementHeaders = (s: { transaction: string; network: string; payer: string }, success = true): Record<string, string> => {
  const value = encodeX402Header({ success, transaction: s.transaction, network: s.network, payer: s.payer });
  // v2 clients read PAYMENT-RESPONSE, v1 clients X-PAYMENT-RESPONSE: send both.
  return { 'payment-response': value, 'x-payment-response': value, 'access-control-expose-headers': EXPOSE_HEADERS };
};

/** Pure x402 v2 requirements (without the spec's v1 body fields) for the facilitator. */
const requirementsOf = (o: PaymentOption): PaymentRequirements => ({
  scheme: o.scheme,
  network: o.network as PaymentRequirements['network'],
  amount: o.amount,
  asset: o.asset,
  payTo: o.payTo,
  maxTimeoutSeconds: o.maxTimeoutSeconds,
  extra: { ...o.extra },
});

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

const nowSeconds = (now: Date): bigint => BigInt(Math.floor(now.getTime() / 1000));

/** Runs a ledger write whose failure must not change what the payer gets (the money already moved). */
const bestEffort = async (log: PaymentLog, what: string, fn: () => Promise<unknown>, extra: Record<string, unknown>): Promise<void> => {
  try {
    await fn();
  } catch (err) {
    log.error(`payment ledger: ${what} failed`, { ...extra, error: err instanceof Error ? err.message : String(err) });
  }
};

/** 503: the request ran out of time before settlement; the payment was given back. */
const outOfTime = (): HttpError =>
  new ServiceUnavailableError(
    'PAYMENT_NOT_SETTLED',
    'the request ran out of time before its payment could be settled; nothing was charged, retry the same request',
    {
      reason: 'out_of_time',
    },
  );

/** A store failure while claiming is a retryable 503, not a payment verdict. */
const ledgerUnavailable = (): HttpError =>
  new ServiceUnavailableError('PAYMENT_LEDGER_UNAVAILABLE', 'the payment ledger is unavailable; nothing was charged, retry shortly');

/**
 * Decides how a request to `route` is paid, before any data is read.
 * @param req the request, adapted by the runtime
 * @param route the matched route (after parameter validation)
 * @param deps configuration, ledger, facilitator, clock, log
 * @returns free (serve), verified (serve, then settle or release the receipt) or rejected (send the response)
 * @example
 * const outcome = await processPayment(req, route, deps);
 * if (outcome.type === 'rejected') return outcome.response;
 */
const processPayment = async (req: HttpRequestLike, route: RouteDef, deps: PaymentDeps): Promise<PaymentOutcome> => {
  const { config } = deps;
  const arrivedAt = deps.now().getTime();
  const timeLeftMs = req.timeLeftMs ?? (() => arrivedAt + REQUEST_BUDGET_MS - deps.now().getTime());
  if (route.priceKey === null) return { type: 'free', reason: 'free-route' };
  if (!isChargeable(route, config)) return { type: 'free', reason: 'not-chargeable' };

  // Lane 2: a Pro key wins over any x402 header (nothing is charged twice).
  const proKey = bearerOf(req.headers);
  if (proKey !== null) {
    const pro = await authorizeProCall(proKey, route, req.requestId, deps.credits, deps.now(), {
      perSecond: config.PRO_RATE_LIMIT_PER_SECOND,
      accepts: () => [paymentOption(route, req.path, config)],
    }).catch((err: unknown) => {
      deps.log.error('credit ledger: debit failed', { requestId: req.requestId, error: err instanceof Error ? err.message : String(err) });
      return { ok: false as const, error: ledgerUnavailable() };
    });
    return pro.ok ? { type: 'verified', receipt: pro.receipt } : { type: 'rejected', response: errorResponse(pro.error, req.requestId) };
  }

  const found = paymentHeaderOf(req.headers);
  if (found === null) {
    const enforce = config.X402_ENFORCE || req.headers['x-force-402']?.trim() === '1';
    return enforce ? { type: 'rejected', response: challengeResponse(route, req, config) } : { type: 'free', reason: 'demo' };
  }
  if (!found.ok) return { type: 'rejected', response: invalidPayment(route, req, config, found) };

  const decoded = decodePaymentHeader(found.header, found.value);
  if (!decoded.ok) return { type: 'rejected', response: invalidPayment(route, req, config, decoded) };

  const option = paymentOption(route, req.path, config);
  const usdc = usdcFor(config.X402_NETWORK);
  const expected = {
    network: config.X402_NETWORK,
    asset: usdc,
    payTo: getAddress(config.X402_PAY_TO),
    amount: BigInt(option.amount),
    resource: req.url,
    maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS,
  };
  // v1 payloads carry no extensions, so no payment id.
  const paymentId = paymentIdOf(decoded.envelope.x402Version === 2 ? (decoded.envelope.extensions ?? undefined) : undefined);
  if (!paymentId.ok) {
    return {
      type: 'rejected',
      response: invalidPayment(route, req, config, {
        reason: 'invalid_payment_identifier',
        message: 'the payment-identifier extension is malformed',
        details: { issues: paymentId.issues },
      }),
    };
  }
  const refusal = await checkPayment(decoded, expected, nowSeconds(deps.now()));
  // An expired authorization the ledger still owes data for (settled but undelivered, or pending)
  // is a retry the 504 asked for: look it up before refusing it as stale. So is an idempotent retry.
  const owed = refusal?.reason === 'authorization_expired' ? await owedRetry(decoded, expected, deps, paymentId.id !== null) : null;
  if (refusal && !owed) return { type: 'rejected', response: invalidPayment(route, req, config, refusal) };

  const payer = getAddress(decoded.authorization.from);
  const key: ClaimKey = { payer: payer.toLowerCase(), nonce: decoded.authorization.nonce.toLowerCase() };
  // A payment id binds to one payload and one path, once: the same id again is a retry of that
  // payment (served without a second charge), with anything else it is a conflict.
  let idempotentRetry = false;
  if (paymentId.id !== null) {
    const use = { nonce: key.nonce, digest: payloadDigest(decoded), path: req.path };
    let bound: Awaited<ReturnType<PaymentLedger['bindPaymentId']>>;
    try {
      bound = await deps.ledger.bindPaymentId(key.payer, paymentId.id, use);
    } catch (err) {
      deps.log.error('payment ledger: bind payment id failed', { requestId: req.requestId, error: err instanceof Error ? err.message : String(err) });
      return { type: 'rejected', response: errorResponse(ledgerUnavailable(), req.requestId) };
    }
    if (bound && (bound.nonce !== use.nonce || bound.digest !== use.digest || bound.path !== use.path)) {
      const err = new PaymentIdConflictError('this payment id was already used with another payment or for another resource; use a new id', {
        reason: 'payment_id_conflict',
        payment_id: paymentId.id,
      });
      return { type: 'rejected', response: errorResponse(err, req.requestId) };
    }
    idempotentRetry = bound !== null;
  }
  const requirements = requirementsOf(option);
  const receipt: X402Receipt = {
    lane: 'x402',
    mode: 'settle',
    key,
    claimId: req.requestId,
    route: route.id,
    path: req.path,
    payer,
    amount: option.amount,
    network: config.X402_NETWORK,
    asset: usdc.address,
    payTo: getAddress(config.X402_PAY_TO),
    facilitatorPayload: facilitatorPayloadOf(decoded, requirements, route, req.url),
    requirements,
    timeLeftMs,
  };

  if (owed) return onClaimConflict(owed, receipt, route, req, deps, idempotentRetry);

  // The claim comes before the facilitator and the handler: a proof is served once, even when
  // fifty copies of it arrive at once on different Lambdas.
  let claimed: Awaited<ReturnType<PaymentLedger['claim']>>;
  try {
    claimed = await deps.ledger.claim({
      ...key,
      claimId: req.requestId,
      route: route.id,
      path: req.path,
      network: config.X402_NETWORK,
      asset: usdc.address,
      payTo: receipt.payTo,
      amount: option.amount,
      validBefore: Number(decoded.authorization.validBefore),
      claimedAt: deps.now().toISOString(),
    });
  } catch (err) {
    deps.log.error('payment ledger: claim failed', { requestId: req.requestId, error: err instanceof Error ? err.message : String(err) });
    return { type: 'rejected', response: errorResponse(ledgerUnavailable(), req.requestId) };
  }
  // A store retry of our own successful write also reads as a conflict: the claim is ours.
  const ours = !claimed.ok && claimed.existing?.state === 'CLAIMED' && claimed.existing.claimId === req.requestId;
  if (!claimed.ok && !ours) return onClaimConflict(claimed.existing, receipt, route, req, deps, idempotentRetry);

  let verdict: Awaited<ReturnType<FacilitatorClient['verify']>>;
  try {
    verdict = await deps.facilitator.verify(receipt.facilitatorPayload, requirements);
  } catch (err) {
    await bestEffort(deps.log, 'release', () => deps.ledger.release(key, req.requestId, 'facilitator_verify_failed'), { requestId: req.requestId });
    const failure = classifyFacilitatorError(err);
    if (failure.kind === 'verdict') {
      const reason = reasonFromFacilitator(failure.reason, 'payment_rejected_by_facilitator');
      return {
        type: 'rejected',
        response: invalidPayment(route, req, config, {
          reason,
          message: 'the facilitator refused the payment',
          details: { facilitator_reason: failure.reason ?? null },
        }),
      };
    }
    deps.log.warn('x402 facilitator verify failed', { requestId: req.requestId, failure });
    return { type: 'rejected', response: facilitatorDown(failure.kind === 'unknown' && failure.timeout, req.requestId) };
  }
  if (!verdict.isValid) {
    await bestEffort(deps.log, 'release', () => deps.ledger.release(key, req.requestId, `verify_refused:${verdict.invalidReason ?? 'unknown'}`), {
      requestId: req.requestId,
    });
    const reason = reasonFromFacilitator(verdict.invalidReason, 'payment_rejected_by_facilitator');
    return {
      type: 'rejected',
      response: invalidPayment(route, req, config, {
        reason,
        message: 'the facilitator refused the payment',
        details: { facilitator_reason: verdict.invalidReason ?? null },
      }),
    };
  }
  if (verdict.payer && !sameAddress(verdict.payer, payer)) {
    await bestEffort(deps.log, 'release', () => deps.ledger.release(key, req.requestId, 'payer_mismatch'), { requestId: req.requestId });
    return {
      type: 'rejected',
      response: invalidPayment(route, req, config, { reason: 'payer_mismatch', message: 'the facilitator verified a different payer' }),
    };
  }
  return { type: 'verified', receipt };
};

/**
 * The ledger record of an expired proof that is still owed its data, or null. Only an ECDSA
 * signature that passes every other check counts (it proves the payer signed this nonce); the
 * freshness check is what is waived.
 */
const owedRetry = async (
  decoded: DecodedPayment,
  expected: Parameters<typeof checkPayment>[1],
  deps: PaymentDeps,
  hasPaymentId: boolean,
): Promise<ClaimRecord | null> => {
  if (decoded.signature.length !== 132) return null;
  const atSigning = decoded.authorization.validBefore - 60n;
  if (await checkPayment(decoded, expected, atSigning < decoded.authorization.validAfter ? decoded.authorization.validAfter : atSigning)) return null;
  try {
    const existing = await deps.ledger.get({ payer: decoded.authorization.from.toLowerCase(), nonce: decoded.authorization.nonce.toLowerCase() });
    if (!existing) return null;
    // A delivered payment is only replayed for a payment id; processPayment checks that it matches.
    const replayable = hasPaymentId && existing.state === 'SETTLED' && existing.delivered === true;
    return awaitsOutcome(existing) || (existing.state === 'SETTLED' && existing.delivered === false) || replayable ? existing : null;
  } catch {
    return null;
  }
};

/** How long a delivered payment can be fetched again under its payment id. */
const REPLAY_WINDOW_MS = 60 * 60 * 1000;

const withinReplayWindow = (rec: ClaimRecord, now: Date): boolean =>
  rec.settledAt !== undefined && now.getTime() - Date.parse(rec.settledAt) <= REPLAY_WINDOW_MS;

/** Identifies a payment payload for the payment-id binding: the signature over the authorization. */
const payloadDigest = (p: DecodedPayment): string =>
  createHash('sha256')
    .update(JSON.stringify([p.signature.toLowerCase(), p.wireAuthorization]))
    .digest('hex');

/**
 * Submitted (or being submitted) for settlement with no recorded outcome: the payer's money may be
 * moving, so it is never told to sign a new authorization. Either the holding request finishes, or
 * reconciliation settles it from the chain; a retry of the same header then gets the data.
 */
const awaitsOutcome = (rec: ClaimRecord): boolean => rec.state === 'PENDING' || rec.state === 'SETTLING';

/** A proof that is already claimed: a replay, a settlement still pending, or data still owed. */
const onClaimConflict = async (
  existing: ClaimRecord | null,
  receipt: X402Receipt,
  route: RouteDef,
  req: HttpRequestLike,
  deps: PaymentDeps,
  idempotentRetry: boolean,
): Promise<PaymentOutcome> => {
  if (idempotentRetry && existing?.state === 'SETTLED' && existing.delivered === true && withinReplayWindow(existing, deps.now())) {
    // The same payment id and payload again: the answer again, with the same settlement, no charge.
    return { type: 'verified', receipt: { ...receipt, mode: 'replay', transaction: existing.transaction ?? '' } };
  }
  if (existing?.state === 'SETTLED' && existing.delivered === false) {
    let taken: boolean;
    try {
      taken = await deps.ledger.takeDelivery(receipt.key, req.requestId);
    } catch (err) {
      deps.log.error('payment ledger: take delivery failed', { requestId: req.requestId, error: err instanceof Error ? err.message : String(err) });
      return { type: 'rejected', response: errorResponse(ledgerUnavailable(), req.requestId) };
    }
    // Paid on chain (found by reconciliation) but never answered: this retry gets the data.
    if (taken) return { type: 'verified', receipt: { ...receipt, mode: 'redeliver', transaction: existing.transaction ?? '' } };
  }
  if (existing && awaitsOutcome(existing)) {
    return {
      type: 'rejected',
      response: pendingResponse(existing.transaction ?? '', req.requestId),
    };
  }
  return {
    type: 'rejected',
    response: invalidPayment(route, req, deps.config, {
      reason: 'nonce_already_used',
      message: 'this payment authorization was already used; sign a new one',
      details: { state: existing?.state ?? 'unknown' },
    }),
  };
};

/** 504: submitted, outcome unknown; the same header is retried once reconciliation has run. */
const pendingResponse = (transaction: string, requestId: string): HttpResponseLike =>
  errorResponse(
    new SettlementPendingError('the settlement of this payment is not confirmed yet; retry the same request with the same payment header later', {
      reason: 'settlement_pending',
      transaction: transaction || null,
      retry_after_seconds: PENDING_RETRY_AFTER_S,
    }),
    requestId,
    { 'retry-after': String(PENDING_RETRY_AFTER_S) },
  );

const facilitatorDown = (timeout: boolean, requestId: string): HttpResponseLike =>
  errorResponse(
    new FacilitatorUnavailableError(
      timeout
        ? 'the payment facilitator did not answer in time; nothing was charged, retry shortly'
        : 'the payment facilitator is unavailable; nothing was charged, retry shortly',
      { reason: timeout ? 'facilitator_timeout' : 'facilitator_unavailable' },
    ),
    requestId,
  );

const sameAddress = (a: string, b: string): boolean => {
  try {
    return isAddressEqual(a as Address, b as Address);
  } catch {
    return false;
  }
};

/**
 * Settles a verified payment after a successful, charged answer. Never throws: every outcome is
 * either the settlement headers to add to the answer, or the response that replaces it.
 * @returns settled (add the headers, serve the data) or rejected (the data must not be served)
 */
const settlePayment = async (receipt: PaymentReceipt, requestId: string, deps: PaymentDeps): Promise<SettleOutcome> => {
  if (receipt.lane === 'pro')
    return {
      type: 'settled',
      headers: { ...budgetHeaders(receipt.record, receipt.usage.credits, deps.now()), 'access-control-expose-headers': EXPOSE_HEADERS },
    };
  const { ledger, log } = deps;
  const who = { requestId, payer: receipt.payer, nonce: receipt.key.nonce, route: receipt.route };
  if (receipt.mode !== 'settle') {
    log.info(`x402 payment ${receipt.mode === 'replay' ? 'replayed (payment id)' : 'redelivered'}`, { ...who, transaction: receipt.transaction });
    return { type: 'settled', headers: settlementHeaders({ transaction: receipt.transaction ?? '', network: receipt.network, payer: receipt.payer }) };
  }

  // Never start a settlement that cannot finish before the answer is due (the payer would be
  // charged with nobody left to deliver to): give the payment back instead.
  const settleTime = deps.config.X402_FACILITATOR_TIMEOUT_MS + SETTLE_MARGIN_MS;
  if (receipt.timeLeftMs() < settleTime) {
    await bestEffort(log, 'release', () => ledger.release(receipt.key, receipt.claimId, 'out_of_time_before_settle'), who);
    log.warn('x402 settle skipped: out of time', { ...who, timeLeftMs: receipt.timeLeftMs() });
    return { type: 'rejected', response: errorResponse(outOfTime(), requestId) };
  }
  // SETTLING (payload + pending-index entry) is written before /settle: whatever happens after
  // the call (a crash, a timeout, a lost store), reconciliation finds the payment.
  let settling: boolean;
  try {
    settling = await ledger.markSettling(receipt.key, receipt.claimId, JSON.stringify(receipt.facilitatorPayload));
  } catch (err) {
    log.error('payment ledger: mark settling failed', { ...who, error: err instanceof Error ? err.message : String(err) });
    await bestEffort(log, 'release', () => ledger.release(receipt.key, receipt.claimId, 'ledger_unavailable_before_settle'), who);
    return { type: 'rejected', response: errorResponse(ledgerUnavailable(), requestId) };
  }
  if (!settling) {
    // The claim is not ours any more (held past its lifetime): nothing is submitted.
    log.warn('x402 settle skipped: claim lost', who);
    return { type: 'rejected', response: errorResponse(outOfTime(), requestId) };
  }

  let result: Awaited<ReturnType<FacilitatorClient['settle']>>;
  try {
    result = await deps.facilitator.settle(receipt.facilitatorPayload, receipt.requirements);
    // Like x402ResourceServer: one retry lets the facilitator reconcile a broadcast it is still
    // waiting on, but only if it still fits before API Gateway (29 s) and Lambda give up.
    if (isSettlementPending(result) && receipt.timeLeftMs() >= settleTime) {
      result = await deps.facilitator.settle(receipt.facilitatorPayload, receipt.requirements);
    }
  } catch (err) {
    const failure = classifyFacilitatorError(err);
    if (failure.kind === 'not_sent') {
      // Nothing reached the facilitator: the authorization is untouched and the payer may retry.
      await bestEffort(log, 'release', () => ledger.release(receipt.key, receipt.claimId, 'facilitator_unreachable_at_settle'), who);
      log.warn('x402 settle not sent', { ...who, failure });
      return { type: 'rejected', response: facilitatorDown(false, requestId) };
    }
    if (failure.kind === 'verdict') return settleFailed(receipt, requestId, { transaction: failure.transaction ?? '', reason: failure.reason }, deps);
    return settlePending(receipt, requestId, { transaction: '', reason: failure.timeout ? 'facilitator_timeout' : 'facilitator_error' }, deps);
  }

  if (result.success) {
    const sale = {
      ...receipt.key,
      amount: receipt.amount,
      asset: receipt.asset,
      network: receipt.network,
      payTo: receipt.payTo,
      route: receipt.route,
      path: receipt.path,
      transaction: result.transaction,
      settledAt: deps.now().toISOString(),
      requestId,
    };
    // The money moved: the data is served even if this write fails (the claim then stays
    // SETTLING, and reconciliation records the sale from the chain).
    await bestEffort(log, 'mark settled', () => ledger.markSettled(receipt.key, receipt.claimId, { sale, delivered: true }), who);
    log.info('x402 payment settled', { ...who, amount: receipt.amount, transaction: result.transaction });
    return { type: 'settled', headers: settlementHeaders({ transaction: result.transaction, network: receipt.network, payer: receipt.payer }) };
  }
  if (isSettlementPending(result))
    return settlePending(receipt, requestId, { transaction: result.transaction, reason: result.errorReason ?? 'settlement_pending' }, deps);
  return settleFailed(receipt, requestId, { transaction: result.transaction, reason: result.errorReason }, deps);
};

/** The settlement definitively failed: nothing moved, so no data; the payer's proof was not used. */
const settleFailed = async (
  receipt: X402Receipt,
  requestId: string,
  f: { transaction: string; reason: string | undefined },
  deps: PaymentDeps,
): Promise<SettleOutcome> => {
  const who = { requestId, payer: receipt.payer, nonce: receipt.key.nonce };
  await bestEffort(
    deps.log,
    'mark failed',
    () => deps.ledger.markFailed(receipt.key, receipt.claimId, { transaction: f.transaction, reason: f.reason ?? 'unknown' }),
    who,
  );
  deps.log.warn('x402 settlement failed', { ...who, reason: f.reason });
  const reason = reasonFromFacilitator(f.reason, 'settlement_failed');
  const err = new PaymentError('INVALID_PAYMENT', 'the payment could not be settled; nothing was charged and no data was served', {
    reason,
    facilitator_reason: f.reason ?? null,
    stage: 'settlement',
  });
  return {
    type: 'rejected',
    response: errorResponse(err, requestId, settlementHeaders({ transaction: f.transaction, network: receipt.network, payer: receipt.payer }, false)),
  };
};

/**
 * The outcome is unknown: record PENDING (never unpaid) with whatever transaction is known (the
 * payload is kept since SETTLING, for reconciliation), and serve no data now. The same header can be retried: once
 * reconciliation confirms the settlement, the retry gets the data.
 */
const settlePending = async (
  receipt: X402Receipt,
  requestId: string,
  p: { transaction: string; reason: string },
  deps: PaymentDeps,
): Promise<SettleOutcome> => {
  const who = { requestId, payer: receipt.payer, nonce: receipt.key.nonce };
  await bestEffort(
    deps.log,
    'mark pending',
    () =>
      deps.ledger.markPending(receipt.key, receipt.claimId, {
        transaction: p.transaction,
        reason: p.reason,
      }),
    who,
  );
  deps.log.warn('x402 settlement pending', { ...who, transaction: p.transaction, reason: p.reason });
  return { type: 'rejected', response: pendingResponse(p.transaction, requestId) };
};

/**
 * Gives a verified payment back without charging it (handler failed, answered >= 400, or a free
 * answer): nothing is settled and the payer's authorization stays usable.
 */
const releasePayment = async (receipt: PaymentReceipt, reason: string, deps: PaymentDeps): Promise<void> => {
  if (receipt.lane === 'pro') {
    await bestEffort(deps.log, 'refund', () => deps.credits.refund(receipt.usage, deps.now()), { requestId: receipt.usage.requestId, reason });
    return;
  }
  const who = { payer: receipt.payer, nonce: receipt.key.nonce, reason };
  if (receipt.mode === 'replay') return; // nothing was taken
  if (receipt.mode === 'redeliver') {
    await bestEffort(deps.log, 'return delivery', () => deps.ledger.returnDelivery(receipt.key, receipt.claimId), who);
    return;
  }
  await bestEffort(deps.log, 'release', () => deps.ledger.release(receipt.key, receipt.claimId, reason), who);
};

export { processPayment, settlePayment, releasePayment };
export type { HttpRequestLike, HttpResponseLike, PaymentDeps, PaymentLog, PaymentOutcome, PaymentReceipt, X402Receipt, SettleOutcome };
