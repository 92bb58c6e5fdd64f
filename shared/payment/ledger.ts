/**
 * The x402 payment ledger in the credit table (shared/store/tables.ts CREDITS_TABLE):
 *
 *   pk X402#<payer>            sk NONCE#<nonce>                 one item per payment proof (the claim)
 *   pk X402SALE#<yyyy-mm>      sk <settled_at>#<payer>#<nonce>  one item per settled payment, for finance
 *   pk X402PENDING             sk <payer>#<nonce>               settlements whose outcome is unknown
 *
 * A proof is claimed with one conditional write before any data is read, so it can be served
 * once only, even by concurrent requests in different Lambdas. Claim states:
 *
 *   CLAIMED  -> SETTLED   settled on chain (delivered = data returned to the payer)
 *            -> PENDING   settlement submitted, outcome unknown (timeout): never treated as unpaid;
 *                         reconciliation moves it to SETTLED (deliverable on a retry) or UNPAID
 *            -> FAILED    settlement definitively failed: nothing moved, nothing served
 *            -> RELEASED  nothing was submitted (handler failed, verify refused, facilitator down)
 *
 * RELEASED and FAILED proofs may be claimed again: the payer's authorization was not used, so a
 * retry with the same header is honest and is not a replay.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

type ClaimState = 'CLAIMED' | 'SETTLED' | 'PENDING' | 'FAILED' | 'RELEASED' | 'UNPAID';

/** Identifies one payment proof: the EIP-3009 (payer, nonce) pair, lower-case hex. */
interface ClaimKey {
  payer: string;
  nonce: string;
}

/** What the ledger knows about a payment proof. */
interface ClaimRecord extends ClaimKey {
  state: ClaimState;
  /** Request that holds (or last held) the claim. */
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
  transaction?: string;
  settledAt?: string;
  /** Whether the data was returned for a SETTLED payment. */
  delivered?: boolean;
  reason?: string;
  /** The normalised payment payload (JSON), kept while PENDING so that reconciliation can re-submit it. */
  payload?: string;
}

type NewClaim = Omit<ClaimRecord, 'state' | 'updatedAt' | 'attempts' | 'transaction' | 'settledAt' | 'delivered' | 'reason' | 'payload'>;

/** A settled sale, as finance reads it. */
interface SaleRecord extends ClaimKey {
  amount: string;
  asset: string;
  network: string;
  payTo: string;
  route: string;
  path: string;
  transaction: string;
  settledAt: string;
  requestId: string;
}

type ClaimResult = { ok: true } | { ok: false; existing: ClaimRecord | null };

/** Storage port of the payment core (DynamoDB in AWS and locally; fakes in unit tests). */
interface PaymentLedger {
  /** Claims a proof once; a conflict returns the record that holds it. */
  claim(rec: NewClaim): Promise<ClaimResult>;
  get(key: ClaimKey): Promise<ClaimRecord | null>;
  /** Nothing was submitted: the proof may be used again. */
  release(key: ClaimKey, claimId: string, reason: string): Promise<void>;
  markSettled(key: ClaimKey, claimId: string, s: { transaction: string; settledAt: string; delivered: boolean }): Promise<void>;
  markPending(key: ClaimKey, claimId: string, p: { transaction: string; reason: string; payload: string }): Promise<void>;
  markFailed(key: ClaimKey, claimId: string, p: { transaction: string; reason: string }): Promise<void>;
  /** Takes a SETTLED but undelivered proof for delivery by this request; false if not deliverable. */
  takeDelivery(key: ClaimKey, claimId: string): Promise<boolean>;
  /** Gives a delivery back (the handler failed), so that another retry can still get the data. */
  returnDelivery(key: ClaimKey, claimId: string): Promise<void>;
  recordSale(sale: SaleRecord): Promise<void>;
  /** Sales settled in a calendar month (YYYY-MM), oldest first. */
  salesOfMonth(month: string): Promise<SaleRecord[]>;
  listPending(limit?: number): Promise<ClaimKey[]>;
  /** Closes a PENDING claim after reconciliation. */
  resolvePending(
    key: ClaimKey,
    outcome: { state: 'SETTLED'; transaction: string; settledAt: string } | { state: 'UNPAID' | 'FAILED'; reason: string },
  ): Promise<void>;
}

const claimPk = (payer: string) => `X402#${payer.toLowerCase()}`;
const claimSk = (nonce: string) => `NONCE#${nonce.toLowerCase()}`;
const PENDING_PK = 'X402PENDING';
const salePk = (month: string) => `X402SALE#${month}`;

const isConditionFailure = (err: unknown): boolean => (err as { name?: string })?.name === 'ConditionalCheckFailedException';

const toRecord = (item: Record<string, unknown>): ClaimRecord => ({
  payer: String(item.payer),
  nonce: String(item.nonce),
  state: item.state as ClaimState,
  claimId: String(item.claim_id),
  route: String(item.route),
  path: String(item.path),
  network: String(item.network),
  asset: String(item.asset),
  payTo: String(item.pay_to),
  amount: String(item.amount),
  validBefore: Number(item.valid_before),
  claimedAt: String(item.claimed_at),
  updatedAt: String(item.updated_at),
  attempts: Number(item.attempts ?? 1),
  ...(item.transaction !== undefined ? { transaction: String(item.transaction) } : {}),
  ...(item.settled_at !== undefined ? { settledAt: String(item.settled_at) } : {}),
  ...(item.delivered !== undefined ? { delivered: Boolean(item.delivered) } : {}),
  ...(item.reason !== undefined ? { reason: String(item.reason) } : {}),
  ...(item.payload !== undefined ? { payload: String(item.payload) } : {}),
});

/** The ledger on the credit table. */
class DynamoPaymentLedger implements PaymentLedger {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private key(k: ClaimKey) {
    return { pk: claimPk(k.payer), sk: claimSk(k.nonce) };
  }

  async claim(rec: NewClaim): Promise<ClaimResult> {
    const fields: Record<string, unknown> = {
      state: 'CLAIMED',
      payer: rec.payer.toLowerCase(),
      nonce: rec.nonce.toLowerCase(),
      claim_id: rec.claimId,
      route: rec.route,
      path: rec.path,
      network: rec.network,
      asset: rec.asset,
      pay_to: rec.payTo,
      amount: rec.amount,
      valid_before: rec.validBefore,
      claimed_at: rec.claimedAt,
      updated_at: this.now().toISOString(),
    };
    const cleared = ['reason', 'payload', 'transaction', 'delivered', 'settled_at'];
    const names: Record<string, string> = { '#attempts': 'attempts' };
    const values: Record<string, unknown> = { ':released': 'RELEASED', ':failed': 'FAILED', ':one': 1 };
    for (const [f, v] of Object.entries(fields)) {
      names[`#${f}`] = f;
      values[`:${f}`] = v;
    }
    for (const f of cleared) names[`#${f}`] = f;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: this.key(rec),
          // One conditional write decides who holds a proof; a RELEASED/FAILED proof was never used.
          ConditionExpression: 'attribute_not_exists(pk) OR #state IN (:released, :failed)',
          UpdateExpression: `SET ${Object.keys(fields)
            .map((f) => `#${f} = :${f}`)
            .join(', ')} ADD #attempts :one REMOVE ${cleared.map((f) => `#${f}`).join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return { ok: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      return { ok: false, existing: await this.get(rec) };
    }
  }

  async get(k: ClaimKey): Promise<ClaimRecord | null> {
    const res = await this.doc.send(new GetCommand({ TableName: this.table, Key: this.key(k), ConsistentRead: true }));
    return res.Item ? toRecord(res.Item) : null;
  }

  /** Moves a claim held by `claimId` in state `from` to a new state; false when it is not (any more). */
  private async transition(
    k: ClaimKey,
    condition: { claimId?: string; from: ClaimState; extra?: { expr: string; names: Record<string, string>; values: Record<string, unknown> } },
    set: Record<string, unknown>,
    remove: string[] = [],
  ): Promise<boolean> {
    const names: Record<string, string> = { '#state': 'state' };
    const values: Record<string, unknown> = { ':from': condition.from, ':at': this.now().toISOString() };
    const sets = ['updated_at = :at'];
    for (const [field, value] of Object.entries(set)) {
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      sets.push(`#${field} = :${field}`);
    }
    let cond = '#state = :from';
    if (condition.claimId !== undefined) {
      names['#claim_id_c'] = 'claim_id';
      values[':claimId'] = condition.claimId;
      cond += ' AND #claim_id_c = :claimId';
    }
    if (condition.extra) {
      cond += ` AND ${condition.extra.expr}`;
      Object.assign(names, condition.extra.names);
      Object.assign(values, condition.extra.values);
    }
    for (const field of remove) names[`#${field}`] = field;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: this.key(k),
          ConditionExpression: cond,
          UpdateExpression: `SET ${sets.join(', ')}${remove.length ? ` REMOVE ${remove.map((f) => `#${f}`).join(', ')}` : ''}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  async release(k: ClaimKey, claimId: string, reason: string): Promise<void> {
    await this.transition(k, { claimId, from: 'CLAIMED' }, { state: 'RELEASED', reason });
  }

  async markSettled(k: ClaimKey, claimId: string, s: { transaction: string; settledAt: string; delivered: boolean }): Promise<void> {
    await this.transition(k, { claimId, from: 'CLAIMED' }, { state: 'SETTLED', transaction: s.transaction, settled_at: s.settledAt, delivered: s.delivered });
  }

  async markPending(k: ClaimKey, claimId: string, p: { transaction: string; reason: string; payload: string }): Promise<void> {
    const moved = await this.transition(
      k,
      { claimId, from: 'CLAIMED' },
      { state: 'PENDING', transaction: p.transaction, reason: p.reason, payload: p.payload },
    );
    if (moved) {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: PENDING_PK,
            sk: `${k.payer.toLowerCase()}#${k.nonce.toLowerCase()}`,
            payer: k.payer.toLowerCase(),
            nonce: k.nonce.toLowerCase(),
            since: this.now().toISOString(),
          },
        }),
      );
    }
  }

  async markFailed(k: ClaimKey, claimId: string, p: { transaction: string; reason: string }): Promise<void> {
    await this.transition(k, { claimId, from: 'CLAIMED' }, { state: 'FAILED', transaction: p.transaction, reason: p.reason });
  }

  async takeDelivery(k: ClaimKey, claimId: string): Promise<boolean> {
    const undelivered = { expr: '#delivered_c = :no', names: { '#delivered_c': 'delivered' }, values: { ':no': false } };
    return this.transition(k, { from: 'SETTLED', extra: undelivered }, { delivered: true, claim_id: claimId });
  }

  async returnDelivery(k: ClaimKey, claimId: string): Promise<void> {
    await this.transition(k, { claimId, from: 'SETTLED' }, { delivered: false });
  }

  async recordSale(sale: SaleRecord): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          pk: salePk(sale.settledAt.slice(0, 7)),
          sk: `${sale.settledAt}#${sale.payer.toLowerCase()}#${sale.nonce.toLowerCase()}`,
          payer: sale.payer.toLowerCase(),
          nonce: sale.nonce.toLowerCase(),
          amount: sale.amount,
          asset: sale.asset,
          network: sale.network,
          pay_to: sale.payTo,
          route: sale.route,
          path: sale.path,
          transaction: sale.transaction,
          settled_at: sale.settledAt,
          request_id: sale.requestId,
        },
      }),
    );
  }

  async salesOfMonth(month: string): Promise<SaleRecord[]> {
    const out: SaleRecord[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const res = await this.doc.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': salePk(month) },
          ExclusiveStartKey: start,
        }),
      );
      for (const i of res.Items ?? []) {
        out.push({
          payer: String(i.payer),
          nonce: String(i.nonce),
          amount: String(i.amount),
          asset: String(i.asset),
          network: String(i.network),
          payTo: String(i.pay_to),
          route: String(i.route),
          path: String(i.path),
          transaction: String(i.transaction),
          settledAt: String(i.settled_at),
          requestId: String(i.request_id),
        });
      }
      start = res.LastEvaluatedKey;
    } while (start);
    return out;
  }

  async listPending(limit = 100): Promise<ClaimKey[]> {
    const res = await this.doc.send(
      new QueryCommand({ TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': PENDING_PK }, Limit: limit }),
    );
    return (res.Items ?? []).map((i) => ({ payer: String(i.payer), nonce: String(i.nonce) }));
  }

  async resolvePending(
    k: ClaimKey,
    outcome: { state: 'SETTLED'; transaction: string; settledAt: string } | { state: 'UNPAID' | 'FAILED'; reason: string },
  ): Promise<void> {
    const set =
      outcome.state === 'SETTLED'
        ? { state: 'SETTLED', transaction: outcome.transaction, settled_at: outcome.settledAt, delivered: false }
        : { state: outcome.state, reason: outcome.reason };
    await this.transition(k, { from: 'PENDING' }, set, ['payload']);
    await this.doc.send(new DeleteCommand({ TableName: this.table, Key: { pk: PENDING_PK, sk: `${k.payer.toLowerCase()}#${k.nonce.toLowerCase()}` } }));
  }
}

export { DynamoPaymentLedger };
export type { PaymentLedger, ClaimKey, ClaimRecord, ClaimState, NewClaim, SaleRecord, ClaimResult };
