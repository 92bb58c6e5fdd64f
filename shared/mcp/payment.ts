/**
 * Payment of MCP tool calls through the payment core, without any HTTP in between (x402 "Transport:
 * MCP", as x402's own MCP payment wrapper calls verify and settle directly): the payment payload
 * travels in `params._meta["x402/payment"]`, a refusal is a tool result whose structuredContent is
 * the PaymentRequired object (never an HTTP 402 on the MCP POST), and the settlement receipt goes
 * back in `result._meta["x402/payment-response"]`. A Pro key in the POST's Authorization header
 * pays instead; its budget comes back in `result._meta["commodity-data/credits"]`. Either way the
 * settlement carries the answer's signed receipt (offer-receipt; a Pro call's in
 * `_meta["commodity-data/credits-receipt"]`), signed over the text content served.
 *
 * One POST can carry a JSON-RPC batch: the paid work it can start is bounded (MAX_PAID_CALLS_PER_POST
 * calls, PAID_CALLS_AT_ONCE charged at once), so one request cannot fan out into hundreds of claims
 * and facilitator calls; calls past the bound are refused with a JSON-RPC error, nothing charged.
 */
import { type CallToolResult, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { Semaphore } from '../concurrency/semaphore';
import { mapError } from '../errors/error-mapper';
import { ifNoneMatches, tagOfResult } from '../http/conditional';
import type { HandlerResult } from '../http/types';
import { charge, release, settle } from '../payment/charge';
import { withDeliveryReceipt } from '../payment/delivery-receipt';
import { REQUEST_BUDGET_MS, type Budget, type Credentials, type PaidCall, type Receipt, type Refusal } from '../payment/lane';
import { countRefusal, countSettlement } from '../payment/payment-metrics';
import { bearerKey } from '../pro/keys';
import { isChargeable } from '../routes/table';
import type { Services } from '../services';
import type { McpTool } from './tools';

const PAYMENT_META_KEY = 'x402/payment';
const PAYMENT_RESPONSE_META_KEY = 'x402/payment-response';
/** The older x402 MCP convention (Vercel x402-mcp, x402 v1): a base64 string under a dotted key. */
const LEGACY_PAYMENT_META_KEY = 'x402.payment';
/** The Pro lane's budget after a paid tool call (what HTTP sends as X-Credits-* headers). */
const PRO_BUDGET_META_KEY = 'commodity-data/credits';
/** A Pro-key call's signed receipt, settlement-shaped (what HTTP sends as X-Credits-Receipt). */
const PRO_RECEIPT_META_KEY = 'commodity-data/credits-receipt';

/** Issue 37: the ETag of a paid tool's answer (what HTTP sends as the ETag header), for its `if_none_match` argument. */
const ETAG_META_KEY = 'commodity-data/etag';

/** Issue 37: the data named by `if_none_match` is still current; nothing was charged. */
const notModifiedResult = (etag: string): CallToolResult => ({
  content: [{ type: 'text', text: `not modified: the data of etag ${etag} is still current; nothing was charged` }],
  structuredContent: { not_modified: true, etag },
  _meta: { [ETAG_META_KEY]: etag },
});

/** Paid tool calls one POST may start; the rest of a batch gets a JSON-RPC error. */
const MAX_PAID_CALLS_PER_POST = 32;
/** Paid tool calls of one POST charged at once (the others wait their turn). */
const PAID_CALLS_AT_ONCE = 4;

/** The paid work of one MCP POST: how many paid calls it started, and a turn for each charge. */
class PostPayments {
  private started = 0;
  private readonly charging = new Semaphore(PAID_CALLS_AT_ONCE);

  /** Counts a paid call; false when the POST already started its share. */
  admit(): boolean {
    if (this.started >= MAX_PAID_CALLS_PER_POST) return false;
    this.started++;
    return true;
  }

  turn<T>(fn: () => Promise<T>): Promise<T> {
    return this.charging.run(fn);
  }
}

const dataResult = (body: unknown, meta?: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(body) }],
  structuredContent: body as Record<string, unknown>,
  ...(meta ? { _meta: meta } : {}),
});

/** A tool error the model can act on: the same body HTTP would answer (error code, message, valid values). */
const errorResult = (body: unknown, meta?: Record<string, unknown>): CallToolResult => ({ ...dataResult(body, meta), isError: true });

/** A key's budget as the HTTP lane's header names without `x-` (credits-charged, credits-remaining …). */
const budgetMeta = (b: Budget) => ({
  [PRO_BUDGET_META_KEY]: {
    'credits-charged': String(b.charged),
    'credits-remaining': String(b.remaining),
    'credits-limit': String(b.limit),
    'credits-reset': b.periodEnd,
  },
});

/** What a refusal tells an MCP client: the PaymentRequired object to pay (again), else the error body. */
const refusalResult = (r: Refusal, requestId: string): CallToolResult => {
  const meta = { ...(r.budget ? budgetMeta(r.budget) : {}), ...(r.settlement ? { [PAYMENT_RESPONSE_META_KEY]: r.settlement } : {}) };
  const payable = r.required && (r.error.code === 'PAYMENT_REQUIRED' || r.error.code === 'INVALID_PAYMENT');
  return errorResult(payable ? r.required : mapError(r.error, requestId).body, Object.keys(meta).length ? meta : undefined);
};

const receiptMeta = (r: Receipt): Record<string, unknown> => ({
  ...(r.settlement ? { [PAYMENT_RESPONSE_META_KEY]: r.settlement } : {}),
  ...(r.budget ? budgetMeta(r.budget) : {}),
  ...(r.credits ? { [PRO_RECEIPT_META_KEY]: r.credits } : {}),
});

/** What a tool call presents as payment: the POST's Pro key wins (as on HTTP), else the x402 payload in `_meta`. */
const credentialsOf = (meta: Record<string, unknown> | undefined, authorization: string | undefined): Credentials => {
  const key = bearerKey(authorization);
  if (key !== null) return { kind: 'pro', key };
  const payload = meta?.[PAYMENT_META_KEY];
  if (payload !== undefined) return { kind: 'x402', payload };
  const legacy = meta?.[LEGACY_PAYMENT_META_KEY];
  if (typeof legacy === 'string') {
    try {
      return { kind: 'x402', payload: JSON.parse(Buffer.from(legacy, 'base64').toString('utf8')) };
    } catch {
      return { kind: 'unreadable', reason: 'malformed_payment', message: `_meta["${LEGACY_PAYMENT_META_KEY}"] is not base64 JSON` };
    }
  }
  return { kind: 'none' };
};

interface ToolCall {
  meta: Record<string, unknown> | undefined;
  /** The POST's Authorization header. */
  authorization: string | undefined;
  requestId: string;
  /** Unique per tool call (a POST may carry many). */
  callId: string;
  /** The paid work of the POST this call belongs to. */
  post: PostPayments;
  /** Issue 37: the parsed input the answer's ETag is of, and the `if_none_match` argument. */
  conditional?: { ifNoneMatch: string | null; params: unknown; query: unknown };
}

/**
 * Runs one tool call paid through the core: charge, run the route's handler, then settle (data
 * returned with the receipt) or release (the handler failed or its answer is not charged).
 * @param run the route's handler, in-process
 * @throws ProtocolError when the POST already started its share of paid calls (nothing charged)
 */
const paidToolCall = async (tool: McpTool, call: ToolCall, services: Services, run: () => Promise<HandlerResult>): Promise<CallToolResult> => {
  const url = `mcp://tool/${tool.name}`;
  const paid: PaidCall = {
    route: tool.route,
    resource: { path: url, url },
    callId: call.callId,
    requestId: call.requestId,
    // An MCP POST has API Gateway's budget too.
    timeLeftMs: (
      (start) => () =>
        start + REQUEST_BUDGET_MS - services.now().getTime()
    )(services.now().getTime()),
  };
  await services.payment.receiptsReady?.();
  // Issue 37: a call naming the current data's tag is answered before any lane is asked (nothing charged).
  let precomputed: HandlerResult | undefined;
  const tagOf = (r: HandlerResult) => (call.conditional ? tagOfResult(services.etagKey, { route: tool.route, ...call.conditional }, r) : Promise.resolve(null));
  if (call.conditional?.ifNoneMatch) {
    // A failed read decides nothing here: the call goes on and fails inside its payment (released).
    precomputed = await run().catch(() => undefined);
    const etag = precomputed ? await tagOf(precomputed) : null;
    if (etag && ifNoneMatches(call.conditional.ifNoneMatch, etag)) return notModifiedResult(etag);
  }
  const credentials = credentialsOf(call.meta, call.authorization);
  const chargeable = isChargeable(tool.route, services.config) && (credentials.kind !== 'none' || services.config.X402_ENFORCE);
  if (chargeable && !call.post.admit()) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      `one request may start at most ${MAX_PAID_CALLS_PER_POST} paid tool calls; nothing was charged for this one, send it in another request`,
    );
  }
  const outcome = await call.post.turn(() => charge(credentials, paid, services.payment));
  if (outcome.type === 'refused') {
    countRefusal(services.metrics, outcome.refusal, tool.route.family, { route: tool.route.id, credentials, log: services.payment.log });
    return refusalResult(outcome.refusal, call.requestId);
  }
  if (outcome.type === 'replay') return JSON.parse(Buffer.from(outcome.answer).toString('utf8')) as CallToolResult;

  let result: HandlerResult;
  try {
    result = precomputed ?? (await run());
  } catch (err) {
    const released = outcome.type === 'granted' ? await release(outcome.grant, { kind: 'handler_threw' }, services.payment) : {};
    return errorResult(mapError(err, call.requestId, services.config.STAGE === 'dev').body, released.budget ? budgetMeta(released.budget) : undefined);
  }
  const etag = await tagOf(result);
  const tagMeta = etag ? { [ETAG_META_KEY]: etag } : {};
  if (outcome.type === 'free') return dataResult(result.body, etag ? tagMeta : undefined);
  if (result.charge === false) {
    const released = await release(outcome.grant, { kind: 'not_charged' }, services.payment);
    return dataResult(result.body, released.budget ? { ...budgetMeta(released.budget), ...tagMeta } : undefined);
  }
  // The receipt (offer-receipt, in `_meta["x402/payment-response"]`) is signed over the text content served.
  // Signed once: the stored answer (replays) and this answer carry the same receipt.
  let signedOnce: Receipt | undefined;
  const signed = (receipt: Receipt) => (signedOnce ??= withDeliveryReceipt(outcome.grant, receipt, url, JSON.stringify(result.body), services.payment));
  const settled = await settle(outcome.grant, services.payment, (receipt) =>
    Buffer.from(JSON.stringify(dataResult(result.body, { ...receiptMeta(signed(receipt)), ...tagMeta })), 'utf8'),
  );
  countSettlement(services.metrics, outcome.grant, settled, services.payment, tool.route.id);
  // No confirmed payment, no data.
  if (settled.type === 'refused') return refusalResult(settled.refusal, call.requestId);
  return dataResult(result.body, { ...receiptMeta(signed(settled.receipt)), ...tagMeta });
};

export { paidToolCall, errorResult, PostPayments };
export type { ToolCall };
