/**
 * The credit ledger in memory, for fast unit tests of the Pro lane. Same rules as the DynamoDB one
 * (credit-ledger.ts): a debit and its usage entry together or not at all, never below zero, never on
 * a revoked or lapsed key, a new credit month when the old one is over and the subscription paid, a
 * refund once per entry. Each operation runs to its end before another starts (no conflicts to
 * retry); the DynamoDB ledger stays for integration and end-to-end tests.
 */
import {
  periodContaining,
  refusalOf,
  type CreditLedger,
  type DebitFor,
  type DebitResult,
  type KeyRecord,
  type TakeResult,
  type UsageEntry,
} from './credit-port';

const entryId = (hash: string, callId: string) => `${hash}#${callId}`;

class MemoryCreditLedger implements CreditLedger {
  private readonly keys = new Map<string, KeyRecord>();
  private readonly entries = new Map<string, UsageEntry>();

  /** Adds a key (refused when it exists, as the DynamoDB ledger's conditional put). */
  async put(record: KeyRecord): Promise<void> {
    if (this.keys.has(record.hash)) throw Object.assign(new Error('the key exists'), { name: 'ConditionalCheckFailedException' });
    this.keys.set(record.hash, { ...record });
  }

  async get(hash: string): Promise<KeyRecord | null> {
    const r = this.keys.get(hash);
    return r ? { ...r } : null;
  }

  async debit(hash: string, credits: number, usage: DebitFor, now: Date): Promise<DebitResult> {
    const at = now.toISOString();
    let record = this.keys.get(hash) ?? null;
    let refusal = refusalOf(record, credits, at);
    if (refusal === 'renew') {
      const { start, end } = periodContaining(record!.periodEnd, now);
      record = { ...record!, periodStart: start, periodEnd: end, creditsLeft: record!.creditsPerPeriod };
      this.keys.set(hash, record);
      refusal = refusalOf(record, credits, at);
    }
    if (refusal !== null && refusal !== 'renew') return { ok: false, reason: refusal, ...(record ? { record: { ...record } } : {}) };
    const id = entryId(hash, usage.callId);
    if (this.entries.has(id)) throw new Error(`usage entry ${usage.callId} exists`);
    const entry: UsageEntry = { hash, callId: usage.callId, requestId: usage.requestId, route: usage.route, credits, at };
    const after = { ...record!, creditsLeft: record!.creditsLeft - credits };
    this.keys.set(hash, after);
    this.entries.set(id, entry);
    return { ok: true, record: { ...after }, usage: { ...entry } };
  }

  async take(hash: string, credits: number, usage: DebitFor, now: Date): Promise<TakeResult> {
    const debit = await this.debit(hash, credits, usage, now);
    return debit.ok ? { ok: true, usage: debit.usage } : debit;
  }

  async refund(entry: UsageEntry, now: Date): Promise<boolean> {
    const id = entryId(entry.hash, entry.callId);
    const stored = this.entries.get(id);
    const record = this.keys.get(entry.hash);
    if (!stored || stored.refundedAt !== undefined || !record) return false;
    this.entries.set(id, { ...stored, refundedAt: now.toISOString() });
    this.keys.set(entry.hash, { ...record, creditsLeft: record.creditsLeft + stored.credits });
    return true;
  }

  /** The usage entries of one key in a month (YYYY-MM), oldest first. */
  async usage(hash: string, month: string): Promise<UsageEntry[]> {
    return [...this.entries.values()]
      .filter((e) => e.hash === hash && e.at.startsWith(month))
      .sort((a, b) => a.at.localeCompare(b.at) || a.callId.localeCompare(b.callId))
      .map((e) => ({ ...e }));
  }
}

export { MemoryCreditLedger };
