/**
 * The payment ledger in memory, for fast unit tests of payment decisions: the same states, moves
 * and conditions as DynamoPaymentLedger (test/payment/ledger-contract.test.ts runs both through
 * one suite); the DynamoDB ledger stays for integration and end-to-end tests.
 */
import type {
  ClaimKey,
  ClaimRecord,
  ClaimResult,
  ClaimState,
  NewClaim,
  PaymentIdBinding,
  PaymentIdUse,
  ReconcileLedger,
  Resolution,
  SettleWrite,
  StoredAnswer,
  WatchEntry,
} from './ledger';
import type { SaleRecord } from './sales';

const id = (k: ClaimKey) => `${k.payer.toLowerCase()}#${k.nonce.toLowerCase()}`;

class MemoryPaymentLedger implements ReconcileLedger {
  private readonly claims = new Map<string, ClaimRecord>();
  private readonly sales: SaleRecord[] = [];
  private readonly paymentIds = new Map<string, PaymentIdBinding>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  async claim(rec: NewClaim): Promise<ClaimResult> {
    const existing = this.claims.get(id(rec));
    const reclaimable = existing && (existing.state === 'RELEASED' || existing.state === 'FAILED') && existing.path === rec.path;
    if (existing && !reclaimable) return { ok: false, existing: { ...existing } };
    this.claims.set(id(rec), {
      ...rec,
      payer: rec.payer.toLowerCase(),
      nonce: rec.nonce.toLowerCase(),
      state: 'CLAIMED',
      updatedAt: this.now().toISOString(),
      attempts: (existing?.attempts ?? 0) + 1,
      watched: true,
    });
    return { ok: true };
  }

  async get(k: ClaimKey): Promise<ClaimRecord | null> {
    const r = this.claims.get(id(k));
    return r ? { ...r } : null;
  }

  /** One conditional move: from some states, optionally only by the claim holder. */
  private move(
    k: ClaimKey,
    from: readonly ClaimState[],
    claimId: string | undefined,
    set: Partial<ClaimRecord>,
    when: (r: ClaimRecord) => boolean = () => true,
  ): boolean {
    const r = this.claims.get(id(k));
    if (!r || !from.includes(r.state) || (claimId !== undefined && r.claimId !== claimId) || !when(r)) return false;
    this.claims.set(id(k), { ...r, ...set, updatedAt: this.now().toISOString() });
    return true;
  }

  async release(k: ClaimKey, claimId: string, reason: string): Promise<void> {
    this.move(k, ['CLAIMED'], claimId, { state: 'RELEASED', reason, payload: undefined });
  }

  async markPending(k: ClaimKey, claimId: string, p: { transaction: string; reason: string }): Promise<void> {
    this.move(k, ['CLAIMED'], claimId, { state: 'PENDING', transaction: p.transaction, reason: p.reason });
  }

  async markFailed(k: ClaimKey, claimId: string, p: { transaction: string; reason: string }): Promise<void> {
    this.move(k, ['CLAIMED'], claimId, { state: 'FAILED', transaction: p.transaction, reason: p.reason, payload: undefined });
  }

  async settle(k: ClaimKey, claimId: string, s: { sale: SaleRecord; paymentId?: string; answer?: StoredAnswer }): Promise<SettleWrite> {
    const set = {
      state: 'SETTLED' as const,
      transaction: s.sale.transaction,
      settledAt: s.sale.settledAt,
      delivered: true,
      payload: undefined,
      watched: false,
    };
    const store = () => {
      if (s.paymentId && s.answer) this.putAnswer(k.payer, s.paymentId, k.nonce, s.answer);
    };
    if (this.move(k, ['CLAIMED'], claimId, set)) {
      this.sales.push({ ...s.sale });
      store();
      return 'recorded';
    }
    const r = this.claims.get(id(k));
    if (r?.state === 'SETTLED' && r.claimId === claimId && r.delivered === true) return 'recorded';
    if (r?.state === 'SETTLED' && r.delivered === false && (await this.takeDelivery(k, claimId))) {
      store();
      return 'recorded';
    }
    return 'lost';
  }

  async takeDelivery(k: ClaimKey, claimId: string): Promise<boolean> {
    return this.move(k, ['SETTLED'], undefined, { delivered: true, claimId }, (r) => r.delivered === false);
  }

  async returnDelivery(k: ClaimKey, claimId: string): Promise<void> {
    this.move(k, ['SETTLED'], claimId, { delivered: false });
  }

  async bindPaymentId(payer: string, paymentId: string, use: PaymentIdUse): Promise<PaymentIdBinding | null> {
    const k = `${payer.toLowerCase()}#${paymentId}`;
    const bound = this.paymentIds.get(k);
    if (bound) return { ...bound };
    this.paymentIds.set(k, { ...use, nonce: use.nonce.toLowerCase() });
    return null;
  }

  private putAnswer(payer: string, paymentId: string, nonce: string, answer: StoredAnswer): void {
    const bound = this.paymentIds.get(`${payer.toLowerCase()}#${paymentId}`);
    if (bound && bound.nonce === nonce.toLowerCase()) bound.answer = answer;
  }

  async storeAnswer(payer: string, paymentId: string, nonce: string, answer: StoredAnswer): Promise<void> {
    this.putAnswer(payer, paymentId, nonce, answer);
  }

  async salesOfMonth(month: string): Promise<SaleRecord[]> {
    return this.sales
      .filter((s) => s.settledAt.startsWith(`${month}-`))
      .sort((a, b) => a.settledAt.localeCompare(b.settledAt) || a.saleId.localeCompare(b.saleId));
  }

  async listWatched(limitPerShard = 100): Promise<WatchEntry[]> {
    return [...this.claims.values()]
      .filter((r) => r.watched)
      .slice(0, limitPerShard * 16)
      .map((r) => ({ payer: r.payer, nonce: r.nonce, since: r.claimedAt }));
  }

  async resolve(k: ClaimKey, observed: Pick<ClaimRecord, 'state' | 'claimId'>, outcome: Resolution): Promise<boolean> {
    if (outcome.state === 'SETTLED') {
      const set = {
        state: 'SETTLED' as const,
        transaction: outcome.sale.transaction,
        settledAt: outcome.sale.settledAt,
        delivered: false,
        payload: undefined,
        watched: false,
      };
      if (!this.move(k, [observed.state], observed.claimId, set)) return false;
      this.sales.push({ ...outcome.sale });
      return true;
    }
    const state = outcome.state === 'UNPAID' ? 'UNPAID' : observed.state;
    return this.move(k, [observed.state], observed.claimId, { state, reason: outcome.reason, payload: undefined, watched: false });
  }

  async recordSale(sale: SaleRecord): Promise<void> {
    this.sales.push({ ...sale });
  }
}

export { MemoryPaymentLedger };
