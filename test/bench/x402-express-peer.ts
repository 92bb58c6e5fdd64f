/**
 * The peer of our 402 challenge for `npm run bench`: the official @x402/express middleware on
 * express, in its own process, challenging GET /v1/price/CL for the same price on the same network.
 * Only the challenge is measured: the facilitator is asked what it supports, nothing else.
 * Usage: node --import tsx test/bench/x402-express-peer.ts <port> <payTo>
 */
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import express from 'express';

const [port, payTo] = [Number(process.argv[2]), process.argv[3]!];
const facilitator = {
  verify: async () => Promise.reject(new Error('challenge bench: no verify')),
  settle: async () => Promise.reject(new Error('challenge bench: no settle')),
  getSupported: async () => ({ kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }], extensions: [], signers: {} }),
};
const resourceServer = new x402ResourceServer(facilitator as never).register('eip155:84532', new ExactEvmScheme());
const app = express();
app.use(
  paymentMiddleware(
    { 'GET /v1/price/CL': { accepts: { scheme: 'exact', price: '$0.01', network: 'eip155:84532', payTo }, description: 'Latest price of CL' } },
    resourceServer,
  ),
);
app.get('/v1/price/CL', (_req, res) => void res.json({}));
app.listen(port, '127.0.0.1', () => console.log(`listening on ${port}`));
