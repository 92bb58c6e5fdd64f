/**
 * A minimal paid HTTP server over the batch lane, standing in for the payment core until the lane
 * is wired into it: GET /v1/price/{code} and /v1/decision/all answer 402 with the exact and the
 * batch-settlement options (PAYMENT-REQUIRED header, x402 v2), take a batch-settlement payment
 * in PAYMENT-SIGNATURE, and answer 200 with PAYMENT-RESPONSE, a refusal as a 402 whose `error` is
 * the lane's reason (with its corrective option), or a failed handler (`?fail=1`) as a 503 that is
 * not charged. It renders what the core will render, so the official client sees a real server.
 * It also times the lane's own work per paid call (authorize + commit).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import type { BatchLane, BatchPaymentOption } from '../../../shared/payment/batch/lane';
import { paymentOption } from '../../../shared/payment/challenge';
import type { RouteDef } from '../../../shared/routes/table';
import { DECISION_ROUTE, PRICE_ROUTE } from './helpers';

interface HarnessOptions {
  lane: BatchLane;
  network: 'eip155:84532' | 'eip155:8453';
  payTo: `0x${string}`;
}

interface Harness {
  url: string;
  /** Milliseconds of lane work (authorize + commit) of each paid call answered 200, in order. */
  laneWorkMs: number[];
  /** Status of every answer, for the test's bookkeeping. */
  statuses: number[];
  close(): Promise<void>;
}

const routeOf = (path: string): RouteDef | undefined =>
  path === '/v1/decision/all' ? DECISION_ROUTE : /^\/v1\/price\/[A-Z]{1,8}$/.test(path) ? PRICE_ROUTE : undefined;

const startBatchHarness = async (opts: HarnessOptions): Promise<Harness> => {
  const laneWorkMs: number[] = [];
  const statuses: number[] = [];
  let requests = 0;
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      statuses.push(status);
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(text);
    };
    const route = routeOf(url.pathname);
    if (!route) return send(404, { error: { code: 'NOT_FOUND' } });
    const path = url.pathname;
    const batch = opts.lane.offer(route, path);
    const exact = paymentOption(route, path, { X402_NETWORK: opts.network, X402_PAY_TO: opts.payTo, X402_MAX_TIMEOUT_SECONDS: 60 });
    const challenge = (error: string, batchOption: BatchPaymentOption = batch, status = 402) => {
      const required: PaymentRequired = {
        x402Version: 2,
        error,
        resource: { url: `http://${req.headers.host}${path}`, description: route.summary, mimeType: 'application/json' },
        accepts: [exact as unknown as PaymentRequirements, batchOption as unknown as PaymentRequirements],
      };
      send(status, required, { 'payment-required': encodePaymentRequiredHeader(required) });
    };
    const header = req.headers['payment-signature'] ?? req.headers['x-payment'];
    if (typeof header !== 'string') return challenge('PAYMENT_REQUIRED');
    let payload: PaymentPayload;
    try {
      payload = decodePaymentSignatureHeader(header);
    } catch {
      return challenge('invalid_payment');
    }
    const requestId = `h-${++requests}`;
    const t0 = process.hrtime.bigint();
    const auth = await opts.lane.authorize(payload, batch as unknown as PaymentRequirements, { route: route.id, path, requestId });
    const authMs = Number(process.hrtime.bigint() - t0) / 1e6;
    if (!auth.ok && auth.status === 200) {
      // The same voucher again: the answer it paid for (kept with the commit), nothing charged again.
      const kept = JSON.parse(Buffer.from(auth.answer).toString('utf8')) as { status: number; body: unknown; headers: Record<string, string> };
      return send(kept.status, kept.body, kept.headers);
    }
    if (!auth.ok) return challenge(auth.reason, auth.requirements, auth.status);
    if (url.searchParams.get('fail') === '1') {
      await opts.lane.release(auth.grant, 'handler_failed');
      return send(503, { error: { code: 'NO_DATA', message: 'handler failed (test); nothing was charged' } });
    }
    const body = { instrument: path.split('/').pop(), value: 71.23, request_id: requestId };
    const t1 = process.hrtime.bigint();
    const done = await opts.lane.commit(auth.grant, {
      answerOf: (receipt) => Buffer.from(JSON.stringify({ status: 200, body, headers: { 'payment-response': encodePaymentResponseHeader(receipt) } })),
    });
    const commitMs = Number(process.hrtime.bigint() - t1) / 1e6;
    if (!done.ok) return challenge(done.reason, undefined, done.status);
    // Deposits wait for the chain in commit: only voucher calls count as the lane's own work.
    if (auth.grant.kind === 'voucher') laneWorkMs.push(authMs + commitMs);
    send(200, body, { 'payment-response': encodePaymentResponseHeader(done.receipt) });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    laneWorkMs,
    statuses,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
};

export { startBatchHarness };
export type { Harness };
