/**
 * The peer of our 402 challenge for `npm run bench`: the official @x402/express middleware on
 * express, in its own process, answering the same challenge as ours. It fetches our 402 for the
 * URL given once and configures the middleware from it: the same price, network, asset, pay-to,
 * timeout, resource description and tags, the same extensions (bazaar schemas, payment-identifier)
 * and, through `unpaidResponseBody`, the same JSON body. Only the v1 compatibility fields of our
 * `accepts[]` entry (SPEC.md) have no place in the library's; the bench prints both answers' sizes.
 * Only the challenge is measured: the facilitator is asked what it supports, nothing else.
 * Usage: node --import tsx test/bench/x402-express-peer.ts <port> <url of our paid route>
 */
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import express from 'express';

const [port, url] = [Number(process.argv[2]), process.argv[3]!];
const ours = await fetch(url);
const header = ours.headers.get('payment-required');
if (ours.status !== 402 || !header) throw new Error(`x402 peer: ${url} answered ${ours.status}, not a 402 challenge`);
const challenge = decodePaymentRequiredHeader(header);
const body: unknown = await ours.json();
const option = challenge.accepts[0]!;
const path = new URL(url).pathname;

const facilitator = {
  verify: async () => Promise.reject(new Error('challenge bench: no verify')),
  settle: async () => Promise.reject(new Error('challenge bench: no settle')),
  getSupported: async () => ({ kinds: [{ x402Version: 2, scheme: option.scheme, network: option.network }], extensions: [], signers: {} }),
};
const resourceServer = new x402ResourceServer(facilitator as never).register(option.network, new ExactEvmScheme());
const app = express();
app.use(
  paymentMiddleware(
    {
      [`GET ${path}`]: {
        accepts: {
          scheme: option.scheme,
          network: option.network,
          payTo: option.payTo,
          price: { amount: option.amount, asset: option.asset, extra: option.extra },
          maxTimeoutSeconds: option.maxTimeoutSeconds,
        },
        description: challenge.resource?.description,
        mimeType: challenge.resource?.mimeType,
        serviceName: (challenge.resource as { serviceName?: string } | undefined)?.serviceName,
        tags: (challenge.resource as { tags?: string[] } | undefined)?.tags,
        extensions: challenge.extensions,
        unpaidResponseBody: () => ({ contentType: 'application/json', body }),
      },
    },
    resourceServer,
  ),
);
app.get(path, (_req, res) => void res.json({}));
app.listen(port, '127.0.0.1', () => console.log(`listening on ${port}`));
