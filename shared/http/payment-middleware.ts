/**
 * The middy adapter of the payment core (STYLE.md convention 5):
 *
 * - before: the request's credentials and what it buys go to `charge`. A refusal (402 challenge,
 *   invalid payment, quota, outage) is rendered as the early answer (the handler never runs, no data
 *   is read); an idempotent replay returns the stored first answer; a granted call's grant is kept
 *   on the request state (`context.service.grant`).
 * - after: settles only a success that is charged (`statusCode < 400` and the handler did not set
 *   `charge: false`); anything else is released. A refused settlement replaces the answer, so no
 *   data leaves without a confirmed payment.
 * - onError: releases the grant and never settles.
 *
 * Every answer to a keyed request carries the key's budget, errors included.
 * createFamilyHandler mounts it as `.use(paymentMiddleware({ services }))`.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import * as z from '../zod';
import { logger } from '../observability/logger';
import { resourceUrl, V1_BODY_HEADER } from '../payment/challenge';
import { charge, release, settle } from '../payment/charge';
import { withDeliveryReceipt } from '../payment/delivery-receipt';
import { REQUEST_BUDGET_MS, type Grant, type PaidCall, type Receipt } from '../payment/lane';
import { countRefusal, countSettlement } from '../payment/payment-metrics';
import { budgetOf } from '../payment/pro-lane';
import { hashKey, parseKey } from '../pro/keys';
import type { Services } from '../services';
import type { ServiceContext } from './types';
import { bearerOf } from '../pro/keys';
import { credentialsOf } from './payment-credentials';
import { budgetHeaders, receiptHeaders, renderRefusal, replayAnswer, serializeAnswer, type RenderContext } from './payment-render';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type PaymentRequest = Request<Event, Result, Error, ServiceContext>;

interface PaymentMiddlewareOptions {
  /** The services of this process (config, ledgers, facilitator client, clock). */
  services: () => Services;
}

const OptionsSchema = z.strictObject({
  services: z.custom<() => Services>((v) => typeof v === 'function', 'services must be a function returning the process services'),
});

/**
 * Rejects unknown or malformed options at cold start, like middy's own option schemas.
 * @throws Error naming every problem
 */
const paymentMiddlewareValidateOptions = (opts: unknown): PaymentMiddlewareOptions => {
  const parsed = OptionsSchema.safeParse(opts);
  if (!parsed.success)
    throw new Error(`paymentMiddleware options: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`).join('; ')}`);
  return parsed.data;
};

/** The paid call of a request: what is bought (path, and the URL from trusted names only), its ids and deadline. */
const paidCallOf = (request: PaymentRequest, services: Services): PaidCall => {
  const { event, context } = request;
  const service = context.service;
  const path = event.rawPath ?? event.requestContext?.http?.path ?? '/';
  const arrivedAt = services.now().getTime();
  return {
    route: service.route!,
    resource: { path, url: resourceUrl(services.config.PUBLIC_BASE_URL, event.requestContext?.domainName, path, event.rawQueryString ?? '') },
    callId: service.requestId,
    requestId: service.requestId,
    // The Lambda's own deadline (the local runtime gives API Gateway's 29 s).
    timeLeftMs:
      typeof context.getRemainingTimeInMillis === 'function'
        ? () => context.getRemainingTimeInMillis()
        : () => arrivedAt + REQUEST_BUDGET_MS - services.now().getTime(),
  };
};

const renderContext = (request: PaymentRequest, services: Services): RenderContext => ({
  requestId: request.context.service.requestId,
  now: services.now(),
  network: services.config.X402_NETWORK,
  v1Body: request.context.service.request?.headers[V1_BODY_HEADER]?.trim() === '1',
});

/** Takes the grant once: after and onError must never both act on the same payment. */
const takeGrant = (request: PaymentRequest): Grant | undefined => {
  const grant = request.context.service?.grant;
  if (request.context.service) delete request.context.service.grant;
  return grant;
};

/**
 * The before phase: decide the payment; a refusal or a replay ends the request here.
 * @returns the early response, or undefined to run the handler
 */
const paymentMiddlewareBefore = async (request: PaymentRequest, opts: PaymentMiddlewareOptions): Promise<Result | undefined> => {
  const service = request.context.service;
  if (!service?.route || !service.request) return undefined;
  const services = opts.services();
  // The receipt key, read from its secret on a process's first paid call (offers and receipts are signed with it).
  await services.payment.receiptsReady?.();
  const headers = service.request.headers;
  const credentials = credentialsOf(headers);
  const outcome = await charge(credentials, paidCallOf(request, services), services.payment, {
    challenge: headers['x-force-402']?.trim() === '1',
  });
  switch (outcome.type) {
    case 'free':
      return undefined;
    case 'granted':
      service.grant = outcome.grant;
      return undefined;
    case 'replay':
      return replayAnswer(outcome.answer, service.requestId);
    case 'refused': {
      countRefusal(services.metrics, outcome.refusal, service.route.family, { route: service.route.id, credentials, log: services.payment.log });
      // An early answer skips every `after` phase (observabilityLayer's flush included): flush here.
      services.metrics.publish();
      return renderRefusal(outcome.refusal, renderContext(request, services));
    }
  }
};

/** The after phase: settle a charged success, release anything else. */
const paymentMiddlewareAfter = async (request: PaymentRequest, opts: PaymentMiddlewareOptions): Promise<void> => {
  const grant = takeGrant(request);
  if (!grant) return;
  const services = opts.services();
  const response = request.response;
  const status = response?.statusCode ?? 200;
  if (!response || status >= 400 || request.context.service.charge === false) {
    const { budget } = await release(grant, status >= 400 ? { kind: 'handler_error', status } : { kind: 'not_charged' }, services.payment);
    if (response && budget) request.response = { ...response, headers: { ...response.headers, ...budgetHeaders(budget, services.now()) } };
    return;
  }
  // The receipt is signed over the body served (offer-receipt, in PAYMENT-RESPONSE), also in the stored answer.
  const served = response.isBase64Encoded ? Buffer.from(response.body ?? '', 'base64') : (response.body ?? '');
  const resourceUrl = paidCallOf(request, services).resource.url;
  // Signed once: the stored answer (replays) and this answer carry the same receipt.
  let signed: Receipt | undefined;
  const withReceipt = (receipt: Receipt): Result => {
    signed ??= withDeliveryReceipt(grant, receipt, resourceUrl, served, services.payment);
    return { ...response, headers: { ...response.headers, ...receiptHeaders(signed, services.now()) } };
  };
  const outcome = await settle(grant, services.payment, (receipt) => serializeAnswer(withReceipt(receipt)));
  countSettlement(services.metrics, grant, outcome, services.payment, request.context.service.route?.id);
  // No confirmed payment, no data: the handler's answer is dropped.
  request.response = outcome.type === 'settled' ? withReceipt(outcome.receipt) : renderRefusal(outcome.refusal, renderContext(request, services));
};

/**
 * The onError phase: release the grant and never settle. A keyed request refused before its
 * payment was looked at (a bad parameter) still learns its budget. Never throws.
 */
const paymentMiddlewareOnError = async (request: PaymentRequest, opts: PaymentMiddlewareOptions): Promise<void> => {
  try {
    const services = opts.services();
    const grant = takeGrant(request);
    if (grant) {
      const { budget } = await release(grant, { kind: 'handler_threw' }, services.payment);
      if (budget && request.context.service) request.context.service.answerHeaders = budgetHeaders(budget, services.now());
      return;
    }
    const key = bearerOf(Object.fromEntries(Object.entries(request.event.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])));
    if (!key || !parseKey(key).ok || !request.context.service) return;
    const record = await services.payment.credits.get(hashKey(key));
    if (record && record.status === 'active') request.context.service.answerHeaders = budgetHeaders(budgetOf(record, 0), services.now());
  } catch (err) {
    logger.error('payment release after a handler error failed', { error: err as Error });
  }
};

/**
 * The payment middleware of every paid family Lambda.
 * @param opts `{ services }`: the composition root of this process
 * @example middy().use(paymentMiddleware({ services: servicesFromEnvironment }))
 */
const paymentMiddleware = (opts: PaymentMiddlewareOptions): MiddlewareObj<Event, Result, Error, ServiceContext> => {
  const options = paymentMiddlewareValidateOptions(opts);
  return {
    name: 'payment',
    before: (request) => paymentMiddlewareBefore(request, options),
    after: (request) => paymentMiddlewareAfter(request, options),
    onError: (request) => paymentMiddlewareOnError(request, options),
  };
};

export { paymentMiddleware };
export type { PaymentMiddlewareOptions };
