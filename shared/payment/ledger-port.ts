/**
 * The exact lane's payment ledger, its port: states, records and the operations the lane and the
 * reconciler use (ledger.ts: the DynamoDB adapter on the credit table, shared/store/tables.ts
 * CREDITS_TABLE; memory-ledger.ts: the in-memory one for unit tests). Its items:
 *
 *   pk X402#<payer>           sk NONCE#<nonce>        one item per EIP-3009 authorization (the claim);
 *                                                     once SETTLED it is also the sale, in the sales
 *                                                     index (gsi2pk X402SALE#<month>#<n>, sales.ts)
 *   pk X402ID#<payer>         sk ID#<payment id>      x402 payment-identifier: the one payload an id
 *                                                     names, and the first answer, for replays
 *
 * The paid path writes twice: the claim (before any data is read, overlapped with the
 * facilitator's /verify) and, after /settle, the settlement: one conditional update that closes the
 * claim and makes it the sale (with a payment id's answer, a transaction of the two items).
 * A claim is *watched* from the moment it is written (it sits in the sparse index WATCH_INDEX,
 * sharded by a hash of the nonce) until it is SETTLED or the chain proves its authorization unused
 * after `validBefore`: whatever happens to the process, the store or the facilitator between the
 * two writes, the reconciler finds the claim and asks the chain. Claim states:
 *
 *   CLAIMED  -> SETTLED   settled: the claim is the sale from then on; delivered = true
 *            -> PENDING   /settle answered without proof either way (timeout, lost answer)
 *            -> FAILED    the facilitator refused before anything was sent
 *            -> RELEASED  no settlement was asked for (handler failed, verify refused, out of time)
 *   CLAIMED (stale), PENDING, FAILED, RELEASED -> SETTLED (delivered = false: a retry of the same
 *            header gets the data) when the chain shows the authorization used; CLAIMED and PENDING
 *            -> UNPAID when it is unused after validBefore. Only the reconciler makes these moves.
 *
 * RELEASED and FAILED proofs may be claimed again, for the same path only: the authorization was not
 * used, and a proof is bound to the path it was first presented for. A CLAIMED proof is never taken
 * over: its holder may have reached /settle. Claims that close unpaid carry `expires_at` (DynamoDB
 * TTL); settled ones are sales and stay.
 */
import type { SaleRecord } from './sales';

/** DEFERRED and DEFERRED_LOSS: answered before settlement (exact/deferred-store.ts). */
type ClaimState = 'CLAIMED' | 'SETTLED' | 'PENDING' | 'FAILED' | 'RELEASED' | 'UNPAID' | 'DEFERRED' | 'DEFERRED_LOSS';

/**
 * How long a request can hold a claim: the Lambda timeout (28 s) plus a margin. The reconciler
 * leaves younger claims to their holder.
 */
const CLAIM_LIFETIME_MS = 30_000;
/** How long a claim closed unpaid stays readable (support lookups) before DynamoDB's TTL removes it. */
const CLOSED_CLAIM_RETENTION_S = 30 * 24 * 3600;
/** How long a delivered payment can be fetched again under its payment id. */
const REPLAY_WINDOW_MS = 60 * 60 * 1000;
/** Watch index partitions (a partition takes ~1,000 writes/s; a paid call writes it twice). */
const WATCH_SHARDS = 16;

/** Identifies one payment proof: the EIP-3009 (payer, nonce) pair, lower-case hex. */
interface ClaimKey {
  payer: string;
  nonce: string;
}

/** What the ledger knows about a payment proof. */
interface ClaimRecord extends ClaimKey {
  state: ClaimState;
  /** The paid call that holds (or last held) the claim. */
  claimId: string;
  route: string;
  path: string;
  network: string;
  asset: string;
  payTo: string;
  /** USDC atomic units, as a decimal string. */
  amount: string;
  /** Unix seconds after which the authorization can never settle. */
  validBefore: number;
  claimedAt: string;
  updatedAt: string;
  /** Claims made on this proof (a released proof can be claimed again). */
  attempts: number;
  /** Still in the watch index: the reconciler has not closed it. */
  watched: boolean;
  transaction?: string;
  settledAt?: string;
  /** Whether the data was returned for a SETTLED payment. */
  delivered?: boolean;
  reason?: string;
  /** The payment payload sent to the facilitator (JSON), kept while a settlement may be re-submitted. */
  payload?: string;
}

type NewClaim = Pick<ClaimRecord, 'payer' | 'nonce' | 'claimId' | 'route' | 'path' | 'network' | 'asset' | 'payTo' | 'amount' | 'validBefore' | 'claimedAt'> & {
  payload: string;
};

type ClaimResult = { ok: true } | { ok: false; existing: ClaimRecord | null };

/** What a payment id (x402 `payment-identifier`) was first used with. */
interface PaymentIdUse {
  nonce: string;
  /** Digest of the payment payload (signature and authorization). */
  digest: string;
  /** The request path (or MCP tool resource) it paid for. */
  path: string;
}

/** A payment id's binding, with the first answer once the payment was delivered. */
interface PaymentIdBinding extends PaymentIdUse {
  answer?: StoredAnswer;
}

/** The first answer to a paid call, stored for idempotent replays (opaque to the ledger). */
interface StoredAnswer {
  /** The transport's serialisation of its answer (gzip, so decision packs fit an item). */
  data: Uint8Array;
  settledAt: string;
}

/** How the holder's settlement write ended. */
type SettleWrite = 'recorded' | 'lost';

/** A reconciler verdict on a watched claim. */
type Resolution = { state: 'SETTLED'; sale: SaleRecord } | { state: 'UNPAID' | 'CLOSED'; reason: string };

/** An entry of the watch index. */
interface WatchEntry extends ClaimKey {
  since: string;
}

/** Storage port of the exact lane (DynamoDB in AWS and locally; MemoryPaymentLedger in unit tests). */
interface PaymentLedger {
  /** Claims a proof once (watched from now on); a conflict returns the record that holds it. */
  claim(rec: NewClaim): Promise<ClaimResult>;
  get(key: ClaimKey): Promise<ClaimRecord | null>;
  /** CLAIMED (ours) -> RELEASED: no settlement was asked for; the proof may be used again. */
  release(key: ClaimKey, claimId: string, reason: string): Promise<void>;
  /** CLAIMED (ours) -> PENDING: submitted, outcome unknown. */
  markPending(key: ClaimKey, claimId: string, p: { transaction: string; reason: string }): Promise<void>;
  /** CLAIMED (ours) -> FAILED: refused before anything was sent. */
  markFailed(key: ClaimKey, claimId: string, p: { transaction: string; reason: string }): Promise<void>;
  /**
   * CLAIMED (ours) -> SETTLED and delivered, the claim made its sale, in one write (with the answer
   * stored under its payment id: one transaction). Idempotent: a retry after an unacknowledged write reads as
   * recorded. A claim the reconciler settled first is taken for delivery instead.
   * @returns recorded (serve the data) or lost (the claim is not ours to deliver)
   */
  settle(key: ClaimKey, claimId: string, s: { sale: SaleRecord; paymentId?: string; answer?: StoredAnswer }): Promise<SettleWrite>;
  /** Takes a SETTLED but undelivered proof for delivery by this call; false if not deliverable. */
  takeDelivery(key: ClaimKey, claimId: string): Promise<boolean>;
  /** Gives a delivery back (the handler failed), so that another retry can still get the data. */
  returnDelivery(key: ClaimKey, claimId: string): Promise<void>;
  /**
   * Binds a payer's payment id to one payload and path, once.
   * @returns the existing binding when the id was already bound (equal to `use` for an honest retry)
   */
  bindPaymentId(payer: string, id: string, use: PaymentIdUse): Promise<PaymentIdBinding | null>;
  /** Stores the answer of a redelivered payment under its payment id. */
  storeAnswer(payer: string, id: string, nonce: string, answer: StoredAnswer): Promise<void>;
}

/**
 * The ledger as the reconciler and finance read it: the lane's operations plus the watch index and
 * the sales records. Only the reconciler and the CLIs build it; paid functions carry the lane's part.
 */
interface ReconcileLedger extends PaymentLedger {
  /** Sales settled in a calendar month (YYYY-MM), oldest first, every lane. */
  salesOfMonth(month: string): Promise<SaleRecord[]>;
  listWatched(limitPerShard?: number): Promise<WatchEntry[]>;
  /**
   * Closes a watched claim seen in `observed` (state and holder, so that a claim moved meanwhile is
   * left alone): SETTLED books the sale in the same write; UNPAID closes a CLAIMED/PENDING proof the
   * chain never used; CLOSED keeps a RELEASED/FAILED state and only stops watching it.
   * @returns false when the claim was not as observed any more
   */
  resolve(key: ClaimKey, observed: Pick<ClaimRecord, 'state' | 'claimId'>, outcome: Resolution): Promise<boolean>;
  /** Writes a sale record on its own (finance fixtures, tools). */
  recordSale(sale: SaleRecord): Promise<void>;
}

export { CLAIM_LIFETIME_MS, CLOSED_CLAIM_RETENTION_S, REPLAY_WINDOW_MS, WATCH_SHARDS };
export type {
  PaymentLedger,
  ReconcileLedger,
  ClaimKey,
  ClaimRecord,
  ClaimState,
  NewClaim,
  ClaimResult,
  WatchEntry,
  Resolution,
  PaymentIdUse,
  PaymentIdBinding,
  StoredAnswer,
  SettleWrite,
};
