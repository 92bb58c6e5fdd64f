/**
 * The x402 payment ledger in the credit table (shared/store/tables.ts CREDITS_TABLE):
 *
 *   pk X402#<payer>            sk NONCE#<nonce>                 one item per payment proof (the claim)
 *   pk X402SALE#<yyyy-mm>      sk <settled_at>#<payer>#<nonce>  one item per settled payment, for finance
 *   pk X402PENDING             sk <payer>#<nonce>               proofs submitted for settlement, outcome not recorded
 *   pk X402ID#<payer>          sk ID#<payment id>               x402 payment-identifier: the one payload an id names
 *
 * A proof is claimed with one conditional write before any data is read, so it can be served
 * once only, even by concurrent requests in different Lambdas. Claim states:
 *
 *   CLAIMED  -> SETTLING  about to call /settle: the payload and the pending-index entry are written
 *                         first (one transaction), so a crash after /settle leaves a trail
 *            -> RELEASED  nothing was submitted (handler failed, verify refused, out of time)
 *   SETTLING -> SETTLED   settled on chain; the sale record is written in the same transaction
 *            -> PENDING   settlement submitted, outcome unknown (timeout): never treated as unpaid
 *            -> FAILED    settlement definitively failed: nothing moved, nothing served
 *            -> RELEASED  the settle call never left this process
 *   PENDING and stale SETTLING claims are resolved by reconciliation from the chain: SETTLED
 *   (delivered = false: a retry of the same header gets the data), UNPAID or FAILED.
 *
 * RELEASED and FAILED proofs may be claimed again: the payer's authorization was not used, so a
 * retry with the same header is honest and is not a replay. So may a CLAIMED proof whose holder
 * is dead (older than any request can live): it never reached SETTLING, so it was never submitted.
 */
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  paginateQuery,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';

type ClaimState = 'CLAIMED' | 'SETTLING' | 'SETTLED' | 'PENDING' | 'FAILED' | 'RELEASED' | 'UNPAID';

/**
 * How long a request can hold a claim: the Lambda timeout (28 s) plus a margin. A CLAIMED proof
 * older than this was abandoned (claimable again); a SETTLING one is left to reconciliation.
 */
const CLAIM_LIFETIME_MS = 30_000;

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
  /** The normalised payment payload (JSON), kept while SETTLING/PENDING so that reconciliation can re-submit it. */
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

/** An entry of the pending index: a proof submitted (or about to be) whose outcome is not recorded. */
interface PendingEntry extends ClaimKey {
  /** When the entry was written (the start of SETTLING). */
  since: string;
}

type ClaimResult = { ok: true } | { ok: false; existing: ClaimRecord | null };

/** What a payment id (x402 `payment-identifier` extension) was first used with. */
interface PaymentIdUse {
  nonce: string;
  /** Digest of the payment payload (signature and authorization). */
  digest: string;
  /** The request path it paid for. */
  path: string;
}

type Resolution = { state: 'SETTLED'; sale: SaleRecord } | { state: 'UNPAID' | 'FAILED'; reason: string };

/** Storage port of the payment lane (DynamoDB in AWS and locally; an in-memory twin in unit tests). */
interface PaymentLedger {
  /** Claims a proof once; a conflict returns the record that holds it. */
  claim(rec: NewClaim): Promise<ClaimResult>;
  get(key: ClaimKey): Promise<ClaimRecord | null>;
  /** Nothing was submitted (from CLAIMED or SETTLING): the proof may be used again. */
  release(key: ClaimKey, claimId: string, reason: string): Promise<void>;
  /**
   * CLAIMED -> SETTLING with the payload, and the proof enters the pending index, in one write.
   * @returns false when this request does not hold the claim (then it must not settle)
   */
  markSettling(key: ClaimKey, claimId: string, payload: string): Promise<boolean>;
  /** SETTLING -> SETTLED, the sale recorded and the pending entry dropped, in one transaction. */
  markSettled(key: ClaimKey, claimId: string, s: { sale: SaleRecord; delivered: boolean }): Promise<void>;
  /** SETTLING -> PENDING: submitted, outcome unknown; it stays in the pending index. */
  markPending(key: ClaimKey, claimId: string, p: { transaction: string; reason: string }): Promise<void>;
  /** SETTLING -> FAILED (nothing moved), pending entry dropped. */
  markFailed(key: ClaimKey, claimId: string, p: { transaction: string; reason: string }): Promise<void>;
  /** Takes a SETTLED but undelivered proof for delivery by this request; false if not deliverable. */
  takeDelivery(key: ClaimKey, claimId: string): Promise<boolean>;
  /** Gives a delivery back (the handler failed), so that another retry can still get the data. */
  returnDelivery(key: ClaimKey, claimId: string): Promise<void>;
  /**
   * Binds a payer's payment id to one payload and path, once.
   * @returns the first use when the id was already bound (equal to `use` for an honest retry)
   */
  bindPaymentId(payer: string, id: string, use: PaymentIdUse): Promise<PaymentIdUse | null>;
}

/**
 * The ledger as the reconciler and finance read it: the lane's operations plus the pending index and
 * the sales records. Only the reconciler and the CLIs build it; paid functions carry the lane's part.
 */
interface ReconcileLedger extends PaymentLedger {
  /** Sales settled in a calendar month (YYYY-MM), oldest first. */
  salesOfMonth(month: string): Promise<SaleRecord[]>;
  listPending(limit?: number): Promise<PendingEntry[]>;
  /**
   * Closes a PENDING or SETTLING claim after reconciliation (a settled one with its sale), in one
   * transaction; an index entry whose claim is no longer open is dropped.
   * @returns false when the claim was not open any more
   */
  resolvePending(key: ClaimKey, outcome: Resolution): Promise<boolean>;
}

const claimPk = (payer: string) => `X402#${payer.toLowerCase()}`;
const claimSk = (nonce: string) => `NONCE#${nonce.toLowerCase()}`;
const PENDING_PK = 'X402PENDING';
const pendingKey = (k: ClaimKey) => ({ pk: PENDING_PK, sk: `${k.payer.toLowerCase()}#${k.nonce.toLowerCase()}` });
const salePk = (month: string) => `X402SALE#${month}`;

const isConditionFailure = (err: unknown): boolean => {
  const e = err as { name?: string; CancellationReasons?: Array<{ Code?: string }> };
  if (e?.name === 'ConditionalCheckFailedException') return true;
  // A transaction refused only by a condition (not a conflict or a throttle).
  return e?.name === 'TransactionCanceledException' && (e.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed');
};

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

const saleItem = (sale: SaleRecord) => ({
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
});

interface Transition {
  /** Only the request holding the claim may move it (omitted: anyone, e.g. reconciliation). */
  claimId?: string;
  from: readonly ClaimState[];
  extra?: { expr: string; names: Record<string, string>; values: Record<string, unknown> };
}

/** The ledger on the credit table. */
class DynamoPaymentLedger implements PaymentLedger {
  constructor(
    protected readonly doc: DynamoDBDocumentClient,
    protected readonly table: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private key(k: ClaimKey) {
    return { pk: claimPk(k.payer), sk: claimSk(k.nonce) };
  }

  async claim(rec: NewClaim): Promise<ClaimResult> {
    const now = this.now();
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
      updated_at: now.toISOString(),
    };
    const cleared = ['reason', 'payload', 'transaction', 'delivered', 'settled_at'];
    const names: Record<string, string> = { '#attempts': 'attempts' };
    const values: Record<string, unknown> = {
      ':released': 'RELEASED',
      ':failed': 'FAILED',
      ':claimed': 'CLAIMED',
      ':abandoned': new Date(now.getTime() - CLAIM_LIFETIME_MS).toISOString(),
      ':one': 1,
    };
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
          // One conditional write decides who holds a proof; a RELEASED/FAILED proof was never used,
          // nor was one CLAIMED by a request that cannot be alive any more.
          ConditionExpression: 'attribute_not_exists(pk) OR #state IN (:released, :failed) OR (#state = :claimed AND #updated_at < :abandoned)',
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

  /** The conditional update that moves a claim from one of `from` to a new state. */
  private update(k: ClaimKey, condition: Transition, set: Record<string, unknown>, remove: string[] = []) {
    const names: Record<string, string> = { '#state': 'state' };
    const values: Record<string, unknown> = { ':at': this.now().toISOString() };
    const sets = ['updated_at = :at'];
    for (const [field, value] of Object.entries(set)) {
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      sets.push(`#${field} = :${field}`);
    }
    condition.from.forEach((s, i) => {
      values[`:from${i}`] = s;
    });
    let cond = `#state IN (${condition.from.map((_, i) => `:from${i}`).join(', ')})`;
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
    return {
      TableName: this.table,
      Key: this.key(k),
      ConditionExpression: cond,
      UpdateExpression: `SET ${sets.join(', ')}${remove.length ? ` REMOVE ${remove.map((f) => `#${f}`).join(', ')}` : ''}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    };
  }

  /** One conditional move; false when the claim is not (any more) where the condition says. */
  private async transition(k: ClaimKey, condition: Transition, set: Record<string, unknown>, remove: string[] = []): Promise<boolean> {
    try {
      await this.doc.send(new UpdateCommand(this.update(k, condition, set, remove)));
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  /** A move together with other writes, all or nothing (DynamoDB TransactWriteItems). */
  protected async transact(
    k: ClaimKey,
    condition: Transition,
    set: Record<string, unknown>,
    remove: string[],
    also: { putPending?: boolean; dropPending?: boolean; sale?: SaleRecord },
  ): Promise<boolean> {
    const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [{ Update: this.update(k, condition, set, remove) }];
    if (also.putPending) {
      items.push({
        Put: {
          TableName: this.table,
          Item: { ...pendingKey(k), payer: k.payer.toLowerCase(), nonce: k.nonce.toLowerCase(), since: this.now().toISOString() },
        },
      });
    }
    if (also.dropPending) items.push({ Delete: { TableName: this.table, Key: pendingKey(k) } });
    if (also.sale) items.push({ Put: { TableName: this.table, Item: saleItem(also.sale) } });
    try {
      await this.doc.send(new TransactWriteCommand({ TransactItems: items }));
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  async release(k: ClaimKey, claimId: string, reason: string): Promise<void> {
    const moved = await this.transition(k, { claimId, from: ['CLAIMED'] }, { state: 'RELEASED', reason });
    // A settle call that never left this process: the claim is SETTLING and in the pending index.
    if (!moved) await this.transact(k, { claimId, from: ['SETTLING'] }, { state: 'RELEASED', reason }, ['payload'], { dropPending: true });
  }

  async markSettling(k: ClaimKey, claimId: string, payload: string): Promise<boolean> {
    return this.transact(k, { claimId, from: ['CLAIMED'] }, { state: 'SETTLING', payload }, [], { putPending: true });
  }

  async markSettled(k: ClaimKey, claimId: string, s: { sale: SaleRecord; delivered: boolean }): Promise<void> {
    await this.transact(
      k,
      { claimId, from: ['SETTLING'] },
      { state: 'SETTLED', transaction: s.sale.transaction, settled_at: s.sale.settledAt, delivered: s.delivered },
      ['payload'],
      { dropPending: true, sale: s.sale },
    );
  }

  async markPending(k: ClaimKey, claimId: string, p: { transaction: string; reason: string }): Promise<void> {
    await this.transition(k, { claimId, from: ['SETTLING'] }, { state: 'PENDING', transaction: p.transaction, reason: p.reason });
  }

  async markFailed(k: ClaimKey, claimId: string, p: { transaction: string; reason: string }): Promise<void> {
    await this.transact(k, { claimId, from: ['SETTLING'] }, { state: 'FAILED', transaction: p.transaction, reason: p.reason }, ['payload'], {
      dropPending: true,
    });
  }

  async takeDelivery(k: ClaimKey, claimId: string): Promise<boolean> {
    const undelivered = { expr: '#delivered_c = :no', names: { '#delivered_c': 'delivered' }, values: { ':no': false } };
    return this.transition(k, { from: ['SETTLED'], extra: undelivered }, { delivered: true, claim_id: claimId });
  }

  async returnDelivery(k: ClaimKey, claimId: string): Promise<void> {
    await this.transition(k, { claimId, from: ['SETTLED'] }, { delivered: false });
  }

  async bindPaymentId(payer: string, id: string, use: PaymentIdUse): Promise<PaymentIdUse | null> {
    const Key = { pk: `X402ID#${payer.toLowerCase()}`, sk: `ID#${id}` };
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: { ...Key, nonce: use.nonce.toLowerCase(), digest: use.digest, path: use.path, bound_at: this.now().toISOString() },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return null;
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      const res = await this.doc.send(new GetCommand({ TableName: this.table, Key, ConsistentRead: true }));
      const i = res.Item ?? {};
      return { nonce: String(i.nonce), digest: String(i.digest), path: String(i.path) };
    }
  }
}

/** The ledger with the reconciler's and finance's reads and writes (see ReconcileLedger). */
class DynamoReconcileLedger extends DynamoPaymentLedger implements ReconcileLedger {
  async salesOfMonth(month: string): Promise<SaleRecord[]> {
    const out: SaleRecord[] = [];
    const pages = paginateQuery(
      { client: this.doc },
      { TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': salePk(month) } },
    );
    for await (const page of pages) {
      for (const i of page.Items ?? []) {
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
    }
    return out;
  }

  async listPending(limit = 100): Promise<PendingEntry[]> {
    const res = await this.doc.send(
      new QueryCommand({ TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': PENDING_PK }, Limit: limit }),
    );
    return (res.Items ?? []).map((i) => ({ payer: String(i.payer), nonce: String(i.nonce), since: String(i.since) }));
  }

  async resolvePending(k: ClaimKey, outcome: Resolution): Promise<boolean> {
    const set =
      outcome.state === 'SETTLED'
        ? { state: 'SETTLED', transaction: outcome.sale.transaction, settled_at: outcome.sale.settledAt, delivered: false }
        : { state: outcome.state, reason: outcome.reason };
    const resolved = await this.transact(k, { from: ['PENDING', 'SETTLING'] }, set, ['payload'], {
      dropPending: true,
      ...(outcome.state === 'SETTLED' ? { sale: outcome.sale } : {}),
    });
    // Resolved elsewhere already: only the index entry is left to drop.
    if (!resolved) await this.doc.send(new DeleteCommand({ TableName: this.table, Key: pendingKey(k) }));
    return resolved;
  }

  /** Writes a sale record on its own (seeding finance data in tests and tools). */
  async recordSale(sale: SaleRecord): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.table, Item: saleItem(sale) }));
  }
}

export { DynamoPaymentLedger, DynamoReconcileLedger, CLAIM_LIFETIME_MS };
export type { PaymentLedger, ReconcileLedger, ClaimKey, ClaimRecord, ClaimState, NewClaim, SaleRecord, ClaimResult, PendingEntry, Resolution, PaymentIdUse };
