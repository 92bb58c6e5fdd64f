/**
 * The payment ledger in memory, for fast unit tests of payment decisions. Same transitions and
 * the same conditions as DynamoPaymentLedger (a claim only from nothing, RELEASED or FAILED; every
 * other move only from the expected state and by the request holding the claim); the DynamoDB
 * ledger stays for integration and end-to-end tests.
 */
import {
  CLAIM_LIFETIME_MS,
  type ClaimKey,
  type ClaimRecord,
  type ClaimResult,
  type ClaimState,
  type NewClaim,
  type PaymentIdUse,
  type ReconcileLedger,
  type PendingEntry,
  type Resolution,
  type SaleRecord,
} from './ledger';

const id = (k: ClaimKey) => `${k.payer.toLowerCase()}#${k.nonce.toLowerCase()}`;

class MemoryPaymentLedger implements ReconcileLedger {
  private readonly claims = new Map<string, ClaimRecord>();
  /** Pending index: claim id -> since. */
  private readonly pending = new Map<string, string>();
  private readonly sales: SaleRecord[] = [];
  private readonly paymentIds = new Map<string, PaymentIdUse>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  async claim(rec: NewClaim): Promise<ClaimResult> {
    const existing = this.claims.get(id(rec));
    const abandoned = existing?.state === 'CLAIMED' && Date.parse(existing.updatedAt) < this.now().getTime() - CLAIM_LIFETIME_MS;
    if (existing && existing.state !== 'RELEASED' && existing.state !== 'FAILED' && !abandoned) return { ok: false, existing: { ...existing } };
    this.claims.set(id(rec), {
      ...rec,
      payer: rec.payer.toLowerCase(),
      nonce: rec.nonce.toLowerCase(),
      state: 'CLAIMED',
      updatedAt: this.now().toISOString(),
      attempts: (existing?.attempts ?? 0) + 1,
    });
    return { ok: true };
  }

  async get(k: ClaimKey): Promise<ClaimRecord | null> {
    const r = this.claims.get(id(k));
    return r ? { ...r } : null;
  }

  /** One conditional transition: from a state, optionally only by the claim holder. */
  private move(k: ClaimKey, from: ClaimState, claimId: string | undefined, set: Partial<ClaimRecord>, when: (r: ClaimRecord) => boolean = () => true): boolean {
    const r = this.claims.get(id(k));
    if (!r || r.state !== from || (claimId !== undefined && r.claimId !== claimId) || !when(r)) return false;
    this.claims.set(id(k), { ...r, ...set, updatedAt: this.now().toISOString() });
    return true;
  }

  async release(k: ClaimKey, claimId: string, reason: string): Promise<void> {
    if (this.move(k, 'CLAIMED', claimId, { state: 'RELEASED', reason })) return;
    if (this.move(k, 'SETTLING', claimId, { state: 'RELEASED', reason, payload: undefined })) this.pending.delete(id(k));
  }

  async markSettling(k: ClaimKey, claimId: string, payload: string): Promise<boolean> {
    if (!this.move(k, 'CLAIMED', claimId, { state: 'SETTLING', payload })) return false;
    this.pending.set(id(k), this.now().toISOString());
    return true;
  }

  async markSettled(k: ClaimKey, claimId: string, s: { sale: SaleRecord; delivered: boolean }): Promise<void> {
    const set = { state: 'SETTLED' as const, transaction: s.sale.transaction, settledAt: s.sale.settledAt, delivered: s.delivered, payload: undefined };
    if (!this.move(k, 'SETTLING', claimId, set)) return;
    this.pending.delete(id(k));
    this.addSale(s.sale);
  }

  async markPending(k: ClaimKey, claimId: string, p: { transaction: string; reason: string }): Promise<void> {
    this.move(k, 'SETTLING', claimId, { state: 'PENDING', transaction: p.transaction, reason: p.reason });
  }

  async markFailed(k: ClaimKey, claimId: string, p: { transaction: string; reason: string }): Promise<void> {
    if (this.move(k, 'SETTLING', claimId, { state: 'FAILED', transaction: p.transaction, reason: p.reason, payload: undefined })) this.pending.delete(id(k));
  }

  async takeDelivery(k: ClaimKey, claimId: string): Promise<boolean> {
    return this.move(k, 'SETTLED', undefined, { delivered: true, claimId }, (r) => r.delivered === false);
  }

  async returnDelivery(k: ClaimKey, claimId: string): Promise<void> {
    this.move(k, 'SETTLED', claimId, { delivered: false });
  }

  private addSale(sale: SaleRecord): void {
    this.sales.push({ ...sale, payer: sale.payer.toLowerCase(), nonce: sale.nonce.toLowerCase() });
  }

  async bindPaymentId(payer: string, id: string, use: PaymentIdUse): Promise<PaymentIdUse | null> {
    const k = `${payer.toLowerCase()}#${id}`;
    const bound = this.paymentIds.get(k);
    if (bound) return { ...bound };
    this.paymentIds.set(k, { ...use, nonce: use.nonce.toLowerCase() });
    return null;
  }

  async salesOfMonth(month: string): Promise<SaleRecord[]> {
    return this.sales.filter((s) => s.settledAt.startsWith(`${month}-`)).sort((a, b) => a.settledAt.localeCompare(b.settledAt));
  }

  async listPending(limit = 100): Promise<PendingEntry[]> {
    return [...this.pending].slice(0, limit).map(([k, since]) => {
      const [payer, nonce] = k.split('#') as [string, string];
      return { payer, nonce, since };
    });
  }

  async resolvePending(k: ClaimKey, outcome: Resolution): Promise<boolean> {
    const set: Partial<ClaimRecord> =
      outcome.state === 'SETTLED'
        ? { state: 'SETTLED', transaction: outcome.sale.transaction, settledAt: outcome.sale.settledAt, delivered: false, payload: undefined }
        : { state: outcome.state, reason: outcome.reason, payload: undefined };
    const resolved = this.move(k, 'PENDING', undefined, set) || this.move(k, 'SETTLING', undefined, set);
    this.pending.delete(id(k));
    if (resolved && outcome.state === 'SETTLED') this.addSale(outcome.sale);
    return resolved;
  }
}

export { MemoryPaymentLedger };
