/**
 * The shape every payment lane has (x402 `exact`, Pro credits, and any lane added later), and
 * what the one `charge` step (charge.ts) returns. Nothing here knows HTTP or MCP: transports decode
 * what the buyer presented into `Credentials` and render outcomes in their own folders
 * (shared/http/payment-render.ts, shared/mcp/payment.ts), as x402's transport-free
 * `x402ResourceServer` is wrapped by its HTTP layer and its MCP payment wrapper.
 */
import type { Address } from 'viem';
import type { Config } from '../config';
import type { HttpError } from '../errors/errors';
import type { CreditLedger } from '../pro/credit-port';
import type { RouteDef } from '../routes/table';
import type { PaymentRequiredBody } from './challenge';
import type { FacilitatorClient } from './facilitator';
import type { ChannelLaneStore } from './batch/channel-store';
import type { Lanes } from './lanes';
import type { PaymentLedger } from './ledger';
import type { DeferralLane } from './exact/deferred-store';
import type { ReceiptSigner } from './receipts';

/**
 * Time a paid request may spend before its answer is due when the runtime gives no deadline (API
 * Gateway cuts at 29 s): the HTTP middleware's and the MCP tools' `timeLeftMs` both count from it.
 */
const REQUEST_BUDGET_MS = 25_000;

/** Every lane, by the id metrics and grants carry. */
const LANE_IDS = ['x402-exact', 'x402-batch', 'pro'] as const;
type LaneId = (typeof LANE_IDS)[number];

/** What a buyer presented, decoded by the transport (never a raw header). */
type Credentials =
  | { kind: 'none' }
  /**
   * A Pro key (`Authorization: Bearer`); '' when the header is there but is not a bearer key. An x402
   * payload sent with it pays only when the key's credits are exhausted (nothing is charged twice).
   */
  | { kind: 'pro'; key: string; x402?: unknown }
  /** The JSON of an x402 payment payload (v1 or v2), as the transport decoded it. */
  | { kind: 'x402'; payload: unknown }
  /** Something the transport could not read as a payment (bad base64, two different payment headers). */
  | { kind: 'unreadable'; reason: string; message: string; details?: Record<string, unknown> };

/** One paid call as the core sees it. */
interface PaidCall {
  route: RouteDef;
  /**
   * What is bought: `path` names it (accepts[].resource; a proof is bound to it), `url` is the
   * absolute resource URL of the 402 (an MCP tool's is mcp://tool/<name>).
   */
  resource: { path: string; url: string };
  /** Unique per paid call, also when several calls share one request (an MCP batch). */
  callId: string;
  requestId: string;
  /** Milliseconds left before the answer is due: no settlement starts that cannot finish in time. */
  timeLeftMs: () => number;
}

/** A Pro key's credit budget after a call (the transport's X-Credits-* / RateLimit fields). */
interface Budget {
  charged: number;
  remaining: number;
  limit: number;
  periodStart: string;
  periodEnd: string;
}

/** An x402 settlement as the buyer is told of it (PAYMENT-RESPONSE; MCP `x402/payment-response`). */
interface Settlement {
  success: boolean;
  /** Why it is not (yet) a success; `settlement_pending` as x402's core says it: deferred (the data left, the chain follows). */
  errorReason?: string;
  transaction: string;
  network: string;
  payer: string;
  /** batch-settlement: the deposit taken with this call, if any. */
  amount?: string;
  /** batch-settlement: what the client keeps of its channel (charged amount, channel state). */
  extra?: Record<string, unknown>;
}

/** What a settled call tells its buyer. */
interface Receipt {
  settlement?: Settlement;
  budget?: Budget;
  /** A Pro-key call's signed receipt, settlement-shaped (delivery-receipt.ts): credits have no x402 settlement. */
  credits?: Settlement & { extensions: Record<string, unknown> };
}

/** Why a call is not served, with what the buyer needs to pay again. */
interface Refusal {
  error: HttpError;
  /** The x402 payment requirements (a 402, or a refused payment: `error` names the reason). */
  required?: PaymentRequiredBody;
  budget?: Budget;
  /** A settlement that failed or is pending. */
  settlement?: Settlement;
}

/** A granted call, held between authorization and its settlement or release. Each lane adds its own fields. */
interface Grant {
  lane: LaneId;
  callId: string;
}

type ChargeOutcome =
  | { type: 'free'; reason: 'free-route' | 'not-chargeable' | 'demo' }
  | { type: 'granted'; grant: Grant }
  /** An idempotent retry of a delivered payment: the transport's stored first answer, byte for byte. */
  | { type: 'replay'; answer: Uint8Array }
  | { type: 'refused'; refusal: Refusal };

type SettleOutcome = { type: 'settled'; receipt: Receipt } | { type: 'refused'; refusal: Refusal };

/** The transport's serialisation of its answer, stored for idempotent replays (payment-identifier). */
type AnswerToStore = (receipt: Receipt) => Uint8Array;

interface PaymentLog {
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

/**
 * The stores the lanes keep of their own, by lane id (the exact lane's claims are `PaymentDeps.ledger`,
 * Pro's credits `PaymentDeps.credits`). A lane with a store of its own names its type here and reads
 * it from `PaymentDeps.stores`; every builder of the payment services then has to supply it, so the
 * compiler names each one that does not. null: the lane has no store in this process (a free
 * function, a unit test of another lane) and refuses its payments.
 */
interface LaneStores {
  /**
   * The exact lane's deferred settlements (exact/deferral.ts). `deferred: null`: deferral is off in
   * this process (a free function, a unit test with an injected ledger) and every exact call settles first.
   */
  'x402-exact': { deferred: DeferralLane | null };
  /** Escrow channels of the batch-settlement lane. */
  'x402-batch': ChannelLaneStore | null;
}

/** What the lanes need: configuration, their stores, the facilitator, a clock, a log. */
interface PaymentDeps {
  config: Config;
  ledger: PaymentLedger;
  credits: CreditLedger;
  facilitator: FacilitatorClient;
  /** The stores of the lanes that keep their own (LaneStores). */
  stores: LaneStores;
  now: () => Date;
  log: PaymentLog;
  /** The lanes this process runs (default: the registry, lanes.ts); a test adds a lane of its own here. */
  lanes?: Lanes;
  /** Signs the offers of every 402 and a receipt for every paid answer (receipts.ts); none: unsigned. */
  receipts?: ReceiptSigner;
  /** Kids of rotated-out receipt keys, published beside the current one. */
  previousReceiptKids?: string[];
  /** Reads the receipt key from its secret once (receipt-secret.ts); transports await it before signing. */
  receiptsReady?: () => Promise<void>;
}

/**
 * One way of paying: the flow of a paid call. A new lane is one module implementing this and one
 * entry in the registry (lanes.ts LANE_REGISTRY: its offer and what it books).
 */
interface Lane<G extends Grant = Grant> {
  readonly id: LaneId;
  /** The x402 scheme whose payloads this lane takes (x402 lanes only). */
  readonly scheme?: string;
  /** Decides the call before any data is read. */
  authorize(credentials: Credentials, call: PaidCall, deps: PaymentDeps): Promise<ChargeOutcome>;
  /** The call delivered data: take the money (or refuse to serve it). Never throws. */
  settle(grant: G, deps: PaymentDeps, answer?: AnswerToStore): Promise<SettleOutcome>;
  /** The call delivered nothing: give everything back. Never throws. @param reason why (stores and logs record releaseReasonText of it) */
  release(grant: G, reason: ReleaseReason, deps: PaymentDeps): Promise<{ budget?: Budget }>;
}

/**
 * Why a granted call is given back: the handler threw, the handler answered an error (its status),
 * the handler said the answer is not charged, or the client went away before the answer.
 */
type ReleaseReason = { kind: 'handler_threw' } | { kind: 'handler_error'; status: number } | { kind: 'not_charged' } | { kind: 'client_gone' };

/** The reason as logs and ledgers record it (`handler_status_503`, `not_charged`, …). */
const releaseReasonText = (r: ReleaseReason): string =>
  r.kind === 'handler_error' ? `handler_status_${r.status}` : r.kind === 'handler_threw' ? 'handler_error' : r.kind;

/** The payer's address of an x402 grant, for logs and metrics. */
type PayerOf = (grant: Grant) => Address | null;

export { LANE_IDS, REQUEST_BUDGET_MS, releaseReasonText };
export type {
  AnswerToStore,
  Budget,
  ChargeOutcome,
  Credentials,
  Grant,
  Lane,
  LaneId,
  LaneStores,
  PaidCall,
  PayerOf,
  PaymentDeps,
  PaymentLog,
  Receipt,
  Refusal,
  ReleaseReason,
  Settlement,
  SettleOutcome,
};
