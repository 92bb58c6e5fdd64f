/**
 * The middy adapter of the payment core (STYLE.md convention 5):
 *
 * - before: adapts the event to HttpRequestLike and calls processPayment. A challenge or a refusal
 *   is returned as the early response (the handler never runs, no data is read); a verified
 *   payment's receipt is kept in `request.internal['payment.receipt']`.
 * - after: settles only if the answer is a success that is charged (`statusCode < 400` and the
 *   handler did not set `charge: false`); otherwise releases. A failed or pending settlement
 *   replaces the answer, so no data leaves without a confirmed payment.
 * - onError: releases the hold and never settles.
 *
 * createFamilyHandler already mounts it as `.use(paymentMiddleware({ services }))`.
 */
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import * as z from 'zod';
import { logger } from '../observability/logger';
import { resourceUrl } from '../payment/challenge';
import { processPayment, releasePayment, settlePayment, type HttpRequestLike, type PaymentReceipt } from '../payment/core';
import { countRefusal, countSettlement } from '../payment/payment-metrics';
import type { Services } from '../services';
import type { ServiceContext } from './family-handler';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type PaymentRequest = Request<Event, Result, Error, ServiceContext>;

interface PaymentMiddlewareOptions {
  /** The services of this process (config, ledger, facilitator client, clock). */
  services: () => Services;
}

/** Namespaced key of the receipt in middy's per-request `internal` store. */
const RECEIPT_KEY = 'payment.receipt';

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

/** The request as the payment core sees it. */
const toHttpRequestLike = (request: PaymentRequest, services: Services): HttpRequestLike => {
  const { event, context } = request;
  const headers = context.service.request!.headers;
  const path = event.rawPath ?? event.requestContext?.http?.path ?? '/';
  return {
    method: event.requestContext?.http?.method ?? 'GET',
    path,
    url: resourceUrl(services.config.PUBLIC_BASE_URL, headers, event.requestContext?.domainName, path, event.rawQueryString ?? ''),
    headers,
    requestId: context.service.requestId,
    // The Lambda's own deadline (the local runtime gives the same 29 s as API Gateway).
    ...(typeof context.getRemainingTimeInMillis === 'function' ? { timeLeftMs: () => context.getRemainingTimeInMillis() } : {}),
  };
};

const takeReceipt = (request: PaymentRequest): PaymentReceipt | undefined => {
  const internal = request.internal as Record<string, unknown>;
  const receipt = internal[RECEIPT_KEY] as PaymentReceipt | undefined;
  // Taken once: after and onError must never both act on the same payment.
  delete internal[RECEIPT_KEY];
  return receipt;
};

/**
 * The before phase: decide the payment; a rejection ends the request here.
 * @returns the early response (402 / 502 / 504) or undefined to run the handler
 */
const paymentMiddlewareBefore = async (request: PaymentRequest, opts: PaymentMiddlewareOptions): Promise<Result | undefined> => {
  const service = request.context.service;
  if (!service?.route || !service.request) return undefined;
  const services = opts.services();
  const outcome = await processPayment(toHttpRequestLike(request, services), service.route, services.payment);
  switch (outcome.type) {
    case 'free':
      return undefined;
    case 'rejected':
      countRefusal(services.metrics, outcome.response, service.route.family);
      // An early answer skips every `after` phase (observabilityLayer's flush included): flush here.
      services.metrics.publish();
      return outcome.response;
    case 'verified':
      (request.internal as Record<string, unknown>)[RECEIPT_KEY] = outcome.receipt;
      return undefined;
  }
};

/** The after phase: settle a charged success, release anything else. */
const paymentMiddlewareAfter = async (request: PaymentRequest, opts: PaymentMiddlewareOptions): Promise<void> => {
  const receipt = takeReceipt(request);
  if (!receipt) return;
  const pd = opts.services().payment;
  const response = request.response;
  const status = response?.statusCode ?? 200;
  if (!response || status >= 400 || request.context.service.charge === false) {
    await releasePayment(receipt, status >= 400 ? `handler_status_${status}` : 'not_charged', pd);
    return;
  }
  const outcome = await settlePayment(receipt, request.context.service.requestId, pd);
  countSettlement(opts.services().metrics, receipt, outcome);
  if (outcome.type === 'settled') {
    request.response = { ...response, headers: { ...response.headers, ...outcome.headers } };
  } else {
    // No confirmed payment, no data: the handler's answer is dropped.
    request.response = outcome.response;
  }
};

/** The onError phase: release the hold; never settle. Never throws, so the error layer still answers. */
const paymentMiddlewareOnError = async (request: PaymentRequest, opts: PaymentMiddlewareOptions): Promise<void> => {
  const receipt = takeReceipt(request);
  if (!receipt) return;
  try {
    await releasePayment(receipt, 'handler_error', opts.services().payment);
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
