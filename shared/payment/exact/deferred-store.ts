/**
 * The deferred settlements of the exact lane, in the credit table beside the claims (ledger.ts):
 *
 *   pk X402#<payer>          sk NONCE#<nonce>     the claim; DEFERRED = answered, settlement owed. It
 *                                                 stays in the watch index (the reconciler's backstop)
 *                                                 and is the settle worker's work item (the DynamoDB
 *                                                 stream of this table on AWS, a timer locally)
 *   pk X402DEFER#<payer>     sk PAYER             the payer's unsettled deferred calls and amount, and
 *                                                 whether deferral is refused to it (after a loss)
 *   pk X402LOSS#<yyyy-mm>    sk <at>#<payer>#<n>  a deferred call whose settlement failed: payer,
 *                                                 route, amount (finance: `npm run usage`)
 *
 * Moves, each one transaction, so that the payer's outstanding amount is always the sum of its
 * DEFERRED claims:
 *   CLAIMED (ours) -> DEFERRED        + payer outstanding += amount, only within the caps, only if
 *                                       the payer is not refused (two processes share the condition)
 *   DEFERRED -> SETTLED (the sale)    + payer outstanding -= amount
 *   DEFERRED -> DEFERRED_LOSS         + payer outstanding -= amount, payer refused (unless the
 *                                       worker was late: the seller's loss), loss item
 * A settle worker holds a DEFERRED claim by a lease (lease_until), so that only one asks /settle at
 * a time; a lease that ran out means its worker may have died after /settle, and the next one
 * asks the chain first (deferred-worker.ts).
 */
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CREDITS_WATCH_INDEX } from '../../store/tables';
import { WATCH_SHARDS, type ClaimKey, type ClaimRecord, type StoredAnswer } from '../ledger';
import { saleAttributesOfClaim, type SaleRecord } from '../sales';

/** A payer's deferral account. */
interface PayerDeferral {
  /** USDC atomic units answered but not settled yet. */
  outstanding: bigint;
  calls: number;
  /** Set once a deferred settlement of this payer failed: its calls settle first from then on. */
  refusedAt?: string;
  refusedReason?: string;
}

/** The caps a deferral must stay within, after adding the call. */
interface DeferralCaps {
  maxOutstanding: bigint;
  maxCalls: number;
}

type DeferResult = { deferred: true } | { deferred: false; why: 'payer_refused' | 'over_cap' | 'not_ours' };

/** A DEFERRED claim as a settle worker holds it. */
interface DeferredClaim extends ClaimRecord {
  /** /settle attempts made on it before this one (0: nobody asked yet). */
  settleAttempts: number;
}

/** A booked deferred loss. */
interface DeferredLoss {
  payer: string;
  nonce: string;
  route: string;
  path: string;
  /** USDC atomic units. */
  amount: string;
  reason: string;
  lostAt: string;
}

/**
 * The request side of deferred settlement: what a paid call's function runs (exact/deferral.ts). The
 * settle worker's side ({@link DeferredLedger}) is apart, so that a data function does not bundle it.
 */
interface DeferralLane {
  /** CLAIMED (ours) -> DEFERRED within the payer's caps (with the answer kept under its payment id). */
  defer(key: ClaimKey, claimId: string, amount: string, caps: DeferralCaps, answer?: { paymentId: string; answer: StoredAnswer }): Promise<DeferResult>;
}

/** Storage port of deferred settlement, the settle worker's side (DynamoDB; the tests use it on the embedded store). */
interface DeferredLedger extends DeferralLane {
  get(key: ClaimKey): Promise<DeferredClaim | null>;
  /** Takes a DEFERRED claim for `ms` if no live lease holds it; null when not DEFERRED or held. */
  lease(key: ClaimKey, owner: string, ms: number): Promise<DeferredClaim | null>;
  /** DEFERRED -> SETTLED, the claim made its sale; false when it was not DEFERRED any more. */
  settled(key: ClaimKey, sale: SaleRecord): Promise<boolean>;
  /** DEFERRED -> DEFERRED_LOSS, the loss booked, the payer refused deferral (unless told not to); false when not DEFERRED any more. */
  lost(key: ClaimKey, reason: string, refusePayer?: boolean): Promise<boolean>;
  payer(payer: string): Promise<PayerDeferral>;
  /** DEFERRED claims, oldest first (by when they were claimed). */
  listDeferred(limitPerShard?: number): Promise<ClaimKey[]>;
  lossesOfMonth(month: string): Promise<DeferredLoss[]>;
}

const claimKeyOf = (k: ClaimKey) => ({ pk: `X402#${k.payer.toLowerCase()}`, sk: `NONCE#${k.nonce.toLowerCase()}` });
const payerKeyOf = (payer: string) => ({ pk: `X402DEFER#${payer.toLowerCase()}`, sk: 'PAYER' });
const lossPk = (month: string) => `X402LOSS#${month}`;

const conditionFailed = (err: unknown): boolean => (err as { name?: string })?.name === 'ConditionalCheckFailedException';
/** Which items of a cancelled transaction failed their condition (by position). */
const cancelledByCondition = (err: unknown): boolean[] | null => {
  const e = err as { name?: string; CancellationReasons?: Array<{ Code?: string }> };
  if (e?.name !== 'TransactionCanceledException') return null;
  return (e.CancellationReasons ?? []).map((r) => r.Code === 'ConditionalCheckFailed');
};

const toDeferredClaim = (i: Record<string, unknown>): DeferredClaim => ({
  payer: String(i.payer),
  nonce: String(i.nonce),
  state: i.state as ClaimRecord['state'],
  claimId: String(i.claim_id),
  route: String(i.route),
  path: String(i.path),
  network: String(i.network),
  asset: String(i.asset),
  payTo: String(i.pay_to),
  amount: String(i.amount),
  validBefore: Number(i.valid_before),
  claimedAt: String(i.claimed_at),
  updatedAt: String(i.updated_at),
  attempts: Number(i.attempts ?? 1),
  watched: i.gsi1pk !== undefined,
  settleAttempts: Number(i.settle_attempts ?? 0),
  ...(i.transaction !== undefined ? { transaction: String(i.transaction) } : {}),
  ...(i.delivered !== undefined ? { delivered: Boolean(i.delivered) } : {}),
  ...(i.reason !== undefined ? { reason: String(i.reason) } : {}),
  ...(i.payload !== undefined ? { payload: String(i.payload) } : {}),
});

/** The request side on DynamoDB: the deferral write, and the reads its recovery needs. */
class DynamoDeferralLane implements DeferralLane {
  constructor(
    readonly doc: DynamoDBDocumentClient,
    readonly table: string,
    readonly now: () => Date = () => new Date(),
  ) {}

  async defer(key: ClaimKey, claimId: string, amount: string, caps: DeferralCaps, answer?: { paymentId: string; answer: StoredAnswer }): Promise<DeferResult> {
    const at = this.now().toISOString();
    const room = caps.maxOutstanding - BigInt(amount);
    if (room < 0n || caps.maxCalls < 1) return { deferred: false, why: 'over_cap' };
    const items = [
      {
        Update: {
          TableName: this.table,
          Key: claimKeyOf(key),
          ConditionExpression: '#state = :claimed AND claim_id = :claimId',
          // delivered: the data leaves once this write is acknowledged (one payment, one delivery).
          UpdateExpression: 'SET #state = :deferred, delivered = :yes, deferred_at = :at, updated_at = :at, lease_until = :zero, settle_attempts = :zero',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':claimed': 'CLAIMED', ':claimId': claimId, ':deferred': 'DEFERRED', ':yes': true, ':at': at, ':zero': 0 },
        },
      },
      {
        Update: {
          TableName: this.table,
          Key: payerKeyOf(key.payer),
          // Both caps hold after this call, whichever process adds it: the store decides, not a read.
          ConditionExpression:
            'attribute_not_exists(refused_at) AND (attribute_not_exists(outstanding) OR outstanding <= :room) AND (attribute_not_exists(calls) OR calls < :maxCalls)',
          UpdateExpression: 'ADD outstanding :amount, calls :one SET updated_at = :at',
          ExpressionAttributeValues: { ':room': Number(room), ':maxCalls': caps.maxCalls, ':amount': Number(amount), ':one': 1, ':at': at },
        },
      },
      ...(answer
        ? [
            {
              Update: {
                TableName: this.table,
                Key: { pk: `X402ID#${key.payer.toLowerCase()}`, sk: `ID#${answer.paymentId}` },
                UpdateExpression: 'SET answer = :answer, settled_at = :settled',
                ConditionExpression: 'nonce = :nonce',
                ExpressionAttributeValues: { ':answer': answer.answer.data, ':settled': answer.answer.settledAt, ':nonce': key.nonce.toLowerCase() },
              },
            },
          ]
        : []),
    ];
    try {
      await this.doc.send(new TransactWriteCommand({ TransactItems: items } as never));
      return { deferred: true };
    } catch (err) {
      const failed = cancelledByCondition(err);
      if (!failed?.some(Boolean)) throw err;
      if (failed[0]) {
        // Our own earlier attempt landed although its answer was lost.
        const rec = await this.get(key);
        return rec?.state === 'DEFERRED' && rec.claimId === claimId ? { deferred: true } : { deferred: false, why: 'not_ours' };
      }
      if (failed[1]) return { deferred: false, why: (await this.payer(key.payer)).refusedAt ? 'payer_refused' : 'over_cap' };
      // The payment id names another payload: settle first, as without an id.
      return { deferred: false, why: 'not_ours' };
    }
  }

  async get(key: ClaimKey): Promise<DeferredClaim | null> {
    const res = await this.doc.send(new GetCommand({ TableName: this.table, Key: claimKeyOf(key), ConsistentRead: true }));
    return res.Item ? toDeferredClaim(res.Item) : null;
  }

  async payer(payer: string): Promise<PayerDeferral> {
    const res = await this.doc.send(new GetCommand({ TableName: this.table, Key: payerKeyOf(payer), ConsistentRead: true }));
    const i = res.Item ?? {};
    return {
      outstanding: BigInt(Number(i.outstanding ?? 0)),
      calls: Number(i.calls ?? 0),
      ...(i.refused_at !== undefined ? { refusedAt: String(i.refused_at), refusedReason: String(i.refused_reason ?? '') } : {}),
    };
  }
}

/** The settle worker's side on DynamoDB (functions/settle-deferred.ts, the reconciler's backstop, npm start's timer). */
class DynamoDeferredLedger extends DynamoDeferralLane implements DeferredLedger {
  async lease(key: ClaimKey, owner: string, ms: number): Promise<DeferredClaim | null> {
    const nowMs = this.now().getTime();
    try {
      const res = await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: claimKeyOf(key),
          ConditionExpression: '#state = :deferred AND (attribute_not_exists(lease_until) OR lease_until < :now)',
          // settle_attempts counts leases: a lease taken after another means a /settle may have gone out.
          UpdateExpression: 'SET lease_until = :until, lease_owner = :owner ADD settle_attempts :one',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':deferred': 'DEFERRED', ':now': nowMs, ':until': nowMs + ms, ':owner': owner, ':one': 1 },
          ReturnValues: 'ALL_NEW',
        }),
      );
      const claim = toDeferredClaim(res.Attributes ?? {});
      return { ...claim, settleAttempts: claim.settleAttempts - 1 };
    } catch (err) {
      if (conditionFailed(err)) return null;
      throw err;
    }
  }

  /** The payer's account moved back by the claim's amount, in the same transaction as the claim's own move. */
  private release(key: ClaimKey, amount: string, at: string, extra?: { expr: string; values: Record<string, unknown> }) {
    return {
      Update: {
        TableName: this.table,
        Key: payerKeyOf(key.payer),
        UpdateExpression: `ADD outstanding :minus, calls :minusOne SET updated_at = :at${extra ? `, ${extra.expr}` : ''}`,
        ExpressionAttributeValues: { ':minus': -Number(amount), ':minusOne': -1, ':at': at, ...extra?.values },
      },
    };
  }

  async settled(key: ClaimKey, sale: SaleRecord): Promise<boolean> {
    const at = this.now().toISOString();
    const attrs = saleAttributesOfClaim(sale);
    const names: Record<string, string> = { '#state': 'state' };
    const values: Record<string, unknown> = { ':deferred': 'DEFERRED', ':settled': 'SETTLED', ':at': at };
    const sets = ['#state = :settled', 'updated_at = :at'];
    for (const [f, v] of Object.entries(attrs)) {
      names[`#${f}`] = f;
      values[`:${f}`] = v;
      sets.push(`#${f} = :${f}`);
    }
    return this.transact([
      {
        Update: {
          TableName: this.table,
          Key: claimKeyOf(key),
          ConditionExpression: '#state = :deferred',
          UpdateExpression: `SET ${sets.join(', ')} REMOVE payload, gsi1pk, gsi1sk, lease_until, lease_owner`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
      this.release(key, sale.amount, at),
    ]);
  }

  async lost(key: ClaimKey, reason: string, refusePayer = true): Promise<boolean> {
    const rec = await this.get(key);
    if (rec?.state !== 'DEFERRED') return false;
    const at = this.now().toISOString();
    const loss = { payer: key.payer.toLowerCase(), nonce: key.nonce.toLowerCase(), route: rec.route, path: rec.path, amount: rec.amount, reason, lost_at: at };
    return this.transact([
      {
        Update: {
          TableName: this.table,
          Key: claimKeyOf(key),
          ConditionExpression: '#state = :deferred',
          UpdateExpression: 'SET #state = :lost, reason = :reason, updated_at = :at REMOVE payload, gsi1pk, gsi1sk, lease_until, lease_owner',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':deferred': 'DEFERRED', ':lost': 'DEFERRED_LOSS', ':reason': reason, ':at': at },
        },
      },
      this.release(
        key,
        rec.amount,
        at,
        refusePayer
          ? { expr: 'refused_at = if_not_exists(refused_at, :at), refused_reason = if_not_exists(refused_reason, :reason)', values: { ':reason': reason } }
          : undefined,
      ),
      { Put: { TableName: this.table, Item: { pk: lossPk(at.slice(0, 7)), sk: `${at}#${loss.payer}#${loss.nonce}`, state: 'deferred_loss', ...loss } } },
    ]);
  }

  /** One transaction whose first item is the claim's conditional move; false when that condition failed. */
  private async transact(items: unknown[]): Promise<boolean> {
    try {
      await this.doc.send(new TransactWriteCommand({ TransactItems: items } as never));
      return true;
    } catch (err) {
      if (cancelledByCondition(err)?.[0]) return false;
      throw err;
    }
  }

  async listDeferred(limitPerShard = 200): Promise<ClaimKey[]> {
    const shards = await Promise.all(
      Array.from({ length: WATCH_SHARDS }, (_, i) =>
        this.doc.send(
          new QueryCommand({
            TableName: this.table,
            IndexName: CREDITS_WATCH_INDEX,
            KeyConditionExpression: 'gsi1pk = :pk',
            FilterExpression: '#state = :deferred',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':pk': `X402WATCH#${i}`, ':deferred': 'DEFERRED' },
            Limit: limitPerShard,
          }),
        ),
      ),
    );
    return shards
      .flatMap((r) => r.Items ?? [])
      .sort((a, b) => String(a.gsi1sk).localeCompare(String(b.gsi1sk)))
      .map((i) => ({ payer: String(i.payer), nonce: String(i.nonce) }));
  }

  async lossesOfMonth(month: string): Promise<DeferredLoss[]> {
    const out: DeferredLoss[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const res = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': lossPk(month) },
          ExclusiveStartKey: start,
        }),
      );
      for (const i of res.Items ?? [])
        out.push({
          payer: String(i.payer),
          nonce: String(i.nonce),
          route: String(i.route),
          path: String(i.path),
          amount: String(i.amount),
          reason: String(i.reason),
          lostAt: String(i.lost_at),
        });
      start = res.LastEvaluatedKey;
    } while (start);
    return out;
  }
}

/**
 * The settle worker's side of a process's deferral store: the store itself when it is one, else the
 * DynamoDB worker over the same table; null for a request-side store of another kind.
 */
const settleSideOf = (lane: DeferralLane): DeferredLedger | null =>
  typeof (lane as DeferredLedger).lease === 'function'
    ? (lane as DeferredLedger)
    : lane instanceof DynamoDeferralLane
      ? new DynamoDeferredLedger(lane.doc, lane.table, lane.now)
      : null;

export { DynamoDeferralLane, DynamoDeferredLedger, settleSideOf };
export type { DeferralCaps, DeferralLane, DeferredClaim, DeferredLedger, DeferredLoss, DeferResult, PayerDeferral };
