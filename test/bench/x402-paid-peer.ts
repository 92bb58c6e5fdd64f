/**
 * The reference of a paid call for `npm run bench`: the official @x402/express middleware on
 * express, in its own process, charging the same price on the same local chain through the same
 * local facilitator as `npm start` (X402_LOCAL_CHAIN=1), and answering the same bytes (the body of
 * a paid /v1/price/CL of ours, read from a file). What it does per call is what x402's reference
 * does: /verify, the handler, /settle; no store.
 * Usage: node --import tsx test/bench/x402-paid-peer.ts <port> <facilitator url> <pay-to> <body file>
 */
import { readFileSync } from 'node:fs';
import { HTTPFacilitatorClient } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import express from 'express';
import { USDC_BY_NETWORK } from '../../shared/payment/assets';

const [port, facilitatorUrl, payTo, bodyFile] = [Number(process.argv[2]), process.argv[3]!, process.argv[4]!, process.argv[5]!];
const body = readFileSync(bodyFile);
const network = 'eip155:84532' as const;
const usdc = USDC_BY_NETWORK[network];

const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl })).register(network, new ExactEvmScheme());
const app = express();
app.use(
  paymentMiddleware(
    {
      'GET /v1/price/CL': {
        accepts: {
          scheme: 'exact',
          network,
          payTo,
          price: { amount: '10000', asset: usdc.address, extra: { name: usdc.eip712.name, version: usdc.eip712.version } },
          maxTimeoutSeconds: 60,
        },
        description: 'Latest cash price observation',
        mimeType: 'application/json',
      },
    },
    resourceServer,
  ),
);
app.get('/v1/price/CL', (_req, res) => void res.type('application/json').send(body));
app.listen(port, '127.0.0.1', () => console.log(`listening on ${port}`));
