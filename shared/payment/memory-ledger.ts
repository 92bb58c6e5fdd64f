/**
 * The payment ledger in memory, for fast unit tests of payment decisions. Same transitions and
 * the same conditions as DynamoPaymentLedger (a claim only from nothing, RELEASED or FAILED; every
 * other move only from the expected state and by the request holding the claim); the DynamoDB
 * ledger stays for integration and end-to-end tests.
 */
import type { ClaimKey, ClaimRecord, ClaimResult, ClaimState, NewClaim, PaymentLedger, SaleRecord } from './ledger';

const id = (k: ClaimKey) => `${k.payer.toLowerCase()}#${k.nonce.toLowerCase()}`;

class MemoryPaymentLedger implements PaymentLedger {
  private readonly claims = new Map<string, ClaimRecord>();
  private readonly pending = new Set<string>();
  private readonly sales: SaleRecord[] = [];

  constructor(private readonly now: () => Date = () => new Date()) {}

  async claim(rec: NewClaim): Promise<ClaimResult> {
    const existing = this.claims.get(id(rec));
    if (existing && existing.state !== 'RELEASED' && existing.state !== 'FAILED') return { ok: false, existing: { ...existing } };
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
    this.move(k, 'CLAIMED', claimId, { state: 'RELEASED', reason });
  }

  async markSettled(k: ClaimKey, claimId: string, s: { transaction: string; settledAt: string; delivered: boolean }): Promise<void> {
    this.move(k, 'CLAIMED', claimId, { state: 'SETTLED', transaction: s.transaction, settledAt: s.settledAt, delivered: s.delivered });
  }

  async markPending(k: ClaimKey, claimId: string, p: { transaction: string; reason: string; payload: string }): Promise<void> {
    if (this.move(k, 'CLAIMED', claimId, { state: 'PENDING', transaction: p.transaction, reason: p.reason, payload: p.payload })) this.pending.add(id(k));
  }

  async markFailed(k: ClaimKey, claimId: string, p: { transaction: string; reason: string }): Promise<void> {
    this.move(k, 'CLAIMED', claimId, { state: 'FAILED', transaction: p.transaction, reason: p.reason });
  }

  async takeDelivery(k: ClaimKey, claimId: string): Promise<boolean> {
    return this.move(k, 'SETTLED', undefined, { delivered: true, claimId }, (r) => r.delivered === false);
  }

  async returnDelivery(k: ClaimKey, claimId: string): Promise<void> {
    this.move(k, 'SETTLED', claimId, { delivered: false });
  }

  async recordSale(sale: SaleRecord): Promise<void> {
    this.sales.push({ ...sale, payer: sale.payer.toLowerCase(), nonce: sale.nonce.toLowerCase() });
  }

  async salesOfMonth(month: string): Promise<SaleRecord[]> {
    return this.sales.filter((s) => s.settledAt.startsWith(`${month}-`)).sort((a, b) => a.settledAt.localeCompare(b.settledAt));
  }

  async listPending(limit = 100): Promise<ClaimKey[]> {
    return [...this.pending].slice(0, limit).map((k) => {
      const [payer, nonce] = k.split('#') as [string, string];
      return { payer, nonce };
    });
  }

  async resolvePending(
    k: ClaimKey,
    outcome: { state: 'SETTLED'; transaction: string; settledAt: string } | { state: 'UNPAID' | 'FAILED'; reason: string },
  ): Promise<void> {
    const set: Partial<ClaimRecord> =
      outcome.state === 'SETTLED'
        ? { state: 'SETTLED', transaction: outcome.transaction, settledAt: outcome.settledAt, delivered: false, payload: undefined }
        : { state: outcome.state as ClaimState, reason: outcome.reason, payload: undefined };
    this.move(k, 'PENDING', undefined, set);
    this.pending.delete(id(k));
  }
}

export { MemoryPaymentLedger };
