/**
 * Payment of MCP tool calls through the same core as HTTP (x402 "Transport: MCP"): the payment
 * payload travels in `params._meta["x402/payment"]`, a refusal is a tool result whose
 * structuredContent is the PaymentRequired object (never an HTTP 402 on the MCP POST), and the
 * settlement receipt goes back in `result._meta["x402/payment-response"]`.
 */
import { processPayment, releasePayment, settlePayment, type HttpResponseLike, type PaymentReceipt } from '../payment/core';
import { countRefusal, countSettlement } from '../payment/payment-metrics';
import type { Services } from '../services';
import type { McpTool } from './tools';

const PAYMENT_META_KEY = 'x402/payment';
const PAYMENT_RESPONSE_META_KEY = 'x402/payment-response';
/** The older x402 MCP convention (Vercel x402-mcp, x402 v1): a base64 string under a dotted key. */
const LEGACY_PAYMENT_META_KEY = 'x402.payment';
/** The Pro lane's budget after a paid tool call (the HTTP lane's X-Credits-* headers). */
const PRO_BUDGET_META_KEY = 'commodity-data/credits';

type ToolCharge = { type: 'free' } | { type: 'verified'; receipt: PaymentReceipt } | { type: 'refused'; body: unknown };
type SettledCharge = { type: 'settled'; receipt: unknown; budget?: Record<string, string> } | { type: 'refused'; body: unknown };

const decodeBase64Json = (value: string): unknown => JSON.parse(Buffer.from(value, 'base64').toString('utf8'));

/** What a refusal tells an MCP client: the PaymentRequired object when there is one (to pay again), else the error body. */
const refusalBody = (response: HttpResponseLike): unknown => {
  const required = response.headers['payment-required'];
  if (response.statusCode === 402 && required) {
    const body = JSON.parse(response.body) as { error?: { code?: string } };
    return body.error?.code === 'INVALID_PAYMENT' ? decodeBase64Json(required) : body;
  }
  return JSON.parse(response.body);
};

/** The payment of a tool call as the HTTP lane's headers, so the core sees one format (a Pro key wins, as on HTTP). */
const paymentHeadersOf = (meta: Record<string, unknown> | undefined, authorization: string | undefined): Record<string, string> => {
  if (authorization) return { authorization };
  const v2 = meta?.[PAYMENT_META_KEY];
  if (v2 !== undefined) return { 'payment-signature': Buffer.from(JSON.stringify(v2), 'utf8').toString('base64') };
  const legacy = meta?.[LEGACY_PAYMENT_META_KEY];
  if (typeof legacy === 'string') return { 'x-payment': legacy };
  return {};
};

/**
 * Decides the payment of one tool call before it runs.
 * @returns free (free tool, demo mode), verified (run, then settle) or refused (the tool result's content)
 */
const chargeToolCall = async (
  tool: McpTool,
  call: { meta: Record<string, unknown> | undefined; authorization: string | undefined; requestId: string },
  services: Services,
): Promise<ToolCharge> => {
  const url = `mcp://tool/${tool.name}`;
  const headers = paymentHeadersOf(call.meta, call.authorization);
  const outcome = await processPayment({ method: 'POST', path: url, url, headers, requestId: call.requestId }, tool.route, services.payment);
  if (outcome.type === 'free') return { type: 'free' };
  if (outcome.type === 'verified') return { type: 'verified', receipt: outcome.receipt };
  countRefusal(services.metrics, outcome.response, tool.route.family);
  return { type: 'refused', body: refusalBody(outcome.response) };
};

/** Settles a verified call whose tool answered; a failed settlement returns no data. */
const settleToolCall = async (receipt: PaymentReceipt, requestId: string, services: Services): Promise<SettledCharge> => {
  const outcome = await settlePayment(receipt, requestId, services.payment);
  countSettlement(services.metrics, receipt, outcome);
  if (outcome.type === 'rejected') return { type: 'refused', body: refusalBody(outcome.response) };
  const header = outcome.headers['payment-response'];
  if (header) return { type: 'settled', receipt: decodeBase64Json(header) };
  // A Pro-key call: what the HTTP lane sends as budget headers.
  const budget = Object.fromEntries(
    Object.entries(outcome.headers)
      .filter(([k]) => k.startsWith('x-credits-'))
      .map(([k, v]) => [k.slice(2), v]),
  );
  return { type: 'settled', receipt: null, budget };
};

/** Releases the hold of a call that failed or was not charged; the payer's authorization stays usable. */
const releaseToolCall = (receipt: PaymentReceipt, reason: string, services: Services): Promise<void> => releasePayment(receipt, reason, services.payment);

export { chargeToolCall, settleToolCall, releaseToolCall, PAYMENT_RESPONSE_META_KEY, PRO_BUDGET_META_KEY };
