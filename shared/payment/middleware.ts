/**
 * Payment middleware (placeholder of the walking skeleton): in demo mode paid routes serve
 * without a challenge; with X402_ENFORCE on, or `X-Force-402: 1`, a paid route without
 * payment answers 402. Verification and settlement come with the x402 lane.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Deps } from '../http/deps';
import type { ServiceContext } from '../http/family-handler';
import { PaymentError } from '../http/errors';

interface PaymentMiddlewareOptions {
  deps: () => Deps;
}

const paymentMiddleware = (
  opts: PaymentMiddlewareOptions,
): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, ServiceContext> => ({
  name: 'payment',
  before: async (request) => {
    const route = request.context.service.route;
    if (!route?.priceKey) return;
    const headers = request.context.service.request!.headers;
    const enforce = opts.deps().config.X402_ENFORCE || headers['x-force-402'] === '1';
    if (enforce) throw new PaymentError('PAYMENT_REQUIRED', 'payment required');
  },
});

export { paymentMiddleware };
export type { PaymentMiddlewareOptions };
