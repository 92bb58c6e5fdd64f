/**
 * The exact lane's payment ledger on DynamoDB (the credit table): the adapter of ledger-port.ts,
 * whose header lists the items, the paid path's two writes and the claim states. Every move is one
 * conditional write on the claim's state.
 */
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CREDITS_WATCH_INDEX, TTL_ATTRIBUTE } from '../store/tables';
import {
  CLAIM_LIFETIME_MS,
  CLOSED_CLAIM_RETENTION_S,
  REPLAY_WINDOW_MS,
  WATCH_SHARDS,
  type ClaimKey,
  type ClaimRecord,
  type ClaimResult,
  type ClaimState,
  type NewClaim,
  type PaymentIdBinding,
  type PaymentIdUse,
  type PaymentLedger,
  type ReconcileLedger,
  type Resolution,
  type SettleWrite,
  type StoredAnswer,
  type WatchEntry,
} from './ledger-port';
import { hashShard, saleAttributesOfClaim, saleItem, salesOfMonth, type SaleRecord } from './sales';

const claimPk = (payer: string) => `X402#${payer.toLowerCase()}`;
const claimSk = (nonce: string) => `NONCE#${nonce.toLowerCase()}`;
const bindingKey = (payer: string, id: string) => ({ pk: `X402ID#${payer.toLowerCase()}`, sk: `ID#${id}` });
const watchPk = (k: ClaimKey) => `X402WATCH#${hashShard(`${k.payer.toLowerCase()}#${k.nonce.toLowerCase()}`, WATCH_SHARDS)}`;
const epochS = (iso: string): number => Math.floor(Date.parse(iso) / 1000);

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
  watched: item.gsi1pk !== undefined,
  ...(item.transaction !== undefined ? { transaction: String(item.transaction) } : {}),
  ...(item.settled_at !== undefined ? { settledAt: String(item.settled_at) } : {}),
  ...(item.delivered !== undefined ? { delivered: Boolean(item.delivered) } : {}),
  ...(item.reason !== undefined ? { reason: String(item.reason) } : {}),
  ...(item.payload !== undefined ? { payload: String(item.payload) } : {}),
});

interface Move {
  /** Only the call holding the claim may move it (omitted: anyone, e.g. reconciliation). */
  claimId?: string;
  from: readonly ClaimState[];
  /** Extra condition (e.g. undelivered). */
  extra?: { expr: string; names: Record<string, string>; values: Record<string, unknown> };
  set: Record<string, unknown>;
  remove?: string[];
}

/** The ledger on the credit table. */
class DynamoPaymentLedger implements PaymentLedger {
  constructor(
    protected readonly doc: DynamoDBDocumentClient,
    protected readonly table: string,
    protected readonly now: () => Date = () => new Date(),
  ) {}

  protected key(k: ClaimKey) {
    return { pk: claimPk(k.payer), sk: claimSk(k.nonce) };
  }

  async claim(rec: NewClaim): Promise<ClaimResult> {
    const at = this.now().toISOString();
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
      updated_at: at,
      payload: rec.payload,
      gsi1pk: watchPk(rec),
      gsi1sk: `${at}#${rec.payer.toLowerCase()}#${rec.nonce.toLowerCase()}`,
    };
    // One conditional write decides who holds a proof. A proof seen for the first time (nearly every
    // call) is a put of a new item: the cheapest write there is, beside /verify.
    try {
      await this.doc.send(
        new PutCommand({ TableName: this.table, Item: { ...this.key(rec), ...fields, attempts: 1 }, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
      return { ok: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
    return this.reclaim(rec, fields);
  }

  /** A proof seen before: claimed again only if unused (released, or refused before anything was sent), and only for the path it is bound to. */
  private async reclaim(rec: NewClaim, fields: Record<string, unknown>): Promise<ClaimResult> {
    const cleared = ['reason', 'transaction', 'delivered', 'settled_at', TTL_ATTRIBUTE];
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
          // (or gone since the put was refused: expired items are deleted)
          ConditionExpression: 'attribute_not_exists(pk) OR (#state IN (:released, :failed) AND #path = :path)',
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

  /** The conditional update that moves a claim. */
  protected update(k: ClaimKey, m: Move) {
    const names: Record<string, string> = { '#state': 'state' };
    const values: Record<string, unknown> = { ':at': this.now().toISOString() };
    const sets = ['updated_at = :at'];
    for (const [field, value] of Object.entries(m.set)) {
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      sets.push(`#${field} = :${field}`);
    }
    m.from.forEach((s, i) => {
      values[`:from${i}`] = s;
    });
    let cond = `#state IN (${m.from.map((_, i) => `:from${i}`).join(', ')})`;
    if (m.claimId !== undefined) {
      names['#claim_id_c'] = 'claim_id';
      values[':claimId'] = m.claimId;
      cond += ' AND #claim_id_c = :claimId';
    }
    if (m.extra) {
      cond += ` AND ${m.extra.expr}`;
      Object.assign(names, m.extra.names);
      Object.assign(values, m.extra.values);
    }
    const remove = m.remove ?? [];
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
  protected async move(k: ClaimKey, m: Move): Promise<boolean> {
    try {
      await this.doc.send(new UpdateCommand(this.update(k, m)));
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  /** One conditional move and the answer stored under its payment id, all or nothing. */
  protected async moveWithAnswer(k: ClaimKey, m: Move, answer: { paymentId: string; answer: StoredAnswer }): Promise<boolean> {
    const items = [{ Update: this.update(k, m) }, { Update: this.answerUpdate(k.payer, answer.paymentId, k.nonce, answer.answer) }];
    try {
      await this.doc.send(new TransactWriteCommand({ TransactItems: items }));
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  private answerUpdate(payer: string, id: string, nonce: string, answer: StoredAnswer) {
    return {
      TableName: this.table,
      Key: bindingKey(payer, id),
      UpdateExpression: 'SET answer = :answer, settled_at = :settled',
      ConditionExpression: 'nonce = :nonce',
      ExpressionAttributeValues: { ':answer': answer.data, ':settled': answer.settledAt, ':nonce': nonce.toLowerCase() },
    };
  }

  async release(k: ClaimKey, claimId: string, reason: string): Promise<void> {
    await this.move(k, { claimId, from: ['CLAIMED'], set: { state: 'RELEASED', reason }, remove: ['payload'] });
  }

  async markPending(k: ClaimKey, claimId: string, p: { transaction: string; reason: string }): Promise<void> {
    await this.move(k, { claimId, from: ['CLAIMED'], set: { state: 'PENDING', transaction: p.transaction, reason: p.reason } });
  }

  async markFailed(k: ClaimKey, claimId: string, p: { transaction: string; reason: string }): Promise<void> {
    await this.move(k, { claimId, from: ['CLAIMED'], set: { state: 'FAILED', transaction: p.transaction, reason: p.reason }, remove: ['payload'] });
  }

  async settle(k: ClaimKey, claimId: string, s: { sale: SaleRecord; paymentId?: string; answer?: StoredAnswer }): Promise<SettleWrite> {
    // The claim becomes its sale (kept, in the sales index): one item, one write.
    const closed: Move = {
      claimId,
      from: ['CLAIMED'],
      set: { state: 'SETTLED', delivered: true, ...saleAttributesOfClaim(s.sale) },
      remove: ['payload', 'gsi1pk', 'gsi1sk', 'reason'],
    };
    const answer = s.paymentId && s.answer ? { paymentId: s.paymentId, answer: s.answer } : undefined;
    if (await (answer ? this.moveWithAnswer(k, closed, answer) : this.move(k, closed))) return 'recorded';
    const rec = await this.get(k);
    // Our own earlier attempt landed although its answer was lost.
    if (rec?.state === 'SETTLED' && rec.claimId === claimId && rec.delivered === true) return 'recorded';
    // The reconciler found the transfer first (and booked the sale): deliver it now.
    if (rec?.state === 'SETTLED' && rec.delivered === false && (await this.takeDelivery(k, claimId))) {
      if (answer) await this.storeAnswer(k.payer, answer.paymentId, k.nonce, answer.answer);
      return 'recorded';
    }
    return 'lost';
  }

  async takeDelivery(k: ClaimKey, claimId: string): Promise<boolean> {
    const undelivered = { expr: '#delivered_c = :no', names: { '#delivered_c': 'delivered' }, values: { ':no': false } };
    return this.move(k, { from: ['SETTLED'], extra: undelivered, set: { delivered: true, claim_id: claimId } });
  }

  async returnDelivery(k: ClaimKey, claimId: string): Promise<void> {
    await this.move(k, { claimId, from: ['SETTLED'], set: { delivered: false } });
  }

  async bindPaymentId(payer: string, id: string, use: PaymentIdUse): Promise<PaymentIdBinding | null> {
    const Key = bindingKey(payer, id);
    const at = this.now().toISOString();
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...Key,
            nonce: use.nonce.toLowerCase(),
            digest: use.digest,
            path: use.path,
            bound_at: at,
            // Kept past the replay window so that a reused id is still told apart for a day.
            [TTL_ATTRIBUTE]: epochS(at) + (REPLAY_WINDOW_MS / 1000) * 2 + 24 * 3600,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return null;
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      const res = await this.doc.send(new GetCommand({ TableName: this.table, Key, ConsistentRead: true }));
      const i = res.Item ?? {};
      return {
        nonce: String(i.nonce),
        digest: String(i.digest),
        path: String(i.path),
        ...(i.answer !== undefined ? { answer: { data: i.answer as Uint8Array, settledAt: String(i.settled_at) } } : {}),
      };
    }
  }

  async storeAnswer(payer: string, id: string, nonce: string, answer: StoredAnswer): Promise<void> {
    await this.doc.send(new UpdateCommand(this.answerUpdate(payer, id, nonce, answer)));
  }
}

/** The ledger with the reconciler's and finance's reads and writes (see ReconcileLedger). */
class DynamoReconcileLedger extends DynamoPaymentLedger implements ReconcileLedger {
  async salesOfMonth(month: string): Promise<SaleRecord[]> {
    return salesOfMonth(this.doc, this.table, month);
  }

  async listWatched(limitPerShard = 100): Promise<WatchEntry[]> {
    const shards = await Promise.all(
      Array.from({ length: WATCH_SHARDS }, (_, i) =>
        this.doc.send(
          new QueryCommand({
            TableName: this.table,
            IndexName: CREDITS_WATCH_INDEX,
            KeyConditionExpression: 'gsi1pk = :pk',
            ExpressionAttributeValues: { ':pk': `X402WATCH#${i}` },
            Limit: limitPerShard,
          }),
        ),
      ),
    );
    return shards
      .flatMap((r) => r.Items ?? [])
      .map((i) => ({ payer: String(i.payer), nonce: String(i.nonce), since: String(i.gsi1sk).split('#')[0]! }))
      .sort((a, b) => a.since.localeCompare(b.since));
  }

  async resolve(k: ClaimKey, observed: Pick<ClaimRecord, 'state' | 'claimId'>, outcome: Resolution): Promise<boolean> {
    const base = { claimId: observed.claimId, from: [observed.state], remove: ['payload', 'gsi1pk', 'gsi1sk'] };
    // Settled on chain: the claim becomes its sale, undelivered (a retry of the same header gets the data).
    if (outcome.state === 'SETTLED') return this.move(k, { ...base, set: { state: 'SETTLED', delivered: false, ...saleAttributesOfClaim(outcome.sale) } });
    const expiry = epochS(this.now().toISOString()) + CLOSED_CLAIM_RETENTION_S;
    const state = outcome.state === 'UNPAID' ? 'UNPAID' : observed.state;
    return this.move(k, { ...base, set: { state, reason: outcome.reason, [TTL_ATTRIBUTE]: expiry } });
  }

  async recordSale(sale: SaleRecord): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.table, Item: saleItem(sale) }));
  }
}

export { DynamoPaymentLedger, DynamoReconcileLedger, CLAIM_LIFETIME_MS, REPLAY_WINDOW_MS, WATCH_SHARDS };
// The port's types, for importers of the adapter (the port, ledger-port.ts, is where they live).
export type * from './ledger-port';
export type { SaleRecord } from './sales';
